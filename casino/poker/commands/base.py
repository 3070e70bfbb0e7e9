"""What the poker commands share: results, the table and hand loads, checks and helpers."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping, Sequence

import orjson

from casino.wallet import account_ceiling
from casino.accounts import cage_cash, charity_forfeits, gaming_account
from casino.compliance.checks import AttemptContext, Verdict, run_checks
from casino.compliance.events import ALERT_RAISED
from casino.compliance.pipeline import Attempt, load_context as load_compliance
from casino.compliance.pipeline import rejection as compliance_rejection
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, Venue
from casino.rules.queries import venue_day
from casino.runner import BaseCommand, Call, Rejection
from ledger import InvariantViolation, NewEvent, RecordedEvent
from ledger.read import AccountType

from .. import engine, signals, snapshots
from ..errors import PokerError, PokerErrorCode as Code
from ..events import (
    ACTION_TAKEN,
    HAND_DISPUTED,
    HAND_SETTLED,
    HAND_STARTED,
    HAND_VOIDED,
    PLAYER_BOUGHT_IN,
    SCHEMA_VERSION,
    hand_id_of,
    hand_stream,
    house_rake,
    jackpot_pending,
    parse_hand_id,
    table_stacks,
    table_stream,
)
from ..models import HandStatus, Seat, Table


SOURCE = "casino.poker"


MEANS = ("account", "cash")


PVP_GAME = "poker_pvp"


DECISIONS = ("settle_verified", "void")


def _call(actor: str, idempotency_key: str | None, at: dt.datetime | None) -> Call:
    return Call(actor=actor, key=idempotency_key, at=at, source=SOURCE)


@dataclass(frozen=True, slots=True)
class TableResult:
    table_id: str
    venue: str
    currency: str
    rulebook: str
    variant: str
    structure: str
    stakes: Mapping[str, int]
    seats_max: int
    buy_in_minor_min: int
    buy_in_minor_max: int
    rake: Mapping[str, Any]
    drop: Mapping[str, Any] | None
    jackpot: str | None
    position: int
    banzai: bool = False
    jackpot_time_fee: Mapping[str, Any] | None = None
    electronic: bool = False
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class SeatResult:
    """A buy-in or cash-out: the seat's stack after it."""

    event_type: str
    table_id: str
    seat: int
    player_id: str
    amount_minor: int
    method: str
    stack_minor: int
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class HandResult:
    """Where a hand stands after a command; stacks are live (or final)."""

    hand_id: str
    table_id: str
    number: int
    state: str
    phase: str
    to_act: int | None
    pot_minor: int
    stacks_minor: Mapping[int, int]
    rake_minor: int
    drop_minor: int
    awards_verified: Mapping[int, int] | None
    awards_claimed: Mapping[int, int] | None
    positions: tuple[int, ...]
    replayed: bool = False


def _rule_record(rule: engine.RakeRule | engine.DropRule) -> dict[str, Any]:
    kind = {engine.BlockRake: "block", engine.PercentRake: "percent",
            engine.TimeCharge: "time", engine.DropRule: "drop"}[type(rule)]
    return {"kind": kind, **{k: (str(v) if isinstance(v, str) else v)
                             for k, v in asdict(rule).items()}}


def _rule_from(record: Mapping[str, Any]) -> Any:
    fields = {k: v for k, v in record.items() if k != "kind"}
    if record["kind"] == "block":
        return engine.BlockRake(**fields)
    if record["kind"] == "percent":
        return engine.PercentRake(**{**fields, "rounding": engine.Rounding(fields["rounding"])})
    if record["kind"] == "time":
        return engine.TimeCharge(**{**fields, "basis": engine.TimeChargeBasis(fields["basis"])})
    return engine.DropRule(**fields)


@dataclass(frozen=True, slots=True)
class TableContext:
    """A table between commands: its seats, last hand and stream versions."""

    table: Table
    seats: dict[int, Seat]
    last_hand: int
    last_hand_running: bool
    versions: dict[str, int]


def load_table(table_id: str) -> TableContext:
    """Load a table, its seats, its last hand and the versions a write expects.

    The versions are read first, so anything read after them is at least as
    new and any later change makes the append stale. The next hand's stream
    is expected empty whatever was read: a hand started since the table's
    row was read makes the append stale, and the runner loads again.

    One statement: the table row with its stream's version, its last hand's
    stream version and state, and its seats, all read from one snapshot of
    the database, so nothing in it is older than the versions.
    """
    table = next(iter(Table.objects.raw(LOAD_TABLE_SQL, [table_id])), None)
    if table is None:
        raise PokerError(Code.UNKNOWN_TABLE, f"no table {table_id!r}",
                         table_id=table_id)
    last = table.hands_started
    versions = {table_stream(table_id): table.table_version or 0,
                **({hand_stream(table_id, last): table.last_version or 0} if last else {}),
                hand_stream(table_id, last + 1): 0}
    seats = {row["number"]: Seat(table=table, **row) for row in orjson.loads(table.seat_rows)}
    running = bool(last) and table.last_state not in (HandStatus.SETTLED, HandStatus.VOIDED)
    return TableContext(table, seats, last, running, versions)


# In SQL, not built by the ORM each time: compiling the same query from
# annotations and subqueries cost milliseconds of CPU on every poker write,
# more than running it (issue 13's CPU profile of the poker benchmark).
# Model fields come through `raw`'s converters; the seats arrive as JSON.
LOAD_TABLE_SQL = (
    "SELECT t.*,"
    " (SELECT version FROM ledger_stream WHERE name = 'table/' || t.id) AS table_version,"
    " (SELECT version FROM ledger_stream"
    "   WHERE name = 'hand/' || t.id || '/' || t.hands_started) AS last_version,"
    " (SELECT state FROM poker_hand h WHERE h.table_id = t.id AND h.number = t.hands_started"
    "   LIMIT 1) AS last_state,"
    " (SELECT coalesce(json_agg(json_build_object('key', s.key, 'number', s.number,"
    "   'player_id', s.player_id, 'stack_minor', s.stack_minor) ORDER BY s.number), '[]')::text"
    "   FROM poker_seat s WHERE s.table_id = t.id) AS seat_rows"
    " FROM poker_table t WHERE t.id = %s"
)
# The hand's table with the snapshot's version and state and the hand
# stream's version, one statement (see LOAD_TABLE_SQL for why in SQL).
LOAD_HAND_SQL = (
    "SELECT t.*, s.version AS snapshot_version, s.state::text AS snapshot_state,"
    " (SELECT version FROM ledger_stream WHERE name = %s) AS stream_version"
    " FROM poker_handsnapshot s JOIN poker_hand h ON h.id = s.hand_id"
    " JOIN poker_table t ON t.id = h.table_id WHERE s.hand_id = %s"
)


@dataclass(frozen=True, slots=True)
class HandContext:
    """A hand at a stream version: the engine state and where it stands."""

    table: Table
    number: int
    state: engine.HandState
    status: str            # "running" | "settled" | "disputed" | "voided"
    version: int

    @property
    def stream(self) -> str:
        return hand_stream(self.table.id, self.number)

    @property
    def hand_id(self) -> str:
        return hand_id_of(self.table.id, self.number)

    @property
    def starting_stacks_minor(self) -> dict[str, int]:
        """Seat -> stack as the hand was dealt (JSON keys), as `poker.hand_started` says."""
        return {str(seat): stack for seat, stack in self.state.starting_stacks_minor}


@dataclass(frozen=True, slots=True)
class Deal:
    """How a hand is dealt: the button and the forced bets' special cases.

    `blind_seats` (small or None, big) overrides the seats after the button
    when the blinds move irregularly (000:L1036-1070); `straddles` counts the
    live straddles (000:L975-985); `first_seat` names who brings in on the
    first street of a stud game without blinds (000:L2170-2186);
    `missed_blinds` maps a returning player's seat to the blinds they missed
    and post to play at once, "big" or "small" (000:L1133-1167).
    """

    button: int
    blind_seats: tuple[int | None, int] | None = None
    straddles: int = 0
    first_seat: int | None = None
    missed_blinds: Mapping[int, str] | None = None

    def record(self) -> dict[str, Any]:
        record = {"button": self.button,
                  "blind_seats": list(self.blind_seats) if self.blind_seats else None,
                  "straddles": self.straddles, "first_seat": self.first_seat}
        if self.missed_blinds:
            # Only when given, so hands without them record what they always did.
            record["missed_blinds"] = {str(seat): str(missed) for seat, missed
                                       in sorted(self.missed_blinds.items())}
        return record


class _HandCommand(BaseCommand[Any, HandResult]):
    """A write to a hand: answers where the hand stands, and tells who listens.

    A settling append is announced after it commits, and again when a
    client repeats the request under its key (casino/poker/signals.py).
    """

    source = SOURCE
    rejected: str | None = None     # the type of this command's recorded refusal

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HandResult:
        if self.rejected is not None and events[0].type == self.rejected:
            _raise_recorded_refusal(events[0])
        _announce_settlement(events)
        return _hand_result(events, replayed=replayed)


@dataclass(frozen=True, slots=True)
class HandStep:
    """A write to a running hand: the hand, the venue, the time and the request."""

    hand: HandContext
    place: Venue
    at: dt.datetime
    arguments: Mapping[str, Any]

    @property
    def day(self) -> dt.date:
        return venue_day(self.place, self.at)


def _announce_settlement(events: Sequence[RecordedEvent]) -> None:
    """Tell listeners (the jackpot hit check) that a hand has settled."""
    for event in events:
        if event.type == HAND_SETTLED:
            signals.hand_settled.send(sender=None, hand_id=event.payload["hand_id"],
                                      event=event)


def load_hand(hand_id: str) -> HandContext:
    """A hand from its snapshot (casino/poker/snapshots.py), never its events.

    One statement: the hand stream's version, read with the snapshot row
    joined to its hand and table, so both come from one snapshot of the
    database; a write that commits after it makes the append stale and the
    runner loads again. The command expects the stream's version, which may
    be ahead of the snapshot's (refused actions change no state).
    """
    parsed = parse_hand_id(hand_id) if isinstance(hand_id, str) else None
    table = None
    if parsed:
        table = next(iter(Table.objects.raw(
            LOAD_HAND_SQL, [hand_stream(*parsed), hand_id_of(*parsed)])), None)
    if table is None:
        raise PokerError(Code.UNKNOWN_HAND, f"no hand {hand_id!r}",
                         hand_id=hand_id)
    at = snapshots.hand_at(table.snapshot_version, orjson.loads(table.snapshot_state))
    return HandContext(table, parsed[1], at.state, at.status, table.stream_version or 0)


def _start_state(started: Mapping[str, Any]) -> engine.HandState:
    return snapshots.start_state(started)


@dataclass(frozen=True, slots=True)
class Step:
    """One entry of a hand's history: a player action, or opening a stud street."""

    seat: int
    kind: str
    amount_minor: int | None = None
    open_pair: bool = False


def _advance(state: engine.HandState, step: Step) -> engine.HandState:
    return snapshots.advance(state, step.seat, step.kind, step.amount_minor, step.open_pair)


def _live(state: engine.HandState) -> dict[str, Any]:
    """What an event records of the engine state after it (for the projection)."""
    return {"phase": str(state.phase), "to_act": state.to_act, "pot_minor": state.pot_minor,
            "street": state.street.name,
            "stacks_minor_live": {str(p.seat): p.stack_minor for p in state.players}}


def _rulebook(place: Venue, at: dt.datetime) -> RulebookVersion:
    return rules.rulebook_in_force(place.rulebook_id, _local_date(place, at))


def _local_date(place: Venue, at: dt.datetime) -> dt.date:
    return at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()


def _figures(rulebook: RulebookVersion, on: dt.date) -> dict[str, tuple[Any, str]]:
    """The rulebook's figures in force on a venue-local day: key -> (value, cite).

    From the process cache (rules.figures_in_force): no statement once cached.
    """
    return {key: (row.value, row.cite)
            for key, row in rules.figures_in_force(rulebook, on).items()}


def _check_running(ctx: HandContext) -> None:
    if ctx.status in ("settled", "voided"):
        raise _finished(ctx)
    if ctx.status == "disputed":
        raise PokerError(Code.HAND_DISPUTED,
                         f"hand {ctx.hand_id} is disputed: it settles only by a decision,"
                         " or is voided", hand_id=ctx.hand_id)


def _finished(ctx: HandContext) -> PokerError:
    return PokerError(Code.HAND_FINISHED, f"hand {ctx.hand_id} is {ctx.status}",
                      hand_id=ctx.hand_id, state=ctx.status)


def _hand_running(table_id: str, number: int) -> PokerError:
    return PokerError(Code.HAND_IN_PROGRESS,
                      f"hand {hand_id_of(table_id, number)} is running: no chips are added"
                      " or removed until it ends",
                      hand_id=hand_id_of(table_id, number), cite="000:L281")


def _check_means(method: str, field: str) -> None:
    if method not in MEANS:
        raise PokerError(Code.INVALID_REQUEST, f"{field} must be one of {', '.join(MEANS)}",
                         field=field)


def _check_amount(amount_minor: int) -> None:
    if type(amount_minor) is not int or amount_minor <= 0:
        raise PokerError(Code.INVALID_REQUEST, "amount_minor must be a positive integer",
                         field="amount")


def _check_seat_number(table: Table, seat: int, field: str = "seat") -> None:
    if type(seat) is not int or not 1 <= seat <= table.seats_max:
        raise PokerError(Code.INVALID_REQUEST,
                         f"{field} must be a seat from 1 to {table.seats_max}",
                         field=field)


# Venue types without a cage (casino.rules.models.VenueType values): a buy-in
# there is play from the gaming account, not chips bought from it.
REMOTE_VENUE_TYPES = frozenset({"online", "online_poker"})


def _means_account(method: str, player_id: str, venue: str) -> str:
    return gaming_account(player_id) if method == "account" else cage_cash(venue)


def _insufficient(account: str, balance: int, amount_minor: int) -> PokerError:
    return PokerError(Code.INSUFFICIENT_FUNDS,
                      f"the gaming account holds {balance}, less than the {amount_minor}"
                      " asked; there is no credit (002:L3033)", account=account,
                      balance_minor=balance, amount_minor=amount_minor, cite="002:L3033")


# The forced bets a table's stakes name that Part IV caps as the opening stake
# (blind or ante; 002:L3347, L3405, L3467). A bring-in is the stud game's
# forced bet, and the big blind ante an ante the big blind posts: both are
# opening stakes (decision poker_pvp.opening_stake.forced_bets). The small and
# big bet of a limit game are raises under the game's rules, not capped.
OPENING_STAKES = ("small_blind_minor", "big_blind_minor", "ante_minor",
                  "big_blind_ante_minor", "bring_in_minor")


@dataclass(frozen=True, slots=True)
class OpeningStake:
    """The Part IV check of a table's or a hand's largest forced bet."""

    attempt: Attempt
    context: AttemptContext
    verdict: Verdict

    def rejection(self) -> Rejection | None:
        """The recorded refusal (`compliance.max_stake`), or None when allowed."""
        if self.verdict.allowed:
            return None
        return compliance_rejection(self.attempt, self.context, self.verdict)


# An electronic poker table is a special machine: its opening stake has a row
# of its own, EUR 2 at halls and partner premises (002:L3381) and EUR 4,000
# for the casino's automatic poker (002:L3443). A rulebook with neither (the
# Veikkaus and Tallinn rooms, online) caps it as any player-vs-player table
# (decision poker_pvp.opening_stake.electronic_tables).
ELECTRONIC_GAMES = ("electronic_poker_table", "automatic_poker")


def opening_stake_game(place: Venue, at: dt.datetime, *, electronic: bool) -> str:
    """Return the Part IV game whose opening-stake row caps a table (pure but cached)."""
    if not electronic:
        return PVP_GAME
    limits = rules.stake_limits(_rulebook(place, at))
    return next((game for game in ELECTRONIC_GAMES if (game, "opening_stake") in limits),
                PVP_GAME)


def opening_stake_check(*, venue: str, currency: str, forced_bets_minor: Sequence[int],
                        at: dt.datetime, game: str = PVP_GAME) -> OpeningStake | None:
    """Check the largest forced bet against the venue's poker opening-stake cap.

    Part IV caps the opening stake (blind or ante) of player-vs-player
    poker: EUR 2 at halls and partner premises (002:L3347), EUR 20,000 at
    the casino (002:L3405), EUR 1,000 online (002:L3467), each a
    `poker_pvp/opening_stake` stake-limit row of the venue's rulebook; an
    electronic table's `game` is its own row (`opening_stake_game`). None
    when nothing is forced or the rulebook has no such row (the Veikkaus
    and Tallinn poker rooms sit outside Part IV).
    """
    amount = max((a for a in forced_bets_minor if a), default=0)
    if not amount:
        return None
    attempt = Attempt(kind="stake", venue=venue, amount_minor=amount, currency=currency,
                      game=game, bet_unit="opening_stake", category="pvp", at=at)
    context = load_compliance(attempt)
    if context.stake_limit is None:
        return None
    return OpeningStake(attempt, context, run_checks(context))


def max_win_check(opening: OpeningStake, stacks_minor: Sequence[int]) -> OpeningStake | None:
    """Check the most any player could win in a hand against the venue's maximum win.

    Decision poker_pvp.max_win: a pot won at a RAY player-vs-player table is
    a win under section 11 (002:L3489-3499; only tournament poker's win is
    the announced prize, 002:L3349, L3367, L3435), counted as what the player
    gains, the award less the player's own chips in it, as a house game's win
    is its return less the stakes (decision games.max_win). A pot cannot be
    cut after the hand, the excess being other players' money, so the deal
    is refused when one player could gain more than the cap: at most, player
    i gains the sum over the others of min(stack_i, stack_j). Reuses the
    opening-stake check's loaded context: no statement. None when allowed or
    the rulebook has no maximum win.
    """
    limit = opening.context.win_limit
    if limit is None or len(stacks_minor) < 2:
        return None
    most = max(sum(min(stack, other) for j, other in enumerate(stacks_minor) if j != i)
               for i, stack in enumerate(stacks_minor))
    if most <= limit.value:
        return None
    attempt = replace(opening.attempt, kind="win", amount_minor=most, bet_unit=None)
    context = replace(opening.context, kind="win", amount_minor=most, bet_unit=None)
    return OpeningStake(attempt, context, run_checks(context))


def _rejection(event_type: str, stream: str, refusal: PokerError,
               request: Mapping[str, Any], *, place: Venue, at: dt.datetime) -> Rejection:
    """A refusal by a poker rule: the event the runner records under the key, and the error."""
    payload = {**request, "code": str(refusal.code), "message": refusal.message,
               "status": refusal.status, "details": _json(refusal.details)}
    event = NewEvent(stream=stream, type=event_type, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))
    return Rejection(event, lambda position: refusal)


def _json(details: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in details.items():
        if isinstance(value, (tuple, set, frozenset)):
            value = list(value)
        out[key] = value
    return out


def _account_terms(code: str, *, venue: Venue, table_id: str, at: dt.datetime | None = None
                   ) -> dict[str, Any]:
    """Return the type, name and constraints an account of poker opens with.

    `at` dates the ceiling of a gaming account opened by a cash-out.
    """
    currency = venue.currency
    if code == table_stacks(table_id):
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Chips on table {table_id}", must_not_go_negative=True)
    if code == house_rake(venue.code):
        return dict(code=code, type=AccountType.REVENUE, currency=currency,
                    name=f"Poker rake at {venue.code}")
    if code == jackpot_pending(venue.code):
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Jackpot drops pending at {venue.code}", must_not_go_negative=True)
    if code == charity_forfeits(venue.code):
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Forfeited stakes owed to charity at {venue.code}",
                    must_not_go_negative=True)
    if code == cage_cash(venue.code):
        # The cage's own terms (casino/cage/commands.py): cash has no floor.
        return dict(code=code, type=AccountType.ASSET, currency=currency,
                    name=f"Cage cash at {venue.code}")
    if code.startswith("player/") and code.endswith("/account"):
        # A cash-out to an account the cage never opened: the cage's terms.
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Gaming account of player {code.split('/')[1]}",
                    must_not_go_negative=True,
                    balance_max_minor=account_ceiling(_local_date(venue, at)))
    raise InvariantViolation(f"poker does not open account {code}")


def _table_result(event: RecordedEvent, *, replayed: bool) -> TableResult:
    p = event.payload
    return TableResult(
        table_id=p["table_id"], venue=p["venue"], currency=p["currency"],
        rulebook=p["rulebook"], variant=p["variant"], structure=p["structure"],
        stakes=p["stakes"], seats_max=p["seats_max"], buy_in_minor_min=p["buy_in_minor_min"],
        buy_in_minor_max=p["buy_in_minor_max"], rake=p["rake"], drop=p["drop"],
        jackpot=p["jackpot"], position=event.position, banzai=p.get("banzai", False),
        jackpot_time_fee=p.get("jackpot_time_fee"), electronic=p.get("electronic", False),
        replayed=replayed)


def _seat_result(event: RecordedEvent, *, replayed: bool) -> SeatResult:
    p = event.payload
    bought = event.type == PLAYER_BOUGHT_IN
    return SeatResult(
        event_type=event.type, table_id=p["table_id"], seat=p["seat"],
        player_id=p["player_id"], amount_minor=p["amount_minor"],
        method=p["paid_with"] if bought else p["paid_to"],
        stack_minor=p["stack_minor_after"] if bought else 0, position=event.position,
        replayed=replayed)


def _hand_result(events: Sequence[RecordedEvent], *, replayed: bool) -> HandResult:
    """Describe the hand as the last of the written hand events left it."""
    hand_events = [e for e in events if e.type != ALERT_RAISED]
    last = hand_events[-1]
    p = last.payload
    table_id, number = parse_hand_id(p["hand_id"])
    state, phase = {
        HAND_SETTLED: ("settled", "complete"),
        HAND_VOIDED: ("voided", "complete"),
        HAND_DISPUTED: ("disputed", "showdown"),
    }.get(last.type, (None, p.get("phase")))
    if state is None:
        state = {"showdown": "showdown", "complete": "settled"}.get(phase, "betting")
    stacks = p.get("stacks_minor_after") or p.get("stacks_minor_live") or {}
    return HandResult(
        hand_id=p["hand_id"], table_id=table_id, number=number, state=state, phase=phase,
        to_act=p.get("to_act") if last.type in (HAND_STARTED, ACTION_TAKEN) else None,
        pot_minor=p.get("pot_minor", 0),
        stacks_minor={int(k): v for k, v in stacks.items()},
        rake_minor=p["rake"]["total_minor"] if "rake" in p else 0,
        drop_minor=p["drop"]["total_minor"] if "drop" in p else 0,
        awards_verified=_int_keys(p.get("awards_verified")),
        awards_claimed=_int_keys(p.get("awards_claimed")),
        positions=tuple(e.position for e in events), replayed=replayed)


def _int_keys(mapping: Mapping[str, int] | None) -> dict[int, int] | None:
    return None if mapping is None else {int(k): v for k, v in mapping.items()}


def _raise_recorded_refusal(first: RecordedEvent) -> None:
    p = first.payload
    raise PokerError(p["code"], p["message"], **p["details"])
