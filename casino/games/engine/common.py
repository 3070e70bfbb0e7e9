"""What every game's settlement shares: bets in, settled bets out (pure).

A game settles a round from the outcome facts (the number, the dice, the
cards) and the pay-table rows of the venue's rulebook, passed in as plain
dicts (`casino/rules/data/<rulebook>.v1.d/games.toml`). Nothing here reads
the database: the app loads the rows and hands them over, so a test can
settle from the same rows the rulebook ships.

Money is integer minor units. A row's `pays` (over `pays_den`, default 1) is
the net win per unit staked; a win returns the stake plus the win rounded
down to the cent, a commission is rounded up (decision games.rounding).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

Row = Mapping[str, Any]
Tables = Mapping[str, Sequence[Row]]

BASIS_POINTS = 10_000


class OutcomeInvalid(ValueError):
    """The outcome facts are malformed or impossible under the game's rules."""


class BetInvalid(ValueError):
    """A bet the game does not offer, or one its spec cannot describe."""


@dataclass(frozen=True, slots=True)
class BetIn:
    """A bet as the engine sees it: id, what it is on, and the valid stake."""

    bet_id: str
    kind: str
    spec: Mapping[str, Any]
    stake_minor: int
    box: int | None = None


@dataclass(frozen=True, slots=True)
class BetKind:
    """What placing a bet means: its pay row, cap unit and position.

    `position` names the spot on the layout; a player's stakes on one
    position are added up against the cap (decision games.pooling).
    `in_play` bets are placed after betting closes (play, double, split,
    insurance, raise), as the game's rules allow (002:L1545).
    """

    kind: str
    spec: Mapping[str, Any]
    bet_unit: str
    position: str
    in_play: bool = False
    # A bet tied to another of the same player (play = ante, a double or a
    # split = the original, insurance up to half, a raise up to the bet):
    # the position of that bet and how the stakes must relate.
    raise_of: str | None = None
    raise_rule: str | None = None   # equal | at_most | at_most_half | exactly_half | multiple
    # raise_rule "multiple": the stake is exactly one of these multiples of
    # the base bet, placed once (Oasis bet 2x, UTH play 4x/3x, 2x or 1x).
    multiples: tuple[int, ...] = ()
    # Positions of the same player that must hold a stake first: a side bet
    # is never played alone (THB bonus, UTH trips, progressives: 002:L2160,
    # L2295, L2319, L2476), a later raise needs the earlier one (002:L600).
    requires: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Settled:
    """One settled bet: what comes back to the player and which rule said so.

    `returned_minor` is paid to the player (stake included, commission
    already taken off); `result` is win | lose | push | half | void.
    """

    bet_id: str
    stake_minor: int
    returned_minor: int
    result: str
    table: str | None
    row: str | None
    cite: str
    commission_minor: int = 0
    detail: Mapping[str, Any] = field(default_factory=dict)
    # The part of the stake that feeds a progressive jackpot pool
    # (002:L2297, L2478) and the pool's kind; the app posts it to the pool's
    # pending account at the venue.
    contribution_minor: int = 0
    jackpot_kind: str | None = None

    @property
    def net_minor(self) -> int:
        return self.returned_minor - self.stake_minor


def find_row(rows: Sequence[Row], row_id: str) -> Row:
    for row in rows:
        if row["id"] == row_id:
            return row
    raise KeyError(f"no pay table row {row_id!r}")


def win_minor(stake_minor: int, row: Row) -> int:
    """The net win of a stake on a row, rounded down to the cent."""
    return stake_minor * int(row["pays"]) // int(row.get("pays_den", 1))


def commission_of(win: int, basis_points: int) -> int:
    """A commission on a win, rounded up to the cent (decision games.rounding)."""
    return -(-win * basis_points // BASIS_POINTS)


def pay(bet: BetIn, table: str, row: Row, *, commission_basis_points: int = 0,
        **detail: Any) -> Settled:
    win = win_minor(bet.stake_minor, row)
    commission = commission_of(win, commission_basis_points) if commission_basis_points else 0
    return Settled(bet.bet_id, bet.stake_minor, bet.stake_minor + win - commission, "win",
                   table, row["id"], row["cite"], commission, detail)


def lose(bet: BetIn, table: str | None, row: Row | None, cite: str, **detail: Any) -> Settled:
    return Settled(bet.bet_id, bet.stake_minor, 0, "lose", table,
                   row["id"] if row else None, row["cite"] if row else cite, 0, detail)


def push(bet: BetIn, table: str | None, row: Row | None, cite: str, **detail: Any) -> Settled:
    return Settled(bet.bet_id, bet.stake_minor, bet.stake_minor, "push", table,
                   row["id"] if row else None, row["cite"] if row else cite, 0, detail)


def half(bet: BetIn, table: str, row: Row, **detail: Any) -> Settled:
    """Half the stake back (roulette's zero rule, surrender), rounded down."""
    return Settled(bet.bet_id, bet.stake_minor, bet.stake_minor // 2, "half", table,
                   row["id"], row["cite"], 0, detail)


def result_of(stake_minor: int, returned_minor: int) -> str:
    if returned_minor > stake_minor:
        return "win"
    if returned_minor == stake_minor:
        return "push"
    return "lose" if returned_minor == 0 else "half"


def void(bet: BetIn, cite: str, reason: str) -> Settled:
    return Settled(bet.bet_id, bet.stake_minor, bet.stake_minor, "void", None, None, cite, 0,
                   {"reason": reason})


# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

RANKS = "23456789TJQKA"
SUITS = "shdc"
RED_SUITS = frozenset("hd")
JOKER = "JK"


def parse_cards(value: Any, *, count: int | None = None, minimum: int | None = None,
                what: str = "cards", joker: bool = False) -> list[str]:
    """Cards as a list of 'Ah'-style strings from a string or a list; checked.

    With `joker`, the token `JK` (Pai Gow's joker, 002:L2484) is a card too.
    """
    if isinstance(value, str):
        cards = value.split()
    elif isinstance(value, (list, tuple)) and all(isinstance(c, str) for c in value):
        cards = list(value)
    else:
        raise OutcomeInvalid(f"{what}: give cards as 'Ah Kd' or a list of such strings")
    for card in cards:
        if joker and card == JOKER:
            continue
        if len(card) != 2 or card[0] not in RANKS or card[1] not in SUITS:
            raise OutcomeInvalid(f"{what}: {card!r} is not a card (rank 23456789TJQKA,"
                                 " suit shdc)")
    if count is not None and len(cards) != count:
        raise OutcomeInvalid(f"{what}: expected {count} cards, got {len(cards)}")
    if minimum is not None and len(cards) < minimum:
        raise OutcomeInvalid(f"{what}: expected at least {minimum} cards, got {len(cards)}")
    return cards


def rank_of(card: str) -> int:
    """2..14, ace high."""
    return RANKS.index(card[0]) + 2


def distinct(cards: Sequence[str], what: str) -> None:
    """One deck: no card twice (games dealt from a shoe of several decks skip this)."""
    if len(set(cards)) != len(cards):
        raise OutcomeInvalid(f"{what}: a card appears twice in a one-deck game")


def int_in(value: Any, low: int, high: int, what: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise OutcomeInvalid(f"{what} must be a whole number from {low} to {high}")
    return value


def spec_int(spec: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = spec.get(key)
    if type(value) is not int or not low <= value <= high:
        raise BetInvalid(f"{key} must be a whole number from {low} to {high}")
    return value


def spec_ints(spec: Mapping[str, Any], key: str, low: int, high: int) -> list[int]:
    value = spec.get(key)
    if not isinstance(value, list) or not all(type(v) is int and low <= v <= high
                                              for v in value):
        raise BetInvalid(f"{key} must be a list of whole numbers from {low} to {high}")
    if len(set(value)) != len(value):
        raise BetInvalid(f"{key} names a number twice")
    return sorted(value)


# ---------------------------------------------------------------------------
# Boxes: the bets of one playing position
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoxBet:
    """How one bet of a box game relates to the others of the same box."""

    in_play: bool = False
    raise_of: str | None = None
    raise_rule: str | None = None
    multiples: tuple[int, ...] = ()
    requires: tuple[str, ...] = ()
    bet_unit: str = "box"


def box_of(spec: Mapping[str, Any], boxes_max: int = 7) -> int:
    box = spec.get("box")
    if type(box) is not int or not 1 <= box <= boxes_max:
        raise BetInvalid(f"box must be a whole number from 1 to {boxes_max}")
    return box


def box_bet(game_id: str, kind: str, spec: Mapping[str, Any], offered: Mapping[str, BoxBet],
            boxes_max: int = 7, **extra: Any) -> BetKind:
    """The BetKind of a bet on a box, from the game's table of bets."""
    if kind not in offered:
        raise BetInvalid(f"{game_id} has no bet {kind!r}; one of {', '.join(offered)}")
    box = box_of(spec, boxes_max)
    how = offered[kind]
    return BetKind(kind, {"box": box, **extra}, how.bet_unit, f"{kind}:{box}",
                   in_play=how.in_play,
                   raise_of=f"{how.raise_of}:{box}" if how.raise_of else None,
                   raise_rule=how.raise_rule, multiples=how.multiples,
                   requires=tuple(f"{r}:{box}" for r in how.requires))


def by_box(bets: Sequence[BetIn]) -> dict[str, dict[str, list[BetIn]]]:
    """Bets grouped by box, then kind (a second chip on a position is its own bet)."""
    grouped: dict[str, dict[str, list[BetIn]]] = {}
    for bet in bets:
        grouped.setdefault(str(bet.spec["box"]), {}).setdefault(bet.kind, []).append(bet)
    return grouped


def boxes_cards(outcome: Mapping[str, Any], bets: Sequence[BetIn], *, count: int,
                what: str = "box", joker: bool = False) -> dict[str, list[str]]:
    """Each box with a bet mapped to its own cards (`boxes` in the outcome)."""
    boxes_in = outcome.get("boxes")
    if not isinstance(boxes_in, Mapping):
        raise OutcomeInvalid(f"boxes must map each box number to its {count} cards")
    boxes: dict[str, list[str]] = {}
    for key, cards in boxes_in.items():
        try:
            number = str(int(key))
        except (TypeError, ValueError):
            raise OutcomeInvalid(f"{key!r} is not a box number") from None
        boxes[number] = parse_cards(cards, count=count, what=f"{what} {key}", joker=joker)
    missing = {str(b.spec["box"]) for b in bets} - set(boxes)
    if missing:
        raise OutcomeInvalid(f"no cards for box(es) {', '.join(sorted(missing))}")
    return boxes


def dealer_qualifier(tables: Tables, key: str) -> Row:
    """The one row of a game's `games.<game>.dealer_qualifier` table.

    Its `hand` names the least hand with which the dealer qualifies (read
    from the rulebook, so a version that changes it changes the game); its
    `cite` is the seed line. BetInvalid if the table is not one such row.
    """
    rows = tables.get(key) or ()
    if len(rows) != 1 or not isinstance(rows[0].get("hand"), str):
        raise BetInvalid(f"{key} must be one row naming the dealer's least qualifying hand")
    return rows[0]


def table_cite(tables: Tables, key: str) -> str:
    """A table's last row's cite: what a bet without a row of its own cites."""
    rows = tables[key]
    return rows[-1]["cite"] if rows else ""


def contribute(settled: Settled, basis_points: int, kind: str, cite: str) -> Settled:
    """The same settlement, with the pool's share of the stake set aside."""
    share = settled.stake_minor * basis_points // BASIS_POINTS
    return Settled(settled.bet_id, settled.stake_minor, settled.returned_minor, settled.result,
                   settled.table, settled.row, settled.cite, settled.commission_minor,
                   {**settled.detail, "contribution": {"basis_points": basis_points,
                                                       "kind": kind, "cite": cite}},
                   share, kind)


def passes_due(held: int, taker: int, seats: int) -> list[int]:
    """The seats between the last bank's and the taker's, in seat order (cyclic).

    The bank goes round: after seat `held`, each seat in turn takes it or
    passes it on; a taker at `held` again means every other seat passed.
    """
    order = [(held + step - 1) % seats + 1 for step in range(1, seats)]
    return sorted(order[:order.index(taker)] if taker != held else order)


def passed_of(spec: Mapping[str, Any], seats: int) -> list[int] | None:
    """A bank bet's `passed` list checked (None when absent); raises BetInvalid."""
    passed = spec.get("passed")
    if passed is None:
        return None
    if (not isinstance(passed, list) or len(passed) > seats - 1
            or any(type(b) is not int or not 1 <= b <= seats for b in passed)
            or len(set(passed)) != len(passed)):
        raise BetInvalid(f"passed lists the seats (1-{seats}) that passed the bank, each once")
    return sorted(passed)
