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
    raise_rule: str | None = None   # equal | at_most | at_most_half | exactly_half


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


def parse_cards(value: Any, *, count: int | None = None, minimum: int | None = None,
                what: str = "cards") -> list[str]:
    """Cards as a list of 'Ah'-style strings from a string or a list; checked."""
    if isinstance(value, str):
        cards = value.split()
    elif isinstance(value, (list, tuple)) and all(isinstance(c, str) for c in value):
        cards = list(value)
    else:
        raise OutcomeInvalid(f"{what}: give cards as 'Ah Kd' or a list of such strings")
    for card in cards:
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
