"""One hand's betting as a pure state machine.

`start_hand` posts the forced bets and returns the first `HandState`;
`apply(state, action)` returns the next state or raises `IllegalAction` with a
stable code, leaving the state it was given as it was (every state is a frozen
value, so a refused action cannot have changed anything). `legal_actions`
lists what the player to act may do, with the exact amount bounds `apply`
enforces. The state records each player's chips put in per street and in
total, and a log of every post and accepted action, so the ledger can post
them and `pots.settle` can build the pots from the contributions alone.

Amounts follow the room's convention: a bet, raise or call amount is the
player's total on the street after it ("raises 800" means to 800,
000:L1241-1243), never the chips added.

Seats are integers; clockwise is increasing seat number, wrapping, as in
`native_eval.showdown`. The button may be an empty seat (dead button). The
engine reads no cards: board and draw games move to the next street by
themselves, while a stud street waits for `open_street` to name the player
whose upcards act first.

How the rules are modelled, in the seed's terms:

- `level_minor` is the bet a raise builds on: the last full bet or raise
  (and, before any, the full big blind even when the big blind is all-in
  short, 000:L1406-1420). `high_bet_minor` is what a call matches.
- `increment_minor` is the minimum raise: the largest previous full bet or
  raise increment, never less than the big blind (000:L1301-1312;
  001:L70-71).
- A player may raise only if the level has risen since they last acted: a
  short all-in does not reopen the raising for players who have acted
  (000:L1358-1369; 001:L82-84), but several short all-ins in a row, with no
  call between them, whose increments add up to a full raise do
  (001:L86-88).
- Limit games count bet levels for the cap, bet + 3 raises, lifted when the
  round starts with two players holding chips (000:L1253-1260); an all-in
  raise of more than half a unit is a raise, one of half or less is not
  (000:L1262-1283).
- Pot limit: the most a player may raise to is the level, plus the pot with
  every bet on the table, plus the player's call of the level
  (000:L1373-1393); antes count, the big-blind ante only after the first
  round (000:L932-934, L943-944).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from .errors import BettingErrorCode as Code
from .errors import IllegalAction, InvariantViolation
from .structures import BettingStructure, Family, Stakes, Street, family_of, streets_for

SEATS_MIN = 2
"""A hand needs two players (000:L495)."""
SEATS_MAX = 12
"""The hard maximum at any table, whatever the variant (000:L495, L1682)."""


class Phase(StrEnum):
    BETTING = "betting"
    AWAITING_STREET = "awaiting_street"  # stud: waiting for the street's first player
    SHOWDOWN = "showdown"                # betting over, two or more players left
    COMPLETE = "complete"                # one player left: wins without showdown


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    ALL_IN = "all_in"
    BRING_IN = "bring_in"


class PostKind(StrEnum):
    SMALL_BLIND = "small_blind"
    BIG_BLIND = "big_blind"
    ANTE = "ante"
    BIG_BLIND_ANTE = "big_blind_ante"
    STRADDLE = "straddle"
    # A returning player's missed blinds (000:L1152-1167): the big blind and
    # a small blind missed alone are live; a small blind missed with the big
    # one goes straight into the pot, dead.
    MISSED_BIG_BLIND = "missed_big_blind"
    MISSED_SMALL_BLIND = "missed_small_blind"
    DEAD_SMALL_BLIND = "dead_small_blind"


DEAD_POSTS = frozenset({PostKind.ANTE, PostKind.BIG_BLIND_ANTE, PostKind.DEAD_SMALL_BLIND})
"""Posts that go straight into the pot and are no part of the player's bet
(000:L932-933, L940-941, L1154-1155): never returned as an uncalled bet, and
in the main pot whoever bets what after them."""


class MissedBlind(StrEnum):
    """Which blinds a returning player missed, and so posts to play at once.

    BIG: the big blind, which counts the small one as missed too
    (000:L1141-1143); the player posts the big blind live and the small blind
    dead (000:L1152-1155). SMALL: the small blind only, posted live as part of
    the player's bet (000:L1158-1167).
    """

    BIG = "big"
    SMALL = "small"


@dataclass(frozen=True, slots=True)
class Action:
    """What a player does. `amount_minor` is the total on the street after it."""

    seat: int
    kind: ActionKind | str
    amount_minor: int | None = None

    @classmethod
    def fold(cls, seat: int) -> Action:
        return cls(seat, ActionKind.FOLD)

    @classmethod
    def check(cls, seat: int) -> Action:
        return cls(seat, ActionKind.CHECK)

    @classmethod
    def call(cls, seat: int) -> Action:
        return cls(seat, ActionKind.CALL)

    @classmethod
    def bet(cls, seat: int, to_minor: int) -> Action:
        return cls(seat, ActionKind.BET, to_minor)

    @classmethod
    def raise_to(cls, seat: int, to_minor: int) -> Action:
        return cls(seat, ActionKind.RAISE, to_minor)

    @classmethod
    def all_in(cls, seat: int) -> Action:
        return cls(seat, ActionKind.ALL_IN)

    @classmethod
    def bring_in(cls, seat: int) -> Action:
        return cls(seat, ActionKind.BRING_IN)


@dataclass(frozen=True, slots=True)
class Record:
    """One forced bet or accepted action, as the ledger would post it.

    `kind` is a `PostKind` for forced bets, else the `ActionKind` the action
    took effect as: an all-in is logged as the call, bet or raise it was, with
    `all_in` set. `added_minor` is what moved from the stack into the pot;
    `to_minor` the player's live bet on the street afterwards (dead posts
    leave it unchanged). `full_raise` marks a bet or raise that (re)opened the
    raising; `reopened_by_short_all_ins` one that did so only together with
    the short all-ins before it (001:L86-88).
    """

    street: str
    seat: int
    kind: str
    added_minor: int
    to_minor: int
    all_in: bool = False
    full_raise: bool = False
    reopened_by_short_all_ins: bool = False


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player in the hand.

    `stack_minor` is what is left behind; `bet_minor` the live bet on the
    current street; `total_minor` everything put in this hand, live and dead;
    `by_street_minor` the same per street (antes and dead blinds in the
    first). `dead_minor` is the part of the total that went straight into the
    pot (antes, the big-blind ante, a dead small blind: `DEAD_POSTS`).
    `level_seen_minor` is the bet level when the player last acted on
    this street (None: not yet), which decides whether they may raise.
    `barred` is set when the player may only check, call or fold: for the
    rest of the street (`"street"`) or of the hand (`"hand"`).
    """

    seat: int
    stack_minor: int
    bet_minor: int
    total_minor: int
    by_street_minor: tuple[int, ...]
    folded: bool = False
    acted: bool = False
    level_seen_minor: int | None = None
    barred: str | None = None
    dead_minor: int = 0

    @property
    def live_minor(self) -> int:
        """Everything this player bet this hand: the total less the dead money."""
        return self.total_minor - self.dead_minor

    @property
    def all_in(self) -> bool:
        return not self.folded and self.stack_minor == 0

    @property
    def can_act(self) -> bool:
        return not self.folded and self.stack_minor > 0


@dataclass(frozen=True, slots=True)
class HandState:
    """Everything the betting of one hand depends on; see the module docstring."""

    variant: str
    structure: BettingStructure
    stakes: Stakes
    button: int
    streets: tuple[Street, ...]
    players: tuple[PlayerState, ...]  # by seat number
    starting_stacks_minor: tuple[tuple[int, int], ...]
    phase: Phase
    street_index: int
    to_act: int | None
    high_bet_minor: int
    level_minor: int
    increment_minor: int
    levels: int  # limit: bet levels counted on this street, for the cap
    capped: bool  # limit: the raise cap applies on this street
    short_run_minor: int  # short all-in increments since the last call or full raise
    bring_in_open: bool  # the first street's bring-in or completion is still to come
    pot_excluded_minor: int  # big-blind ante, out of the pot-limit pot in round one
    log: tuple[Record, ...]
    big_unit_option: bool = False  # stud: open pair on fourth street
    unit_override_minor: int = 0  # stud: the big unit, once used on fourth street
    mucked: tuple[int, ...] = ()  # seats that mucked at the showdown, in order

    # -- reading the state ------------------------------------------------

    @property
    def family(self) -> Family:
        return family_of(self.variant)

    @property
    def street(self) -> Street:
        return self.streets[self.street_index]

    @property
    def is_over(self) -> bool:
        return self.phase in (Phase.SHOWDOWN, Phase.COMPLETE)

    @property
    def winner_without_showdown(self) -> int | None:
        """The last player holding cards when everyone else folded or mucked, else None.

        After a muck at the showdown the side pots this player is not in go
        to others (`pots.claimants`); this is the one still holding cards.
        """
        if self.phase is not Phase.COMPLETE:
            return None
        return self.holding_seats[0]

    @property
    def holding_seats(self) -> tuple[int, ...]:
        """Seats still in the hand that have not mucked at the showdown."""
        return tuple(seat for seat in self.live_seats if seat not in self.mucked)

    @property
    def live_seats(self) -> tuple[int, ...]:
        """Seats still in the hand (not folded), all-in or not."""
        return tuple(p.seat for p in self.players if not p.folded)

    @property
    def contributions_minor(self) -> dict[int, int]:
        """Seat -> everything the player put in this hand, live and dead."""
        return {p.seat: p.total_minor for p in self.players}

    @property
    def bets_minor(self) -> dict[int, int]:
        """Seat -> the player's live chips this hand: blinds, bets, calls, raises."""
        return {p.seat: p.live_minor for p in self.players}

    @property
    def dead_minor(self) -> dict[int, int]:
        """Seat -> the player's dead money this hand (`DEAD_POSTS`)."""
        return {p.seat: p.dead_minor for p in self.players}

    @property
    def stacks_minor(self) -> dict[int, int]:
        """Seat -> chips left behind."""
        return {p.seat: p.stack_minor for p in self.players}

    @property
    def pot_minor(self) -> int:
        """All chips put in, including the bets in front of the players."""
        return sum(p.total_minor for p in self.players)

    @property
    def betting_rounds_reached(self) -> int:
        """How many betting rounds the hand reached: 1 if it ended in the first.

        A hand whose players are all-in reaches every remaining street (the
        cards are dealt) although no betting happens on them.
        """
        return self.street_index + 1

    @property
    def reached_flop(self) -> bool:
        """The hand got past the first betting round (flop, second upcard, draw)."""
        return self.street_index >= 1

    def player(self, seat: int) -> PlayerState:
        for p in self.players:
            if p.seat == seat:
                return p
        raise KeyError(seat)


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the player to act may do. Amounts are totals on the street ("to").

    A bet or raise is legal exactly when its amount lies in the closed range
    `[*_min, *_max]`; both are None when that action is not allowed. An
    all-in short of the minimum is the range's only value. In fixed limit
    the legal amounts are exactly `*_choices_minor` (one, or two with the
    stud open-pair option); elsewhere those are None.
    """

    seat: int
    fold: bool
    check: bool
    call_to_minor: int | None
    to_call_minor: int  # chips a call adds
    bet_min_minor: int | None
    bet_max_minor: int | None
    raise_min_minor: int | None
    raise_max_minor: int | None
    bet_choices_minor: tuple[int, ...] | None
    raise_choices_minor: tuple[int, ...] | None
    bring_in_to_minor: int | None
    all_in_to_minor: int
    all_in_kind: ActionKind | None  # what an all-in counts as, None if not allowed


@dataclass(frozen=True, slots=True)
class Interpretation:
    """Chips or a stated amount read by the room's rules.

    `action` is what they count as; `added_minor` the chips the player must
    add to complete it, `returned_minor` the chips given back.
    """

    action: Action
    added_minor: int
    returned_minor: int


# ---------------------------------------------------------------------------
# Starting a hand
# ---------------------------------------------------------------------------


def start_hand(
    variant: str,
    structure: BettingStructure | str,
    stakes: Stakes,
    seats: Mapping[int, int],
    button: int,
    *,
    blind_seats: tuple[int | None, int] | None = None,
    straddles: int = 0,
    first_seat: int | None = None,
    missed_blinds: Mapping[int, MissedBlind | str] | None = None,
) -> HandState:
    """Post the forced bets and return the state before the first action.

    `seats` maps each seat dealt in to its stack at the hand's start (the
    chips on the table then are the only ones that play, 000:L281). The small
    blind is the first seat after the button and the big blind the next
    (000:L920-921); heads-up the button posts the small blind (000:L1226-1230;
    001:L34). `blind_seats` overrides them for the moving-blind cases, with
    None for a hand without a small blind (000:L1036-1070). `straddles` is the
    number of live straddles, from the first player to act, each twice the
    last (000:L975-985). Stud games name the first to act on the first
    street (`first_seat`: the bring-in, or the highest upcard in pot limit,
    000:L2170-2186, L2051-2054); the engine does not read cards.
    `missed_blinds` maps a returning player's seat to the blinds they missed
    and post now to play at once (`MissedBlind`, 000:L1133-1167).

    Forced bets are posted blinds first, then straddles, then missed blinds,
    then antes, each capped at the stack (a short post is all-in). Decision:
    blinds come before antes for a player who cannot cover both, as the seed
    gives the big blind priority over the big-blind ante (000:L1423-1425);
    for the same reason a missed big blind, live, comes before the dead
    small blind posted with it.

    Raises ValueError for a malformed setup and IllegalAction
    (`poker.invalid_forced_bet`) for a straddle the rules do not allow.
    """
    structure = BettingStructure(structure)
    streets = streets_for(variant)
    family = family_of(variant)
    _check_setup(structure, stakes, seats, family, first_seat)

    players = [
        PlayerState(seat, stack, 0, 0, (0,) * len(streets))
        for seat, stack in sorted(seats.items())
    ]
    index = {p.seat: i for i, p in enumerate(players)}
    order = _clockwise_after(sorted(seats), button)
    log: list[Record] = []
    street_name = streets[0].name

    def post(seat: int, kind: PostKind, amount_minor: int, *, live: bool) -> None:
        i = index[seat]
        p = players[i]
        added = min(amount_minor, p.stack_minor)
        p = _put(p, added, 0, live=live)
        players[i] = p
        log.append(
            Record(street_name, seat, kind.value, added, p.bet_minor, all_in=p.all_in)
        )

    high = level = levels = 0
    increment = _opening_increment(structure, stakes, streets[0])
    pot_excluded = 0
    start_after: int | None = None
    start_at: int | None = None
    has_blinds = stakes.big_blind_minor > 0
    if straddles and not has_blinds:
        raise IllegalAction(
            Code.INVALID_FORCED_BET, "A straddle needs blinds to double.",
            straddles=straddles, cite="000:L975-979",
        )

    if has_blinds:
        sb, bb = _blind_seats(order, button, blind_seats, seats)
        if sb is not None:
            post(sb, PostKind.SMALL_BLIND, stakes.small_blind_minor, live=True)
        post(bb, PostKind.BIG_BLIND, stakes.big_blind_minor, live=True)
        if stakes.big_blind_ante_minor:
            # The big blind posts the table's antes; dead, and out of the
            # pot-limit pot until the first round ends (000:L939-944).
            before = players[index[bb]].total_minor
            post(bb, PostKind.BIG_BLIND_ANTE, stakes.big_blind_ante_minor, live=False)
            pot_excluded = players[index[bb]].total_minor - before
        level = stakes.big_blind_minor
        levels = 1
        start_after = bb
        if straddles:
            start_after, level, increment = _post_straddles(
                structure, stakes, order, sb, bb, straddles, players, index, post,
            )
        posted = {r.seat for r in log}
        for seat, missed in sorted(_missed_blinds(missed_blinds, seats, posted).items()):
            if missed is MissedBlind.BIG:
                post(seat, PostKind.MISSED_BIG_BLIND, stakes.big_blind_minor, live=True)
                post(seat, PostKind.DEAD_SMALL_BLIND, stakes.small_blind_minor,
                     live=False)
            else:
                post(seat, PostKind.MISSED_SMALL_BLIND, stakes.small_blind_minor,
                     live=True)
    elif missed_blinds:
        raise ValueError("missed blinds are posted only in a game with blinds")
    elif family is Family.STUD:
        start_at = first_seat
    # Antes only, board or draw: the first player after the button opens and
    # the button acts last (000:L1768-1770, L1781-1783).

    if stakes.ante_minor:
        for seat in order:
            post(seat, PostKind.ANTE, stakes.ante_minor, live=False)

    high = max(p.bet_minor for p in players)
    with_chips = sum(1 for p in players if p.can_act)
    state = HandState(
        variant=variant,
        structure=structure,
        stakes=stakes,
        button=button,
        streets=streets,
        players=tuple(players),
        starting_stacks_minor=tuple(sorted(seats.items())),
        phase=Phase.BETTING,
        street_index=0,
        to_act=None,
        high_bet_minor=high,
        level_minor=level,
        increment_minor=increment,
        levels=levels,
        capped=structure.is_limit and with_chips > 2,
        short_run_minor=0,
        bring_in_open=not has_blinds and stakes.bring_in_minor > 0,
        pot_excluded_minor=pot_excluded,
        log=tuple(log),
    )
    if start_at is not None:
        return _next_turn(state, start_at, inclusive=True)
    if start_after is None:
        start_after = button
    return _next_turn(state, start_after, inclusive=False)


def _missed_blinds(
    missed_blinds: Mapping[int, MissedBlind | str] | None,
    seats: Mapping[int, int],
    posted: set[int],
) -> dict[int, MissedBlind]:
    """Validate the returning players' missed blinds: seats dealt in, no blind
    or straddle of their own this hand, a known kind."""
    checked: dict[int, MissedBlind] = {}
    for seat, missed in (missed_blinds or {}).items():
        if seat not in seats:
            raise ValueError(f"missed blinds: seat {seat} is not dealt in")
        if seat in posted:
            raise ValueError(
                f"missed blinds: seat {seat} already posts a blind or straddle"
            )
        try:
            checked[seat] = MissedBlind(missed)
        except ValueError:
            raise ValueError(
                f"missed blinds: {missed!r} is not one of {[m.value for m in MissedBlind]}"
            ) from None
    return checked


def _check_setup(
    structure: BettingStructure,
    stakes: Stakes,
    seats: Mapping[int, int],
    family: Family,
    first_seat: int | None,
) -> None:
    if not SEATS_MIN <= len(seats) <= SEATS_MAX:
        raise ValueError(
            f"a hand needs {SEATS_MIN}..{SEATS_MAX} players, got {len(seats)}"
        )
    for seat, stack in seats.items():
        if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
            raise ValueError(f"seat must be a non-negative int, got {seat!r}")
        if isinstance(stack, bool) or not isinstance(stack, int) or stack <= 0:
            raise ValueError(
                f"seat {seat}: a player is dealt in only with chips, got {stack!r}"
            )
    if not stakes.opening_bet_minor:
        raise ValueError("Stakes need a big blind, a bring-in or an ante")
    if structure.is_limit and not stakes.small_unit_minor:
        raise ValueError("a limit game needs a betting unit")
    if family is Family.STUD and not stakes.big_blind_minor:
        if first_seat is None or first_seat not in seats:
            raise ValueError("stud without blinds needs first_seat, a seat dealt in")


def _opening_increment(
    structure: BettingStructure, stakes: Stakes, street: Street,
) -> int:
    if structure is BettingStructure.FIXED_LIMIT:
        return _unit(stakes, street)
    return stakes.opening_bet_minor


def _blind_seats(
    order: list[int],
    button: int,
    blind_seats: tuple[int | None, int] | None,
    seats: Mapping[int, int],
) -> tuple[int | None, int]:
    if blind_seats is not None:
        sb, bb = blind_seats
        if bb not in seats or (sb is not None and (sb not in seats or sb == bb)):
            raise ValueError(
                f"blind seats {blind_seats} must be distinct seats dealt in"
            )
        return sb, bb
    if len(order) == 2 and button in seats:
        # Heads-up: the button is the small blind (000:L1226-1230; 001:L34).
        return button, order[0]
    return order[0], order[1]


def _post_straddles(
    structure: BettingStructure,
    stakes: Stakes,
    order: list[int],
    sb: int | None,
    bb: int,
    count: int,
    players: list[PlayerState],
    index: dict[int, int],
    post: Callable[..., None],
) -> tuple[int, int, int]:
    """Post `count` live straddles from the first player to act; see start_hand."""
    if structure.is_limit:
        raise IllegalAction(
            Code.INVALID_FORCED_BET, "Straddles are played in pot and no limit only.",
            cite="000:L975-979",
        )
    # The chain runs clockwise from the seat after the big blind and may not
    # reach the seat after the button, the small blind (000:L981-985).
    after_bb = _clockwise_after(order, bb)
    allowed = [s for s in after_bb if s not in (sb, bb) and s != order[0]]
    chain = after_bb[:count]
    if count < 0 or count > len(allowed) or any(s not in allowed for s in chain):
        raise IllegalAction(
            Code.INVALID_FORCED_BET,
            "A straddle chain must run seat by seat from the first to act and not reach"
            " the seat after the button.",
            straddles=count, cite="000:L981-985",
        )
    amount = stakes.big_blind_minor
    for seat in chain:
        amount *= 2  # each straddle is twice the last (000:L983)
        if players[index[seat]].stack_minor < amount:
            raise IllegalAction(
                Code.INVALID_FORCED_BET,
                "A straddle must be posted in full.",
                seat=seat, amount_minor=amount, cite="000:L975-979",
            )
        post(seat, PostKind.STRADDLE, amount, live=True)
    # The straddle acts last before the flop; decision: it counts as a blind
    # for the minimum raise, so the next raise is to at least twice it
    # (003:L119; 000:L975-979).
    return chain[-1], amount, amount


# ---------------------------------------------------------------------------
# Acting
# ---------------------------------------------------------------------------


def apply(state: HandState, action: Action) -> HandState:
    """Apply one player action and return the next state.

    Raises IllegalAction naming the broken rule; the given state is a frozen
    value and is never changed. Checks run in this order: the hand is still
    betting, it is the seat's turn, the action kind, then the amount.
    """
    p = _actor(state, action.seat)
    try:
        kind = ActionKind(action.kind)
    except ValueError:
        raise IllegalAction(
            Code.UNKNOWN_ACTION, f"Unknown action {action.kind!r}.", seat=action.seat,
        ) from None

    if kind is ActionKind.ALL_IN:
        to = p.bet_minor + p.stack_minor
        if to <= state.high_bet_minor:
            return _call(state, p, None)
        if state.high_bet_minor == 0:
            return _aggressive(state, p, ActionKind.BET, to)
        return _aggressive(state, p, ActionKind.RAISE, to)
    if kind is ActionKind.FOLD:
        return _fold(state, p)
    if kind is ActionKind.CHECK:
        return _check(state, p)
    if kind is ActionKind.CALL:
        return _call(state, p, action.amount_minor)
    if kind is ActionKind.BRING_IN:
        return _bring_in(state, p, action.amount_minor)
    return _aggressive(state, p, kind, _amount(action))


def open_street(
    state: HandState, *, first_seat: int, open_pair: bool = False,
) -> HandState:
    """Start a stud street's betting with the player whose upcards act first.

    000:L2201-2213: the best showing combination acts first on fourth street
    and later; the engine does not read cards, so the caller names the seat.
    If that player is all-in the next player clockwise who can act starts.

    `open_pair`: a pair shows on fourth street in limit seven card stud, so
    any player may bet or raise by the big unit, which every later raise on
    the street then uses; the cap stays three raises (000:L2216-2230). Not in
    hi-lo or razz (000:L2458-2465, L2523-2527): `poker.big_unit_not_allowed`.
    """
    if state.phase is not Phase.AWAITING_STREET:
        raise IllegalAction(
            Code.HAND_OVER if state.is_over else Code.STREET_NOT_OPEN,
            "No street is waiting for its first player.", phase=state.phase.value,
        )
    if first_seat not in state.live_seats:
        raise IllegalAction(
            Code.NOT_IN_HAND, "The first player must still be in the hand.",
            seat=first_seat,
        )
    if open_pair and not (
        state.variant == "stud"
        and state.structure is BettingStructure.FIXED_LIMIT
        and state.street.name == "fourth_street"
    ):
        raise IllegalAction(
            Code.BIG_UNIT_NOT_ALLOWED,
            "The big unit on an open pair is for fourth street of limit high stud.",
            cite="000:L2216-2230, L2458-2465, L2523-2527",
        )
    opened = replace(state, phase=Phase.BETTING, big_unit_option=open_pair)
    return _next_turn(opened, first_seat, inclusive=True)


MUCK = "muck"
"""The Record kind of a hand thrown away face down at the showdown."""


def muck(state: HandState, seat: int) -> HandState:
    """Record that a player threw their hand away unshown at the showdown.

    A hand thrown face down is dead (000:L245-248): the player keeps an
    uncalled bet returned to them but gives up every pot, which goes to the
    best hand shown among the players still holding cards (the decision is
    written at `pots.claimants`). The muck is a step of the hand's log, so
    the history says who gave up and in what order. When only one player
    holds cards the showdown is over: they win without showing
    (000:L192-195), and the hand is COMPLETE.

    Raises IllegalAction: the betting is not over (`poker.hand_not_at_showdown`),
    the hand is over (`poker.hand_over`), or the seat is not in the hand or
    has mucked already (`poker.not_in_hand`).
    """
    if state.phase is Phase.COMPLETE:
        raise IllegalAction(Code.HAND_OVER, "The hand is over.", seat=seat)
    if state.phase is not Phase.SHOWDOWN:
        raise IllegalAction(
            Code.NOT_AT_SHOWDOWN, "A hand is mucked at the showdown, after the betting.",
            seat=seat, phase=state.phase.value, cite="000:L182-184, L245-248",
        )
    if seat not in state.holding_seats:
        raise IllegalAction(
            Code.NOT_IN_HAND, "The player holds no cards to muck.", seat=seat,
            cite="000:L245-248",
        )
    record = Record(state.street.name, seat, MUCK, 0, 0)
    mucked = replace(state, mucked=state.mucked + (seat,), log=state.log + (record,))
    if len(mucked.holding_seats) == 1:
        return replace(mucked, phase=Phase.COMPLETE)
    return mucked


def bar_bet_and_raise(state: HandState, seat: int, *, for_hand: bool) -> HandState:
    """Let a player only check, call or fold, for the street or the rest of the hand.

    A player who checked out of turn may not bet or raise in that round
    (000:L1574-1575); one who showed hole cards before the last round ended
    may not bet or raise in that hand (000:L212-217; Tallinn: check, call or
    fold, 003:L55). The floor's ruling is the caller's; this records it.
    """
    if state.is_over:
        raise IllegalAction(Code.HAND_OVER, "The hand's betting is over.", seat=seat)
    if seat not in state.live_seats:
        raise IllegalAction(Code.NOT_IN_HAND, "The player is not in the hand.",
                            seat=seat)
    p = state.player(seat)
    barred = "hand" if for_hand or p.barred == "hand" else "street"
    players = tuple(replace(o, barred=barred) if o.seat == seat else o
                    for o in state.players)
    return replace(state, players=players)


def legal_actions(state: HandState) -> LegalActions | None:
    """List what the player to act may do, or None when nobody is to act."""
    if state.phase is not Phase.BETTING or state.to_act is None:
        return None
    p = state.player(state.to_act)
    stud_bring_in = state.bring_in_open and state.family is Family.STUD
    all_in_to = p.bet_minor + p.stack_minor
    facing = state.high_bet_minor > p.bet_minor
    call_to = min(state.high_bet_minor, all_in_to) if facing else None

    bet_range = raise_range = None
    bet_choices = raise_choices = None
    fixed = state.structure is BettingStructure.FIXED_LIMIT
    if _aggressive_refusal(state, p, ActionKind.BET) is None:
        bet_range = _bounds(state, p, ActionKind.BET)
        bet_choices = _fixed_choices(state, p, ActionKind.BET) if fixed else None
    if _aggressive_refusal(state, p, ActionKind.RAISE) is None:
        raise_range = _bounds(state, p, ActionKind.RAISE)
        raise_choices = _fixed_choices(state, p, ActionKind.RAISE) if fixed else None

    if all_in_to <= state.high_bet_minor:
        all_in_kind: ActionKind | None = ActionKind.CALL
    elif state.high_bet_minor == 0:
        all_in_kind = (
            ActionKind.BET if bet_range and bet_range[1] == all_in_to else None
        )
    else:
        all_in_kind = (
            ActionKind.RAISE if raise_range and raise_range[1] == all_in_to else None
        )

    return LegalActions(
        seat=p.seat,
        fold=not stud_bring_in,
        check=not facing and not state.bring_in_open,
        call_to_minor=call_to,
        to_call_minor=(call_to - p.bet_minor) if call_to is not None else 0,
        bet_min_minor=bet_range[0] if bet_range else None,
        bet_max_minor=bet_range[1] if bet_range else None,
        raise_min_minor=raise_range[0] if raise_range else None,
        raise_max_minor=raise_range[1] if raise_range else None,
        bet_choices_minor=bet_choices,
        raise_choices_minor=raise_choices,
        bring_in_to_minor=(
            min(state.stakes.bring_in_minor, all_in_to) if state.bring_in_open else None
        ),
        all_in_to_minor=all_in_to,
        all_in_kind=all_in_kind,
    )


def interpret_raise(
    state: HandState, to_minor: int, *, declared_raise: bool = False,
) -> Interpretation:
    """Read a stated total by the minimum-bet and 50 % rules of pot and no limit.

    With no bet to face, a bet under the minimum is completed to it
    (000:L1438-1439). Facing a bet, if the raise part is at least half the
    minimum raise the player must complete it to the minimum; if less, it is
    a call and the excess is returned (000:L1320-1352). A raise declared
    aloud is always completed (000:L1449-1451). Other structures, full bets
    and raises and all-ins are taken as they are. `apply` the returned
    action to record it.
    """
    menu = _menu_or_refuse(state)
    seat = menu.seat
    pot_or_no_limit = state.structure in (
        BettingStructure.POT_LIMIT, BettingStructure.NO_LIMIT,
    )
    if state.high_bet_minor == 0:
        bet = Action.bet(seat, to_minor)
        if (not pot_or_no_limit or menu.bet_min_minor is None
                or to_minor >= min(menu.bet_min_minor, menu.all_in_to_minor)):
            return Interpretation(bet, 0, 0)
        completed = Action.bet(seat, menu.bet_min_minor)
        return Interpretation(completed, menu.bet_min_minor - to_minor, 0)
    raise_action = Action.raise_to(seat, to_minor)
    if (
        not pot_or_no_limit
        or menu.raise_min_minor is None
        or to_minor >= menu.raise_min_minor
        or to_minor >= menu.all_in_to_minor
    ):
        return Interpretation(raise_action, 0, 0)
    reference = max(state.high_bet_minor, state.level_minor)
    required = menu.raise_min_minor - reference
    raised = to_minor - reference
    if declared_raise or 2 * raised >= required:
        completed = Action.raise_to(seat, menu.raise_min_minor)
        return Interpretation(completed, menu.raise_min_minor - to_minor, 0)
    call_to = _call_to(state, menu)
    short, excess = max(0, call_to - to_minor), max(0, to_minor - call_to)
    return Interpretation(Action.call(seat), short, excess)


def interpret_chips(
    state: HandState, chips_minor: Sequence[int], *, declared_raise: bool = False,
) -> Interpretation:
    """Read chips pushed into the pot with nothing said, as the room's rules do.

    `chips_minor` are the chips put in now, by value; chips already in front
    of the player count toward the amount (000:L1501). With no bet to face
    the chips are a bet of their total, one chip its full value
    (000:L1434-1436). Facing a bet, one chip is only a call
    (000:L1462-1464); several chips are a raise only if they still cover the
    call without the lowest of them, otherwise a call with the excess
    returned (000:L1483-1508); a raise then follows the 50 % rule
    (`interpret_raise`). Chips short of a call must be completed to it
    (000:L1467-1471; the floor's leave to fold instead is the caller's to
    apply). A declared raise goes straight to `interpret_raise`.
    """
    menu = _menu_or_refuse(state)
    p = state.player(menu.seat)
    placed = sum(chips_minor)
    if not chips_minor or any(c <= 0 for c in chips_minor):
        raise IllegalAction(Code.INVALID_AMOUNT, "Chips have positive values.",
                            seat=p.seat, chips_minor=list(chips_minor))
    if placed > p.stack_minor:
        raise IllegalAction(
            Code.MORE_THAN_STACK, f"Seat {p.seat} has {p.stack_minor} behind.",
            seat=p.seat, amount_minor=placed, limit_minor=p.stack_minor,
            cite="000:L281",
        )
    to = p.bet_minor + placed
    if state.high_bet_minor <= p.bet_minor or declared_raise:
        return interpret_raise(state, to, declared_raise=declared_raise)
    call_to = _call_to(state, menu)
    if len(chips_minor) > 1 and to - min(chips_minor) >= call_to:
        return interpret_raise(state, to)
    short, excess = max(0, call_to - to), max(0, to - call_to)
    return Interpretation(Action.call(p.seat), short, excess)


def round_to_big_blind(amount_minor: int, big_blind_minor: int) -> int:
    """Round a bet to the nearest multiple of the big blind, at least one big blind.

    000:L1521-1541: with blinds 2.5-2.5 a 6 EUR bet is 5 EUR (1 EUR back) and
    19.5 EUR is completed to 20 EUR; a bet under the smallest allowed is
    completed to it. Decision: an exact half rounds up, completing the bet
    rather than returning chips, as the seed completes 19.5 to 20; the seed
    leaves the half open (question 9 of the digest).
    """
    if big_blind_minor <= 0 or amount_minor <= 0:
        raise ValueError("a positive bet and big blind are needed")
    multiples = (2 * amount_minor + big_blind_minor) // (2 * big_blind_minor)
    return max(1, multiples) * big_blind_minor


def _menu_or_refuse(state: HandState) -> LegalActions:
    menu = legal_actions(state)
    if menu is None:
        raise IllegalAction(
            Code.HAND_OVER, "Nobody is to act.", phase=state.phase.value,
        )
    return menu


def _call_to(state: HandState, menu: LegalActions) -> int:
    if menu.call_to_minor is not None:
        return menu.call_to_minor
    return state.high_bet_minor


# ---------------------------------------------------------------------------
# The actions
# ---------------------------------------------------------------------------


def _actor(state: HandState, seat: int) -> PlayerState:
    if state.phase is not Phase.BETTING:
        if state.phase is Phase.AWAITING_STREET:
            raise IllegalAction(
                Code.STREET_NOT_OPEN, "The next street has not been opened.", seat=seat,
            )
        raise IllegalAction(Code.HAND_OVER, "The hand's betting is over.", seat=seat,
                            phase=state.phase.value)
    if seat != state.to_act:
        raise IllegalAction(
            Code.NOT_YOUR_TURN, f"It is seat {state.to_act}'s turn, not seat {seat}'s.",
            seat=seat, to_act=state.to_act, cite="000:L18",
        )
    return state.player(seat)


def _amount(action: Action) -> int:
    amount = action.amount_minor
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise IllegalAction(
            Code.INVALID_AMOUNT, "A bet or raise needs a positive amount in cents.",
            seat=action.seat, amount_minor=amount,
        )
    return amount


def _fold(state: HandState, p: PlayerState) -> HandState:
    if state.bring_in_open and state.family is Family.STUD:
        raise IllegalAction(
            Code.BRING_IN_REQUIRED, "The first player must bring in or complete.",
            seat=p.seat, cite="000:L2170-2174",
        )
    folded = replace(p, folded=True, acted=True)
    record = Record(state.street.name, p.seat, ActionKind.FOLD.value, 0, p.bet_minor)
    return _after(state, folded, record)


def _check(state: HandState, p: PlayerState) -> HandState:
    if state.bring_in_open:
        raise IllegalAction(
            Code.BRING_IN_REQUIRED, "The first player must bring in, complete or fold.",
            seat=p.seat, cite="000:L1768-1770, L2170-2174",
        )
    if p.bet_minor < state.high_bet_minor:
        raise IllegalAction(
            Code.CANNOT_CHECK, "There is a bet to call.", seat=p.seat,
            to_call_minor=state.high_bet_minor - p.bet_minor, cite="001:L56-58",
        )
    checked = replace(p, acted=True, level_seen_minor=state.level_minor)
    record = Record(state.street.name, p.seat, ActionKind.CHECK.value, 0, p.bet_minor)
    return _after(state, checked, record)


def _call(state: HandState, p: PlayerState, amount_minor: int | None) -> HandState:
    if p.bet_minor >= state.high_bet_minor:
        raise IllegalAction(
            Code.NOTHING_TO_CALL, "There is no bet to call.",
            seat=p.seat, cite="001:L60-62",
        )
    call_to = min(state.high_bet_minor, p.bet_minor + p.stack_minor)
    if amount_minor is not None and amount_minor != call_to:
        raise IllegalAction(
            Code.INVALID_AMOUNT, f"A call here is to {call_to}.", seat=p.seat,
            amount_minor=amount_minor, limit_minor=call_to,
        )
    called = _put(p, call_to - p.bet_minor, state.street_index, live=True)
    called = replace(called, acted=True, level_seen_minor=state.level_minor)
    record = Record(state.street.name, p.seat, ActionKind.CALL.value,
                    call_to - p.bet_minor, call_to, all_in=called.all_in)
    # A call ends a run of short all-ins: only raises "with no call in
    # between" add up to reopen the betting (001:L86-88).
    return _after(replace(state, short_run_minor=0), called, record)


def _bring_in(state: HandState, p: PlayerState, amount_minor: int | None) -> HandState:
    if not state.bring_in_open:
        raise IllegalAction(
            Code.BRING_IN_NOT_ALLOWED, "The bring-in only opens the first street.",
            seat=p.seat, cite="000:L952-954",
        )
    to = min(state.stakes.bring_in_minor, p.bet_minor + p.stack_minor)
    if amount_minor is not None and amount_minor != to:
        raise IllegalAction(
            Code.INVALID_AMOUNT, f"The bring-in here is {to}.", seat=p.seat,
            amount_minor=amount_minor, limit_minor=to,
        )
    brought = _put(p, to - p.bet_minor, state.street_index, live=True)
    if state.structure is BettingStructure.FIXED_LIMIT:
        # Limit: the bring-in is not a bet level; completing to the small
        # bet is (000:L2170-2181: force 50, complete 100, then 3 raises).
        level, increment, full = 0, state.increment_minor, False
    else:
        # Decision: in pot, no and spread limit the bring-in is the opening
        # bet, so the next raise is to at least twice it (000:L1293-1295
        # makes the opening forced bet the minimum bet).
        level, increment, full = to, max(state.increment_minor, to), True
    brought = replace(brought, acted=True, level_seen_minor=level)
    record = Record(state.street.name, p.seat, ActionKind.BRING_IN.value,
                    to - p.bet_minor, to, all_in=brought.all_in, full_raise=full)
    moved = replace(state, high_bet_minor=max(state.high_bet_minor, to),
                    level_minor=level, increment_minor=increment, bring_in_open=False)
    return _after(moved, brought, record)


def _aggressive(
    state: HandState, p: PlayerState, kind: ActionKind, to: int,
) -> HandState:
    """Validate and make a bet or raise to `to`."""
    refusal = _aggressive_refusal(state, p, kind)
    if refusal is not None:
        raise refusal
    all_in_to = p.bet_minor + p.stack_minor
    if to > all_in_to:
        raise IllegalAction(
            Code.MORE_THAN_STACK, f"Seat {p.seat} can bet to {all_in_to} at most.",
            seat=p.seat, amount_minor=to, limit_minor=all_in_to, cite="000:L281",
        )
    low, high = _bounds(state, p, kind)
    fixed = state.structure is BettingStructure.FIXED_LIMIT
    if not low <= to <= high or (fixed and to not in _fixed_choices(state, p, kind)):
        raise _size_refusal(state, p, kind, to, low, high)

    street = state.street
    reference = max(state.high_bet_minor, state.level_minor)
    level, increment, levels = state.level_minor, state.increment_minor, state.levels
    short_run = state.short_run_minor
    big_unit_option, unit_override = state.big_unit_option, state.unit_override_minor
    full = by_run = False
    if fixed:
        # A full unit is a raise; an all-in counts only if it adds more than
        # half a unit over the last counted level (000:L1262-1283).
        full = 2 * (to - level) > _street_unit(state)
        if big_unit_option and to - level == state.stakes.big_unit_minor:
            # The big unit is in play; later raises use it (000:L2221-2226).
            big_unit_option, unit_override = False, state.stakes.big_unit_minor
    else:
        raised_by = to - reference
        if raised_by >= state.increment_minor:
            full = True
            increment = max(increment, raised_by)
        else:
            # A short all-in. Decision: several in a row reopen the betting
            # when their increments reach the minimum raise (001:L86-88); the
            # minimum raise stays the largest full increment, the rule of
            # 001:L70, since none of them was one.
            short_run += max(0, to - max(state.high_bet_minor, state.level_minor))
            if short_run >= state.increment_minor:
                full = by_run = True
    if full:
        level, levels, short_run = to, levels + 1, 0

    raised = _put(p, to - p.bet_minor, state.street_index, live=True)
    raised = replace(raised, acted=True, level_seen_minor=level)
    record = Record(street.name, p.seat, kind.value, to - p.bet_minor, to,
                    all_in=raised.all_in, full_raise=full,
                    reopened_by_short_all_ins=by_run)
    moved = replace(state, high_bet_minor=max(state.high_bet_minor, to),
                    level_minor=level, increment_minor=increment, levels=levels,
                    short_run_minor=short_run, bring_in_open=False,
                    big_unit_option=big_unit_option,
                    unit_override_minor=unit_override)
    return _after(moved, raised, record)


def _aggressive_refusal(
    state: HandState, p: PlayerState, kind: ActionKind,
) -> IllegalAction | None:
    """Why the player may not bet (or raise) at all here, or None."""
    facing_bet = state.high_bet_minor > 0
    if kind is ActionKind.BET and facing_bet:
        return IllegalAction(Code.CANNOT_BET, "There is a bet already: raise instead.",
                             seat=p.seat, cite="001:L64-66")
    if kind is ActionKind.RAISE and not facing_bet:
        return IllegalAction(Code.NOTHING_TO_RAISE, "No bet to raise: bet instead.",
                             seat=p.seat, cite="001:L64-66")
    if p.bet_minor + p.stack_minor <= state.high_bet_minor:
        return IllegalAction(Code.MORE_THAN_STACK, "The stack covers a call at most.",
                             seat=p.seat, limit_minor=p.bet_minor + p.stack_minor,
                             cite="000:L346-350")
    if p.barred is not None:
        return IllegalAction(
            Code.BET_OR_RAISE_BARRED, "This player may only check, call or fold.",
            seat=p.seat, barred=p.barred, cite="000:L212-217, L1574-1575; 003:L55",
        )
    if not any(o.can_act for o in state.players if o.seat != p.seat):
        return IllegalAction(Code.NO_ONE_TO_RAISE, "Everyone else is all-in or out.",
                             seat=p.seat, cite="000:L346-350")
    if kind is ActionKind.RAISE:
        if p.level_seen_minor is not None and state.level_minor <= p.level_seen_minor:
            return IllegalAction(
                Code.ACTION_NOT_REOPENED,
                "Only a short all-in raise came since this player acted: call or fold.",
                seat=p.seat, cite="000:L1358-1369; 001:L82-84",
            )
        if state.capped and state.levels >= 1 + state.stakes.raises_per_round_max:
            return IllegalAction(
                Code.RAISE_CAP_REACHED, "The betting is capped this round.",
                seat=p.seat, limit=1 + state.stakes.raises_per_round_max,
                cite="000:L1253-1260",
            )
    return None


def _bounds(state: HandState, p: PlayerState, kind: ActionKind) -> tuple[int, int]:
    """The closed range of legal totals for a bet or raise, clipped to the stack."""
    structure = state.structure
    all_in_to = p.bet_minor + p.stack_minor
    if structure is BettingStructure.FIXED_LIMIT:
        choices = _fixed_choices(state, p, kind)
        return choices[0], choices[-1]
    reference = max(state.high_bet_minor, state.level_minor)
    unit = _street_unit(state)
    if kind is ActionKind.BET:
        low = _min_bet(state)
        if structure is BettingStructure.SPREAD_LIMIT:
            high = max(low, unit)
        elif structure is BettingStructure.POT_LIMIT:
            # A bet is at most the pot (000:L1373).
            high = max(low, _pot_limit_pot(state))
        else:
            high = all_in_to
    elif structure is BettingStructure.SPREAD_LIMIT:
        low = reference + min(state.increment_minor, unit)
        high = reference + unit
    else:
        low = reference + state.increment_minor
        if structure is BettingStructure.POT_LIMIT:
            # Call the level, then raise by the pot after that call
            # (000:L1374-1393). The level is a short blind's full
            # size, so the shortfall is deducted once (000:L1402-1415).
            call = reference - p.bet_minor
            high = max(low, reference + _pot_limit_pot(state) + call)
        else:
            high = all_in_to
    return min(low, all_in_to), min(high, all_in_to)


def _fixed_choices(
    state: HandState, p: PlayerState, kind: ActionKind,
) -> tuple[int, ...]:
    """Fixed limit: the totals a bet or raise may be, clipped to the stack.

    One unit over the last counted level (000:L1250-1255; a bet builds on
    level 0), or either unit while the stud open-pair option stands
    (000:L2216-2230).
    """
    base = 0 if kind is ActionKind.BET else state.level_minor
    units = {_street_unit(state)}
    if state.big_unit_option:
        units.add(state.stakes.big_unit_minor)
    all_in_to = p.bet_minor + p.stack_minor
    return tuple(sorted({min(base + unit, all_in_to) for unit in units}))


def _size_refusal(state: HandState, p: PlayerState, kind: ActionKind, to: int,
                  low: int, high: int) -> IllegalAction:
    structure = state.structure
    details = dict(seat=p.seat, amount_minor=to)
    if structure is BettingStructure.FIXED_LIMIT:
        return IllegalAction(Code.NOT_LIMIT_AMOUNT,
                             f"In fixed limit this {kind.value} is to exactly {low}.",
                             limit_minor=low, cite="000:L1250-1255, L1262-1283",
                             **details)
    if to < low:
        if kind is ActionKind.BET:
            return IllegalAction(Code.BET_BELOW_MINIMUM, f"The minimum bet is {low}.",
                                 limit_minor=low, cite="000:L1293-1295; 001:L71",
                                 **details)
        return IllegalAction(Code.RAISE_BELOW_MINIMUM, f"The minimum raise is {low}.",
                             limit_minor=low,
                             cite="000:L1301-1312, L1358-1369; 001:L70-71", **details)
    if structure is BettingStructure.POT_LIMIT:
        return IllegalAction(Code.OVER_POT_LIMIT, f"The pot limit here is {high}.",
                             limit_minor=high, cite="000:L1373-1393", **details)
    return IllegalAction(Code.OVER_SPREAD_LIMIT, f"The spread limit here is {high}.",
                         limit_minor=high, cite="002:L1748-1760", **details)


# ---------------------------------------------------------------------------
# Turn order and streets
# ---------------------------------------------------------------------------


def _after(state: HandState, p: PlayerState, record: Record) -> HandState:
    players = tuple(p if o.seat == p.seat else o for o in state.players)
    moved = replace(state, players=players, log=state.log + (record,))
    _check_conservation(moved)
    return _next_turn(moved, p.seat, inclusive=False)


def _next_turn(state: HandState, start: int, *, inclusive: bool) -> HandState:
    """Give the turn to the next player who must act, or close the street."""
    live = [p for p in state.players if not p.folded]
    if len(live) == 1:
        return replace(state, phase=Phase.COMPLETE, to_act=None)
    can_act = [p for p in live if p.can_act]
    need = [p for p in can_act if not p.acted or p.bet_minor < state.high_bet_minor]
    if len(can_act) == 1 and can_act[0].bet_minor >= state.high_bet_minor:
        # Alone with chips and nothing to call: no one could answer a bet.
        need = []
    if not need:
        return _close_street(state)
    seats = [p.seat for p in state.players]
    if inclusive:
        ring = _clockwise_from(seats, start)
    else:
        ring = _clockwise_after(seats, start)
    needing = {p.seat for p in need}
    return replace(state, to_act=next(s for s in ring if s in needing))


def _close_street(state: HandState) -> HandState:
    """End the betting round: the next street, or the showdown."""
    last = len(state.streets) - 1
    with_chips = sum(1 for p in state.players if p.can_act)
    players = tuple(
        replace(p, bet_minor=0, acted=False, level_seen_minor=None,
                barred=None if p.barred == "street" else p.barred)
        for p in state.players
    )
    if state.street_index == last or with_chips <= 1:
        # After the last round, or with at most one player holding chips,
        # the remaining cards are dealt without betting (000:L346-350).
        return replace(state, players=players, phase=Phase.SHOWDOWN, to_act=None,
                       street_index=last, high_bet_minor=0, short_run_minor=0,
                       bring_in_open=False)
    index = state.street_index + 1
    street = state.streets[index]
    opened = replace(
        state,
        players=players,
        street_index=index,
        to_act=None,
        high_bet_minor=0,
        level_minor=0,
        increment_minor=_opening_increment(state.structure, state.stakes, street),
        levels=0,
        # The cap is lifted when only two players with chips start the
        # round (000:L1258-1260).
        capped=state.structure.is_limit and with_chips > 2,
        short_run_minor=0,
        bring_in_open=False,
        big_unit_option=False,
        unit_override_minor=0,
    )
    if state.family is Family.STUD:
        return replace(opened, phase=Phase.AWAITING_STREET)
    # Later rounds start with the first player after the button (000:L926-928).
    return _next_turn(opened, state.button, inclusive=False)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _put(p: PlayerState, added: int, street_index: int, *, live: bool) -> PlayerState:
    if added < 0 or added > p.stack_minor:
        raise InvariantViolation(
            f"seat {p.seat}: cannot put {added} from {p.stack_minor}"
        )
    by_street = list(p.by_street_minor)
    by_street[street_index] += added
    return replace(
        p,
        stack_minor=p.stack_minor - added,
        bet_minor=p.bet_minor + added if live else p.bet_minor,
        total_minor=p.total_minor + added,
        dead_minor=p.dead_minor if live else p.dead_minor + added,
        by_street_minor=tuple(by_street),
    )


def _check_conservation(state: HandState) -> None:
    start = sum(stack for _, stack in state.starting_stacks_minor)
    now = sum(p.stack_minor + p.total_minor for p in state.players)
    if start != now:
        raise InvariantViolation(
            f"chips not conserved: {start} at the start, {now} now"
        )
    for p in state.players:
        if sum(p.by_street_minor) != p.total_minor:
            raise InvariantViolation(f"seat {p.seat}: per-street chips do not add up")
        if not 0 <= p.dead_minor <= p.total_minor:
            raise InvariantViolation(f"seat {p.seat}: dead money outside the total")


def _unit(stakes: Stakes, street: Street) -> int:
    return stakes.big_unit_minor if street.big_bet else stakes.small_unit_minor


def _street_unit(state: HandState) -> int:
    """The limit unit in play: the street's, or the big unit once an open pair
    brought it in."""
    return state.unit_override_minor or _unit(state.stakes, state.street)


def _min_bet(state: HandState) -> int:
    # At least one big blind (001:L71) or the opening forced bet
    # (000:L1293-1295); in spread limit the same floor.
    return state.stakes.opening_bet_minor


def _pot_limit_pot(state: HandState) -> int:
    excluded = state.pot_excluded_minor if state.street_index == 0 else 0
    return state.pot_minor - excluded


def _clockwise_after(seats: list[int], start: int) -> list[int]:
    """Seats in clockwise order beginning with the first after `start`."""
    ordered = sorted(seats)
    return [s for s in ordered if s > start] + [s for s in ordered if s <= start]


def _clockwise_from(seats: list[int], start: int) -> list[int]:
    ordered = sorted(seats)
    return [s for s in ordered if s >= start] + [s for s in ordered if s < start]
