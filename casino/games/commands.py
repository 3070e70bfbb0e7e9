"""Write side of the house-banked games: tables, rounds, bets, settlement.

Every write is a command run by `casino.runner.run` (idempotency, retries,
refusal recording and error mapping live there, once). Each command:
load reads the round stream's version first, then the round's snapshot row
(its state, outcome and bets, joined to its table: casino/games/snapshots.py)
and, for a bet, the compliance context; check raises
a state conflict (409, nothing written) or returns the refusal to record
(a game rule's as `games.bet_rejected` or `games.outcome_rejected`, the
compliance pipeline's as `compliance.attempt_rejected`), which the runner
appends under the request's key before raising it; decide builds events
and postings with the pure engine (casino/games/engine); the runner appends
them expecting the versions read and starts again from the load when
another writer got there first.

The settlement is computed from the outcome facts and the rulebook's pay
tables, never taken from the client: a dealer-declared payout that differs
from the computed one raises a compliance alert (`payout_mismatch`) and the
round is disputed instead of settled; only a compliance officer settles (at
the computed payouts) or voids a disputed round.

Decisions (rulebook rows of each RAY rulebook): games.stake_above_maximum
(only the part above the cap is void and it never leaves the account),
games.pooling (a player's stakes on one position count together against the
cap), games.max_win (a player's win in one round is capped at the venue's
Part IV maximum), games.progressive.paid_from_pool (a share of every
progressive stake goes to the pool's pending account; hits are signalled,
`signals.progressive_hit`, for the jackpots app to pay), games.baccara.cover
(the bank bounds the punto stakes, the excess is void).

A player's return (settlement) or stake back (void) is credited to the
gaming account only up to its ceiling; the rest goes to
`bank/<venue>/payouts_due` and the event's payload carries an `overflow`
block (ray-online decision online.account.balance_overflow, 002:L3068-3070;
casino/wallet.py). The split is read in the load (which opens no
account: the payouts-due account is in the decision), after the versions
of the credited players' streams: a deposit committed in between makes the
append stale and the runner splits again from a new read. A credit from
elsewhere (another table) that fills the account meanwhile makes the ledger
refuse the append with BalanceMaxExceeded, answered as the runner's 409
`request.concurrent_update` (send it again).
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
import zoneinfo
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import transaction
from django.db.models import Subquery

from casino.wallet import account_ceiling
from casino.wallet import PlayerCredit, accounts_to_open, credit_players, overflow_blocks
from casino.accounts import OVERFLOW_KEY, chips_outstanding, gaming_account, payouts_due
from casino.compliance.checks import AttemptContext, Verdict, run_checks
from casino.compliance.events import ALERT_RAISED
from casino.compliance.models import AlertKind
from casino.compliance.pipeline import Attempt, load_context, rejection, venue_day
from casino.compliance.pipeline import verdict_record
from casino.jackpots.accounts import pending_account as jackpot_pending
from casino.players.events import player_stream
from casino.roles import Role, has_role
from casino.rules import queries as rules
from casino.rules.cache import cached
from casino.rules.models import RulebookVersion, Venue
from casino.runner import (
    BaseCommand,
    Call,
    Decision,
    Rejection,
    RunnerError,
    RunnerErrorCode,
    run,
)
from ledger import InvariantViolation, NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, InsufficientFunds, LedgerError, UnknownAccount
from ledger.read import AccountType
from ledger.read import Stream, stream_version

from . import signals
from .engine import GAMES, BetIn, BetInvalid, OutcomeInvalid, Settled
from .errors import GamesError, GamesErrorCode as Code
from .history import previous_round
from .events import (
    BET_PLACED,
    BET_REJECTED,
    BETTING_CLOSED,
    CATEGORY,
    OUTCOME_RECORDED,
    OUTCOME_REJECTED,
    PLAYER_SETTLED,
    ROUND_DISPUTED,
    ROUND_OPENED,
    ROUND_SETTLED,
    ROUND_VOIDED,
    SCHEMA_VERSION,
    SOURCE,
    TABLE_OPENED,
    house_commission,
    house_games,
    parse_round_id,
    round_id_of,
    round_stream,
    table_stakes,
    table_stream,
)
from .models import GameTable, Round, RoundSnapshot, RoundState
from .snapshots import BetAtVersion, RoundAtVersion, round_at

SIDE_BET_CITES = {"texas_holdem_bonus": "002:L2160", "texas_holdem_bonus_progressive": "002:L2295",
                  "ultimate_texas_holdem": "002:L2319",
                  "ultimate_texas_holdem_progressive": "002:L2476",
                  "oasis_stud_poker": "002:L2003", "dynamic_poker": "002:L600",
                  "riverside_poker": "002:L746", "triple_bet_poker": "002:L566"}
VOID_CITES = {"roulette": "002:L1583", "money_wheel": "002:L1621", "red_dog": "002:L1309-1311",
              "bulldog": "002:L1349"}


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableResult:
    table_id: str
    venue: str
    game: str
    currency: str
    rulebook: str
    config: Mapping[str, Any]
    stake_minor_min: int
    stake_minor_max: int
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class BetResult:
    bet_id: str
    round_id: str
    player_id: str
    kind: str
    spec: Mapping[str, Any]
    bet_unit: str
    stake_minor: int
    void_minor: int
    cap_minor: int | None
    position: int
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round after a command; bets and payouts are in the projection."""

    round_id: str
    table_id: str
    number: int
    state: str
    positions: tuple[int, ...]
    replayed: bool = False




def _call(actor: str, idempotency_key: str | None, at: dt.datetime | None) -> Call:
    return Call(actor=actor, key=idempotency_key, at=at, source=SOURCE)


# ---------------------------------------------------------------------------
# Tables and rounds
# ---------------------------------------------------------------------------


def open_table(*, venue: str, game: str, config: Mapping[str, Any] | None = None,
               stake_minor_min: int, stake_minor_max: int, actor: str,
               idempotency_key: str | None = None, at: dt.datetime | None = None
               ) -> TableResult:
    """Open a table of a game at a venue, pinned to the rulebook in force.

    The game's pay tables must be in the venue's rulebook (else
    games.game_not_offered, 422); the configuration (blackjack version and
    payout, side game, punto banco's banco rule) is checked by the engine.
    """
    arguments = {"venue": venue, "game": game, "config": _jsonable(dict(config or {})),
                 "stake_minor_min": stake_minor_min, "stake_minor_max": stake_minor_max}
    return run(OPEN_TABLE, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class TableContext:
    table_id: str
    place: Venue
    game: str
    rulebook: str
    config: Mapping[str, Any]
    stake_minor_min: int
    stake_minor_max: int
    at: dt.datetime


class OpenTable(BaseCommand[TableContext, TableResult]):
    name = "games.open_table"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> TableContext:
        game = arguments["game"]
        engine = GAMES.get(game)
        if engine is None:
            raise GamesError(Code.INVALID_REQUEST, f"unknown game {game!r}; one of"
                             f" {', '.join(sorted(GAMES))}", field="game")
        low, high = arguments["stake_minor_min"], arguments["stake_minor_max"]
        if type(low) is not int or type(high) is not int or not 0 < low <= high:
            raise GamesError(Code.INVALID_REQUEST,
                             "the stake range needs 0 < minimum <= maximum",
                             field="stake_min")
        place = rules.venue(arguments["venue"])
        at = call.moment()
        rulebook = rules.rulebook_in_force(place.rulebook_id, _local_date(place, at))
        tables = _tables(rulebook, engine)
        try:
            clean = engine.configure(dict(arguments["config"]), tables)
        except BetInvalid as error:
            raise GamesError(Code.INVALID_REQUEST, str(error),
                             field="config") from None
        # A new table's stream is new: its expected version is 0, nothing to read.
        return TableContext(table_id=f"gt-{uuid.uuid4().hex[:12]}", place=place, game=game,
                            rulebook=rulebook.key, config=clean, stake_minor_min=low,
                            stake_minor_max=high, at=at)

    def decide(self, context: TableContext) -> Decision:
        place, table_id = context.place, context.table_id
        payload = {"table_id": table_id, "venue": place.code, "game": context.game,
                   "currency": place.currency, "rulebook": context.rulebook,
                   "config": context.config, "stake_minor_min": context.stake_minor_min,
                   "stake_minor_max": context.stake_minor_max}
        event = NewEvent(stream=table_stream(table_id), type=TABLE_OPENED, payload=payload,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(place, context.at))
        codes = (table_stakes(table_id), house_games(place.code, context.game),
                 house_commission(place.code, context.game))
        return Decision([event], {event.stream: 0},
                        accounts=[_account_terms(code, place=place, at=context.at)
                                  for code in codes])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TableResult:
        return _table_result(events[0], replayed=replayed)


def open_round(*, table_id: str, actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> RoundResult:
    """Open the table's next round for bets; the last one must be finished."""
    return run(OPEN_ROUND, {"table_id": table_id}, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class NextRoundContext:
    table: GameTable
    place: Venue
    last: Round | None
    last_version: int
    at: dt.datetime


def _round_venue(context: Any) -> Any:
    """The venue of a write on a round: the context's, or its round's."""
    return getattr(context, "place", None) or getattr(getattr(context, "round", None),
                                                      "place", None)


class _RoundCommand(BaseCommand[Any, RoundResult]):
    """A write on a round: answers the round, or re-raises a recorded game refusal."""

    source = SOURCE

    def venue_of(self, context: Any) -> Any:
        # The round's venue: its closed days refuse a late client time, and
        # its book takes the write (casino.books).
        return _round_venue(context)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> RoundResult:
        if events[0].type in (BET_REJECTED, OUTCOME_REJECTED):
            _raise_recorded_refusal(events[0])
        return _round_result(events, replayed=replayed)


class OpenRound(_RoundCommand):
    name = "games.open_round"

    def load(self, arguments: Mapping[str, Any], call: Call) -> NextRoundContext:
        table = _table(arguments["table_id"])
        last = Round.objects.filter(table=table).order_by("-number").first()
        # The last round's stream is known only from the projection, so its
        # version is read after it: a round seen unfinished that finished
        # meanwhile is refused (send it again); settled and voided are final,
        # so a version read after them is still theirs.
        version = stream_version(round_stream(table.id, last.number)) if last else 0
        return NextRoundContext(table=table, place=rules.venue(table.venue), last=last,
                                last_version=version, at=call.moment())

    def check(self, context: NextRoundContext) -> Rejection | None:
        last = context.last
        if last is not None and last.state not in (RoundState.SETTLED, RoundState.VOIDED):
            raise GamesError(Code.ROUND_RUNNING, f"round {last.id} is {last.state}",
                             round_id=last.id, state=last.state)
        return None

    def decide(self, context: NextRoundContext) -> Decision:
        table, last = context.table, context.last
        number = (last.number if last else 0) + 1
        stream = round_stream(table.id, number)
        event = NewEvent(stream=stream, type=ROUND_OPENED,
                         payload={"round_id": round_id_of(table.id, number),
                                  "table_id": table.id, "number": number},
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(context.place, context.at))
        expected = {stream: 0}
        if last is not None:
            expected[round_stream(table.id, last.number)] = context.last_version
        return Decision([event], expected)


def close_betting(*, round_id: str, actor: str, idempotency_key: str | None = None,
                  at: dt.datetime | None = None) -> RoundResult:
    """No more bets (002:L143, L1545): from now on only in-play bets."""
    return run(CLOSE_BETTING, {"round_id": round_id}, _call(actor, idempotency_key, at))


class Transition(_RoundCommand):
    """A round's step that only records itself (closing the betting)."""

    def __init__(self, operation: str, event_type: str, allowed: Sequence[str]) -> None:
        self.name = f"games.{operation}"
        self.event_type = event_type
        self.allowed = tuple(allowed)

    def load(self, arguments: Mapping[str, Any], call: Call) -> RoundContext:
        return _load_round(arguments["round_id"], call.moment())

    def check(self, context: RoundContext) -> Rejection | None:
        _check_state(context.round, self.allowed)
        return None

    def decide(self, context: RoundContext) -> Decision:
        event = NewEvent(stream=context.stream, type=self.event_type,
                         payload={"round_id": context.round.id},
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=context.day)
        return Decision([event], {context.stream: context.version})


# ---------------------------------------------------------------------------
# Bets
# ---------------------------------------------------------------------------


def place_bet(*, round_id: str, player_id: str, kind: str, spec: Mapping[str, Any] | None,
              stake_minor: int, paid_with: str = "account", actor: str,
              idempotency_key: str | None = None,
              at: dt.datetime | None = None) -> BetResult:
    """Take a stake from the player's gaming account for one bet unit.

    The engine checks the bet (400 games.invalid_bet, nothing written). The
    cap is the Part IV maximum for the game and bet unit, or the table's own
    lower maximum, less what the player already has on the same position
    (decision games.pooling); the part above it is void and stays in the
    account (decision games.stake_above_maximum). The valid part goes
    through the compliance pipeline (AttemptRejected, recorded). Recorded
    refusals (422): games.stake_below_minimum, games.stake_above_maximum
    (nothing left under the cap), games.raise_not_allowed. No credit:
    games.insufficient_funds, nothing written.

    `paid_with="chips"` stakes the venue's chips bought at its cage (a land
    table only): the stake leaves the chip float, and the round's return or
    a void's refund goes back to it in chips (decision games.stake_means),
    so a stake above the gaming account's ceiling (a EUR 7,000 box,
    002:L3421) can be played from chips bought for cash.
    """
    arguments = {"round_id": round_id, "player_id": player_id, "kind": kind,
                 "spec": _jsonable(dict(spec or {})), "stake_minor": stake_minor}
    if paid_with != "account":
        arguments["paid_with"] = paid_with
    return run(PLACE_BET, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True)
class BetContext:
    round: RoundContext
    request: Mapping[str, Any]      # what a recorded refusal repeats
    player_id: str
    kind: str
    bet_kind: Any
    stake_minor: int
    refusal: GamesError | None      # by the table's rules
    cap: tuple[int, str]
    valid_minor: int
    attempt: Attempt | None
    compliance: AttemptContext | None
    verdict: Verdict | None
    paid_with: str = "account"

    @property
    def means(self) -> str:
        return _stake_means(self.paid_with, self.player_id, self.round.table.venue)


STAKE_MEANS = ("account", "chips")
# 002:L139 "Panos on mitätön siltä osin, kuin se ylittää sallitun
# enimmäispanoksen": the part above the maximum is void (decision
# games.stake_above_maximum), unless the rulebook says otherwise.
EXCESS_VOID_FIGURE = "stake.excess_over_max_is_void"
# 002:L147, L1549: joint play to exceed the maximum stake is not allowed.
POOLING_FIGURE = "stake.pooling_to_exceed_max_allowed"


def _excess_refusal(ctx: "RoundContext", stake_minor: int, cap: tuple[int, str]
                    ) -> GamesError | None:
    """Refuse a stake above its cap whole where the rulebook voids no part of it.

    `stake.excess_over_max_is_void` true (002:L139) or not stated (decision
    games.stake_above_maximum): the excess is void and the capped part
    taken. False: the stake is refused whole (games.stake_above_maximum,
    recorded).
    """
    void = rules.figure(ctx.rulebook, EXCESS_VOID_FIGURE)
    if void is None or void.value is True:
        return None
    return GamesError(Code.STAKE_ABOVE_MAXIMUM,
                      f"{stake_minor} is over the maximum {cap[0]} and {ctx.rulebook.key} voids"
                      " no part of a stake: it is refused whole", limit_minor=cap[0],
                      amount_minor=stake_minor, cite=void.cite, decision=EXCESS_VOID_FIGURE)
REMOTE_VENUE_TYPES = frozenset({"online", "online_poker"})


def _stake_means(paid_with: str, player_id: str, venue: str) -> str:
    """The account a stake comes from and its return goes back to."""
    return chips_outstanding(venue) if paid_with == "chips" else gaming_account(player_id)


def _check_paid_with(ctx: "RoundContext", paid_with: str, mine: Sequence[BetAtVersion]
                     ) -> None:
    """Chips at a land table only, and one means per player per round
    (decision games.stake_means): the return is paid back in one means."""
    if paid_with not in STAKE_MEANS:
        raise GamesError(Code.INVALID_REQUEST,
                         f"paid_with must be one of {', '.join(STAKE_MEANS)}",
                         field="paid_with")
    if paid_with == "chips" and ctx.rulebook.venue_type in REMOTE_VENUE_TYPES:
        raise GamesError(Code.INVALID_REQUEST, "an online table takes no cage chips",
                         field="paid_with")
    if any(b.paid_with != paid_with for b in mine):
        raise GamesError(Code.INVALID_REQUEST,
                         f"the player's stakes in this round are paid with {mine[0].paid_with};"
                         " one round is staked in one means", field="paid_with")


class PlaceBet(BaseCommand[BetContext, BetResult]):
    name = "games.place_bet"
    source = SOURCE

    def venue_of(self, context: BetContext) -> Any:
        return _round_venue(context)

    def load(self, arguments: Mapping[str, Any], call: Call) -> BetContext:
        stake_minor, kind, spec = arguments["stake_minor"], arguments["kind"], arguments["spec"]
        if type(stake_minor) is not int or stake_minor <= 0:
            raise GamesError(Code.INVALID_REQUEST, "stake must be a positive amount",
                             field="stake")
        round_id, player_id = arguments["round_id"], arguments["player_id"]
        ctx = _load_round(round_id, call.moment())
        try:
            bet_kind = GAMES[ctx.table.game].bet_kind(kind, spec, ctx.tables, ctx.table.config)
        except BetInvalid as error:
            raise GamesError(Code.INVALID_BET, str(error), kind=kind,
                             spec=spec) from None
        if getattr(GAMES[ctx.table.game], "hedges_poker", False):
            _check_hedged_hand(ctx, bet_kind.spec, player_id)
        mine = [b for b in ctx.bets if b.player_id == player_id]
        paid_with = arguments.get("paid_with", "account")
        _check_paid_with(ctx, paid_with, mine)
        refusal, cap = _stake_refusal(ctx, bet_kind, mine, stake_minor, player_id)
        if refusal is None and bet_kind.raise_of is None and stake_minor > cap[0]:
            refusal = _excess_refusal(ctx, stake_minor, cap)
        valid = min(stake_minor, cap[0])
        attempt = compliance = verdict = None
        if refusal is None and _betting_error(ctx, bet_kind, kind) is None:
            attempt = Attempt(kind="stake", venue=ctx.table.venue, amount_minor=valid,
                              currency=ctx.table.currency, player_id=player_id,
                              game=_part_iv_game(ctx.table.game),
                              bet_unit=bet_kind.bet_unit,
                              category=_category(ctx.table.game), at=ctx.at,
                              in_play_raise=bet_kind.raise_of is not None)
            compliance = load_context(attempt)
            verdict = run_checks(compliance)
        return BetContext(round=ctx, request={"op": "place_bet", **arguments},
                          player_id=player_id, kind=kind, bet_kind=bet_kind,
                          stake_minor=stake_minor, refusal=refusal, cap=cap, valid_minor=valid,
                          attempt=attempt, compliance=compliance, verdict=verdict,
                          paid_with=paid_with)

    def check(self, context: BetContext) -> Rejection | None:
        error = _betting_error(context.round, context.bet_kind, context.kind)
        if error is not None:
            raise error
        if context.refusal is not None:
            return _rejection(BET_REJECTED, context.round, context.refusal, context.request)
        if not context.verdict.allowed:
            return rejection(context.attempt, context.compliance, context.verdict)
        return None

    def decide(self, context: BetContext) -> Decision:
        ctx, bet_kind, valid = context.round, context.bet_kind, context.valid_minor
        limit_minor, limit_cite = context.cap
        round_id = ctx.round.id
        currency = ctx.table.currency
        payload = {
            "round_id": round_id, "bet_id": f"{round_id}.{len(ctx.bets) + 1}",
            "player_id": context.player_id, "kind": context.kind,
            "spec": dict(bet_kind.spec), "position": bet_kind.position,
            "bet_unit": bet_kind.bet_unit, "in_play": bet_kind.in_play,
            "stake_minor_offered": context.stake_minor, "stake_minor": valid,
            "void_minor": context.stake_minor - valid, "cap_minor": limit_minor,
            "cap_cite": limit_cite, "verdict": verdict_record(context.verdict),
        }
        if context.paid_with != "account":
            payload["paid_with"] = context.paid_with
        event = NewEvent(stream=ctx.stream, type=BET_PLACED, payload=payload,
                         postings=(Posting(context.means, valid, currency),
                                   Posting(table_stakes(ctx.table.id), -valid, currency)),
                         schema_version=SCHEMA_VERSION, occurred_at=ctx.at,
                         gaming_day=ctx.day)
        return Decision([event], {ctx.stream: ctx.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> BetResult:
        if events[0].type == BET_REJECTED:
            _raise_recorded_refusal(events[0])
        return _bet_result(events[0], replayed=replayed)

    def refusal(self, context: BetContext, error: LedgerError) -> Exception | None:
        if context.paid_with == "chips" and isinstance(error, (InsufficientFunds,
                                                               UnknownAccount)):
            return GamesError(Code.INSUFFICIENT_FUNDS,
                              f"the chip float at {context.round.table.venue} holds"
                              f" {error.details.get('balance_minor', 0)}, less than the"
                              f" {context.valid_minor} staked in chips: chips are bought at"
                              " the venue's cage (002:L135)", account=context.means,
                              amount_minor=context.valid_minor, cite="002:L135")
        if isinstance(error, InsufficientFunds):
            return _insufficient(gaming_account(context.player_id),
                                 error.details.get("balance_minor", 0), context.valid_minor)
        if (isinstance(error, UnknownAccount)
                and error.details.get("account") == gaming_account(context.player_id)):
            # A player the cage never opened an account for holds nothing;
            # the append says so instead of a read before it.
            return _insufficient(gaming_account(context.player_id), 0, context.valid_minor)
        return None


HEDGED_HAND_LIVE = ("started", "betting")


def _check_hedged_hand(ctx: "RoundContext", spec: Mapping[str, Any], player_id: str) -> None:
    """A hedge bet's poker hand: it exists, is live, and the bettor sits at the seat.

    Decision games.hedge_bet.hand (002:L3207, "beside any poker game ... on
    one's own cards"): the hand is one the poker app is dealing (started or
    in its betting, not at the showdown, settled, disputed or voided), the
    bet's seat is in it and held by the bettor, and a round's bets hedge one
    hand. Raises GamesError invalid_bet (400, nothing written).
    """
    from casino.poker.models import Hand, Seat

    hand_id, seat = spec["hand_id"], spec["seat"]
    hand = Hand.objects.filter(id=hand_id).first()
    if hand is None:
        raise GamesError(Code.INVALID_BET, f"no poker hand {hand_id!r} to hedge",
                         hand_id=hand_id, cite="002:L3207")
    if hand.state not in HEDGED_HAND_LIVE:
        raise GamesError(Code.INVALID_BET, f"poker hand {hand_id} is {hand.state}: a hedge"
                         " bet is placed while the hand is live", hand_id=hand_id,
                         state=hand.state, cite="002:L3207")
    sitting = Seat.objects.filter(table_id=hand.table_id, number=seat).values_list(
        "player_id", flat=True).first()
    if str(seat) not in {str(s) for s in hand.stacks_minor} or sitting != player_id:
        raise GamesError(Code.INVALID_BET, f"the player is not dealt in at seat {seat} of"
                         f" hand {hand_id}: a hedge bet is on one's own cards",
                         hand_id=hand_id, seat=seat, cite="002:L3207")
    others = {b.spec.get("hand_id") for b in ctx.bets} - {hand_id}
    if others:
        raise GamesError(Code.INVALID_BET, f"this round hedges hand {others.pop()}; a round"
                         " hedges one hand", hand_id=hand_id, cite="002:L3207")


def _part_iv_game(game: str) -> str:
    """The game id of the Part IV rows a game's stakes are checked against.

    Its own, except for the points games played between players, which a
    RAY venue caps as poker between players (decision games.chinese.escrow).
    """
    return getattr(GAMES[game], "part_iv_game", game)


def _category(game: str) -> str:
    """The wager category of a game's stakes: casino_vs_house, or pvp for the games
    played between players (issue 22), which RAY online's daily loss cap leaves out
    (002:L3082, figure online.loss_cap.casino_pvp.applies)."""
    return getattr(GAMES[game], "category", CATEGORY)


def _betting_error(ctx: "RoundContext", bet_kind, kind: str) -> GamesError | None:
    """Why the round takes no such bet now (409, nothing written), or None (pure)."""
    state = ctx.round.state
    if state != RoundState.OPEN and not (state == RoundState.CLOSED and bet_kind.in_play):
        return GamesError(Code.BETTING_CLOSED,
                          f"round {ctx.round.id} is {state}: no more bets"
                          + (" (in-play bets only after the close)" if state ==
                             RoundState.CLOSED else ""),
                          round_id=ctx.round.id, state=state, cite="002:L1545")
    if bet_kind.in_play and state == RoundState.OPEN:
        return GamesError(Code.BETTING_OPEN,
                          f"a {kind} is placed after betting closes",
                          round_id=ctx.round.id, kind=kind)
    return None




def _stake_refusal(ctx: "RoundContext", bet_kind, mine: Sequence[BetAtVersion], stake_minor: int,
                   player_id: str = "") -> tuple[GamesError | None, tuple[int, str]]:
    """Why this stake is refused by the table's rules, and the cap (pure but for reads).

    In order: a side bet or later raise without the bet it needs
    (games.side_bet_alone); a raise of the wrong size (games.raise_not_allowed);
    the table's minimum; the cap less what the player already has on the
    position (games.pooling); what the game itself still allows (the bank's
    cover in Baccara, decision games.baccara.cover).
    """
    table = ctx.table
    limit = rules.stake_limit(ctx.rulebook, _part_iv_game(table.game), bet_kind.bet_unit)
    cap, cite = table.stake_minor_max, "002:L139"
    if limit is not None and limit.stake_minor_max < cap:
        cap, cite = limit.stake_minor_max, limit.cite
    already = sum(b.stake_minor for b in mine if b.position == bet_kind.position)
    # Decision games.pooling (002:L147, L1549): the player's stakes on one
    # position count together against the cap unless the rulebook's
    # `stake.pooling_to_exceed_max_allowed` allows it (none stated: they count).
    pooling = rules.figure(ctx.rulebook, POOLING_FIGURE)
    counted = already if pooling is None or pooling.value is not True else 0
    missing = [p for p in bet_kind.requires if not any(b.position == p for b in mine)]
    if missing:
        return GamesError(Code.SIDE_BET_ALONE,
                          f"a {bet_kind.kind} needs the player's {' and '.join(missing)} first",
                          requires=missing, amount_minor=stake_minor,
                          cite=SIDE_BET_CITES.get(table.game, "002:L1545")), (cap, cite)
    if bet_kind.raise_of is not None:
        base = sum(b.stake_minor for b in mine if b.position == bet_kind.raise_of)
        rule = bet_kind.raise_rule
        if rule == "multiple":
            sizes = [base * m for m in bet_kind.multiples]
            wrong = base == 0 or already > 0 or stake_minor not in sizes
            allowed = stake_minor if not wrong else max(sizes, default=0) - already
        else:
            allowed = {"equal": base, "at_most": base, "at_most_half": base // 2,
                       "exactly_half": base // 2}[rule] - already
            wrong = (base == 0 or allowed <= 0 or stake_minor > allowed
                     or (rule in ("equal", "exactly_half") and stake_minor != allowed))
        if wrong:
            how = (f"{' or '.join(f'{m}x' for m in bet_kind.multiples)}, once" if rule ==
                   "multiple" else rule.replace("_", " "))
            return GamesError(Code.RAISE_NOT_ALLOWED,
                              f"a {bet_kind.kind} must be {how} the player's"
                              f" {bet_kind.raise_of} stake ({base})",
                              base_position=bet_kind.raise_of, base_minor=base,
                              limit_minor=allowed, amount_minor=stake_minor,
                              rule=rule), (cap, cite)
        # A raise, double or split is capped by its own rule, not the box cap.
        return None, (allowed, cite)
    if stake_minor < table.stake_minor_min:
        return GamesError(Code.STAKE_BELOW_MINIMUM,
                          f"{stake_minor} is under the table's minimum stake"
                          f" {table.stake_minor_min}", limit_minor=table.stake_minor_min,
                          amount_minor=stake_minor, cite="002:L139"), (cap, cite)
    room = cap - counted
    if room <= 0:
        return GamesError(Code.STAKE_ABOVE_MAXIMUM,
                          f"the player already has the maximum {cap} on {bet_kind.position}",
                          limit_minor=cap, amount_minor=stake_minor, cite=cite,
                          decision="games.pooling"), (cap, cite)
    engine = GAMES[table.game]
    placed = [(b.player_id, b.kind, b.stake_minor) for b in ctx.bets]
    bank_refusal = getattr(engine, "bank_refusal", None)
    if bank_refusal is not None:
        # A player bank's own rules (player-banked Pai Gow, Baccara: issue 22),
        # some of them read off the table's previous settled round.
        looks_back = getattr(engine, "looks_back", None)
        previous = (previous_round(table.id, ctx.round.number)
                    if looks_back is not None and looks_back("bet", table.config) else None)
        broken = bank_refusal(bet_kind.kind, player_id, stake_minor, placed, previous,
                              table.config)
        rotation = getattr(engine, "rotation_refusal", None)
        if broken is None and rotation is not None:
            # The bank's turn in seat order (Pai Gow 002:L2623, Baccara 002:L2819).
            broken = rotation(bet_kind.kind, bet_kind.spec, previous, table.config,
                              player_id=player_id)
        if broken is not None:
            return GamesError(Code.BANK_RULE, broken["message"], amount_minor=stake_minor,
                              **{k: v for k, v in broken.items() if k != "message"}
                              ), (cap, cite)
    stake_room = getattr(engine, "stake_room", None)
    if stake_room is not None:
        game_room = stake_room(bet_kind.kind, player_id, placed, config=table.config)
        if game_room is not None:
            if game_room[0] <= 0:
                return GamesError(Code.STAKE_ABOVE_MAXIMUM,
                                  f"no room for a {bet_kind.kind} stake in this coup",
                                  limit_minor=0, amount_minor=stake_minor, cite=game_room[1],
                                  decision=f"games.{table.game}.cover"), (cap, cite)
            if game_room[0] < room:
                room, cite = game_room
    return None, (room, cite)




# ---------------------------------------------------------------------------
# Outcome, settlement, void
# ---------------------------------------------------------------------------


def record_outcome(*, round_id: str, outcome: Mapping[str, Any], actor: str,
                   idempotency_key: str | None = None, at: dt.datetime | None = None
                   ) -> RoundResult:
    """Record the game's own facts (number, dice, cards); the engine checks them.

    Facts impossible under the game's rules (a coup drawn against the
    table, a double with two cards, consecutive Red Dog base cards) are
    recorded as `games.outcome_rejected` and refused (422); the round stays
    closed, to be recorded again or voided.
    """
    return run(RECORD_OUTCOME, {"round_id": round_id, "outcome": _jsonable(outcome)},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True)
class OutcomeContext:
    round: RoundContext
    request: Mapping[str, Any]
    clean: Mapping[str, Any] | None     # the engine's facts, when they hold
    refusal: GamesError | None          # why they do not


class RecordOutcome(_RoundCommand):
    name = "games.record_outcome"

    def load(self, arguments: Mapping[str, Any], call: Call) -> OutcomeContext:
        outcome = arguments["outcome"]
        if not isinstance(outcome, Mapping):
            raise GamesError(Code.INVALID_REQUEST, "outcome must be an object")
        ctx = _load_round(arguments["round_id"], call.moment())
        clean = refusal = None
        if ctx.round.state == RoundState.CLOSED:
            engine = GAMES[ctx.table.game]
            facts = dict(outcome)
            looks_back = getattr(engine, "looks_back", None)
            if looks_back is not None and looks_back("outcome", ctx.table.config):
                # The previous round is read here, never taken from the client.
                facts["previous_round"] = previous_round(ctx.table.id, ctx.round.number)
                facts["round_players"] = {b.id: b.player_id for b in ctx.bets}
            try:
                clean = engine.check_outcome(facts, ctx.table.config, ctx.bet_inputs,
                                             ctx.tables)
                engine.settle(ctx.bet_inputs, clean, ctx.tables, ctx.table.config)
            except (OutcomeInvalid, KeyError, ValueError) as error:
                clean = None
                refusal = GamesError(Code.INVALID_OUTCOME, str(error), round_id=ctx.round.id)
        return OutcomeContext(round=ctx, request={"op": "record_outcome", **arguments},
                              clean=clean, refusal=refusal)

    def check(self, context: OutcomeContext) -> Rejection | None:
        _check_state(context.round.round, (RoundState.CLOSED,))
        if context.refusal is not None:
            return _rejection(OUTCOME_REJECTED, context.round, context.refusal,
                              context.request)
        return None

    def decide(self, context: OutcomeContext) -> Decision:
        ctx = context.round
        event = NewEvent(stream=ctx.stream, type=OUTCOME_RECORDED,
                         payload={"round_id": ctx.round.id, "outcome": context.clean},
                         schema_version=SCHEMA_VERSION, occurred_at=ctx.at,
                         gaming_day=ctx.day)
        return Decision([event], {ctx.stream: ctx.version})


def settle_round(*, round_id: str, declared_minor: Mapping[str, int] | None = None,
                 actor: str, idempotency_key: str | None = None,
                 at: dt.datetime | None = None) -> RoundResult:
    """Pay every bet from the pay tables; or dispute it if a declared payout differs.

    `declared_minor` maps bet ids to what the dealer says each returns; any
    difference from the computed amount appends `games.round_disputed` and a
    `compliance.alert_raised` (payout_mismatch) and nothing is paid. A
    disputed round is settled (at the computed payouts) only by a compliance
    officer, without declared payouts.
    """
    declared = {str(k): v for k, v in (declared_minor or {}).items()}
    return run(SETTLE_ROUND, {"round_id": round_id, "declared": declared},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True)
class SettleContext:
    round: RoundContext
    declared: Mapping[str, int]
    officer: bool
    settled: Sequence[Settled]
    mismatched: bool
    win_max: tuple[int, str] | None
    credits: Mapping[str, PlayerCredit]
    player_versions: Mapping[str, int]


class SettleRound(_RoundCommand):
    name = "games.settle_round"

    def load(self, arguments: Mapping[str, Any], call: Call) -> SettleContext:
        declared = dict(arguments["declared"])
        ctx = _load_round(arguments["round_id"], call.moment())
        state = ctx.round.state
        officer = state == RoundState.DISPUTED and _is_officer(call.actor)
        settled: Sequence[Settled] = ()
        mismatched, win_max, credits, versions = False, None, {}, {}
        known = set(declared) <= {b.id for b in ctx.bets}
        # Only a settlement the check lets through is computed and split.
        allowed = state == RoundState.OUTCOME_RECORDED or (
            state == RoundState.DISPUTED and officer and not declared)
        if allowed and known:
            settled = GAMES[ctx.table.game].settle(ctx.bet_inputs, ctx.round.outcome,
                                                   ctx.tables, ctx.table.config)
            computed = _by_id(settled)
            mismatched = any(amount != computed[bet_id].returned_minor
                             for bet_id, amount in declared.items())
            if not mismatched:
                win_max = _win_max(ctx)
                returns = {player_id: _capped_return(items, win_max)[0]
                           for player_id, items in _by_player(ctx, settled).items()}
                versions, credits = _credit_returns(ctx, returns)
        return SettleContext(round=ctx, declared=declared, officer=officer, settled=settled,
                             mismatched=mismatched, win_max=win_max, credits=credits,
                             player_versions=versions)

    def check(self, context: SettleContext) -> Rejection | None:
        round_ = context.round.round
        if round_.state == RoundState.DISPUTED:
            if context.declared or not context.officer:
                raise GamesError(Code.ROUND_DISPUTED,
                                 f"round {round_.id} is disputed: a compliance officer"
                                 " settles it at the computed payouts, or voids it",
                                 round_id=round_.id)
        else:
            _check_state(round_, (RoundState.OUTCOME_RECORDED,))
        unknown = set(context.declared) - {b.id for b in context.round.bets}
        if unknown:
            raise GamesError(Code.INVALID_REQUEST, f"no bets {sorted(unknown)} in this round",
                             field="declared")
        return None

    def decide(self, context: SettleContext) -> Decision:
        ctx = context.round
        if context.mismatched:
            events = _disputed_events(ctx, context.settled, context.declared, at=ctx.at,
                                      day=ctx.day)
        else:
            events = _settlement_events(ctx, context.settled, context.credits,
                                        context.win_max, at=ctx.at, day=ctx.day)
        players = sorted({b.player_id for b in ctx.bets})
        return Decision(events, {ctx.stream: ctx.version, **context.player_versions},
                        accounts=_accounts_to_open(ctx, events, players, context.credits))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> RoundResult:
        # The signal needs the recorded positions, so it is sent from here,
        # after the commit; a replay sends it again (receivers key on the bet).
        _announce_hits(events)
        return super().answer(events, replayed=replayed)

    def refusal(self, context: SettleContext, error: LedgerError) -> Exception | None:
        return _credit_raced(error)


def void_round(*, round_id: str, reason: str, actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> RoundResult:
    """Void an unfinished round (no spin, misdeal, malfunction): every stake back.

    A disputed round is voided only by a compliance officer.
    """
    return run(VOID_ROUND, {"round_id": round_id, "reason": reason},
               _call(actor, idempotency_key, at))


VOIDABLE = (RoundState.OPEN, RoundState.CLOSED, RoundState.OUTCOME_RECORDED,
            RoundState.DISPUTED)


@dataclass(frozen=True)
class VoidContext:
    round: RoundContext
    reason: str
    officer: bool
    returned: Mapping[str, int]
    credits: Mapping[str, PlayerCredit]
    player_versions: Mapping[str, int]


class VoidRound(_RoundCommand):
    name = "games.void_round"

    def load(self, arguments: Mapping[str, Any], call: Call) -> VoidContext:
        reason = arguments["reason"]
        if not isinstance(reason, str) or not reason.strip():
            raise GamesError(Code.INVALID_REQUEST, "give the reason for the void",
                             field="reason")
        ctx = _load_round(arguments["round_id"], call.moment())
        officer = ctx.round.state == RoundState.DISPUTED and _is_officer(call.actor)
        returned: dict[str, int] = defaultdict(int)
        for bet in ctx.bets:
            returned[bet.player_id] += bet.stake_minor
        returned = dict(sorted(returned.items()))
        credits, versions = {}, {}
        if ctx.round.state in VOIDABLE and (ctx.round.state != RoundState.DISPUTED or officer):
            # Stakes go back through the ceiling split too (decision
            # online.account.balance_overflow): a deposit since the bet may
            # have filled the account.
            versions, credits = _credit_returns(ctx, returned)
        return VoidContext(round=ctx, reason=reason.strip(), officer=officer,
                           returned=returned, credits=credits, player_versions=versions)

    def check(self, context: VoidContext) -> Rejection | None:
        round_ = context.round.round
        if round_.state == RoundState.DISPUTED and not context.officer:
            raise GamesError(Code.ROUND_DISPUTED, f"round {round_.id} is disputed: a"
                             " compliance officer voids it", round_id=round_.id)
        _check_state(round_, VOIDABLE)
        return None

    def decide(self, context: VoidContext) -> Decision:
        ctx = context.round
        currency = ctx.table.currency
        credits = context.credits
        postings = [p for credit in credits.values() for p in credit.postings]
        total = sum(context.returned.values())
        if total:
            postings.append(Posting(table_stakes(ctx.table.id), total, currency))
        payload = {"round_id": ctx.round.id, "reason": context.reason,
                   "returned": dict(context.returned),
                   "cite": VOID_CITES.get(ctx.table.game, "002:L149")}
        if overflow_blocks(credits.values()):
            payload[OVERFLOW_KEY] = overflow_blocks(credits.values())
        event = NewEvent(stream=ctx.stream, type=ROUND_VOIDED, payload=payload,
                         postings=tuple(postings), schema_version=SCHEMA_VERSION,
                         occurred_at=ctx.at, gaming_day=ctx.day)
        return Decision([event], {ctx.stream: ctx.version, **context.player_versions},
                        accounts=_accounts_to_open(ctx, [event], list(context.returned),
                                                   credits))

    def refusal(self, context: VoidContext, error: LedgerError) -> Exception | None:
        return _credit_raced(error)


def _chip_players(ctx: "RoundContext") -> set[str]:
    return {b.player_id for b in ctx.bets if b.paid_with == "chips"}


def _credit_returns(ctx: "RoundContext", returns: Mapping[str, int]
                    ) -> tuple[dict[str, int], dict[str, PlayerCredit]]:
    """What each player gets back, posted the way they staked (decision
    games.stake_means): chips back to the venue's chip float, the rest to the
    gaming account through its ceiling split (casino/wallet.py). Returns the
    player stream versions to expect (account players only) and the credits."""
    chips = _chip_players(ctx)
    by_account = {p: amount for p, amount in returns.items() if p not in chips}
    versions = _player_versions(by_account)
    credits = credit_players(by_account, currency=ctx.table.currency, venue=ctx.table.venue,
                             on=_local_date(ctx.place, ctx.at), open_payouts_due=False)
    float_code = chips_outstanding(ctx.table.venue)
    for player_id in sorted(set(returns) & chips):
        amount = returns[player_id]
        credits[player_id] = PlayerCredit(
            player_id=player_id, venue=ctx.table.venue, currency=ctx.table.currency,
            amount_minor=amount, account=float_code, account_minor=amount, overflow_minor=0,
            balance_before_minor=0, balance_max_minor=None,
            postings=(Posting(float_code, -amount, ctx.table.currency),) if amount else ())
    return versions, credits


def _player_versions(credited: Mapping[str, int]) -> dict[str, int]:
    """The stream versions of the players credited, read before their balances.

    A deposit or withdrawal committed after this read (it appends to the
    player's stream) makes the append stale, and the runner splits the
    credits again from a new read.
    """
    return {player_stream(player_id): stream_version(player_stream(player_id))
            for player_id, amount in sorted(credited.items()) if amount}


def _credit_raced(error: LedgerError) -> Exception | None:
    """A credit that no longer fits the account's ceiling as read: send it again.

    A credit from elsewhere (another table, a prize) committed after the
    split was read; it does not touch the player's stream, so the runner
    does not retry it by itself.
    """
    if isinstance(error, BalanceMaxExceeded):
        return RunnerError(RunnerErrorCode.CONCURRENT_UPDATE,
                           "a player's gaming account changed while the round was credited;"
                           " send it again", account=error.details.get("account"))
    return None


def _by_player(ctx: "RoundContext", settled: Sequence[Settled]) -> dict[str, list[Settled]]:
    owner = {b.id: b.player_id for b in ctx.bets}
    by_player: dict[str, list[Settled]] = defaultdict(list)
    for item in settled:
        by_player[owner[item.bet_id]].append(item)
    return by_player


def _settlement_events(ctx: "RoundContext", settled: Sequence[Settled],
                       credits: Mapping[str, PlayerCredit], win_max: tuple[int, str] | None,
                       *, at: dt.datetime, day: dt.date) -> list[NewEvent]:
    """One `player_settled` per player (its postings balance) and the round's total (pure).

    A progressive stake's pool share goes to the pool's pending account at
    the venue (decision games.progressive.paid_from_pool); the house keeps
    the rest of what the players lost, commissions apart. Each player's
    return is credited up to the gaming account's ceiling and the rest is
    owed to their bank account (`credits`, decision
    online.account.balance_overflow, 002:L3068-3070; casino/wallet.py).
    """
    by_player = _by_player(ctx, settled)
    currency = ctx.table.currency
    table, venue, game = ctx.table.id, ctx.table.venue, ctx.table.game
    events, totals = [], defaultdict(int)
    for player_id, items in sorted(by_player.items()):
        staked = sum(i.stake_minor for i in items)
        returned, capped = _capped_return(items, win_max)
        commission = sum(i.commission_minor for i in items)
        pools: dict[str, int] = defaultdict(int)
        for i in items:
            if i.contribution_minor:
                pools[jackpot_pending(venue, i.jackpot_kind)] += i.contribution_minor
        contribution = sum(pools.values())
        house = staked - returned - commission - contribution
        credit = credits[player_id]
        if credit.amount_minor != returned:
            raise InvariantViolation(f"the credit of {player_id} is not their return")
        legs = [(table_stakes(table), staked),
                *((p.account, p.amount_minor) for p in credit.postings),
                (house_commission(venue, game), -commission),
                *((account, -amount) for account, amount in sorted(pools.items())),
                (house_games(venue, game), -house)]
        postings = [Posting(account, amount, currency) for account, amount in legs if amount]
        payload = {
            "round_id": ctx.round.id, "player_id": player_id, "staked_minor": staked,
            "returned_minor": returned, "commission_minor": commission,
            "contribution_minor": contribution, "contributions": dict(sorted(pools.items())),
            "house_minor": house, "win_capped_minor": capped,
            "win_cap": {"limit_minor": win_max[0], "cite": win_max[1]} if capped else None,
            "bets": [_bet_record(i) for i in items],
            "activity": {"player": player_id, "venue": venue, "day": day.isoformat(),
                         "category": _category(game), "staked_minor": staked,
                         "won_minor": returned},
        }
        if credit.overflow is not None:
            payload[OVERFLOW_KEY] = [credit.overflow]
        events.append(NewEvent(stream=ctx.stream, type=PLAYER_SETTLED, payload=payload,
                               postings=tuple(postings),
                               schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day))
        for key, value in (("staked_minor", staked), ("returned_minor", returned),
                           ("commission_minor", commission),
                           ("contribution_minor", contribution), ("house_minor", house)):
            totals[key] += value
    events.append(NewEvent(stream=ctx.stream, type=ROUND_SETTLED,
                           payload={"round_id": ctx.round.id, **{k: totals[k] for k in (
                               "staked_minor", "returned_minor", "commission_minor",
                               "contribution_minor", "house_minor")}},
                           schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day))
    return events




def _capped_return(items: Sequence[Settled], win_max: tuple[int, str] | None
                   ) -> tuple[int, int]:
    """A player's return in a round after the venue's maximum win, and the part cut.

    Decision games.max_win: the win (return less stakes) is capped per round.
    """
    staked = sum(i.stake_minor for i in items)
    returned = sum(i.returned_minor for i in items)
    capped = 0
    if win_max is not None and returned - staked > win_max[0]:
        capped = returned - staked - win_max[0]
    return returned - capped, capped


def _announce_hits(events: Sequence[RecordedEvent]) -> None:
    """Tell the jackpots app of each progressive hit, once the settlement has committed.

    Sent again when a settling request is replayed; receivers key on the bet id.
    """
    for event in events:
        if event.type != PLAYER_SETTLED:
            continue
        venue = event.payload["activity"]["venue"]
        for item in event.payload["bets"]:
            hit = item["detail"].get("jackpot_hit")
            if hit is not None:
                transaction.on_commit(functools.partial(
                    signals.progressive_hit.send, sender=None,
                    round_id=event.payload["round_id"], bet_id=item["bet_id"],
                    player_id=event.payload["player_id"], venue=venue, hit=hit,
                    position=event.position))


def _disputed_events(ctx: "RoundContext", settled: Sequence[Settled],
                     declared: Mapping[str, int], *, at: dt.datetime, day: dt.date
                     ) -> list[NewEvent]:
    computed = {i.bet_id: i.returned_minor for i in settled}
    payload = {"round_id": ctx.round.id, "computed": computed, "declared": dict(declared),
               "bets": [_bet_record(i) for i in settled]}
    differing = {k: {"declared_minor": v, "computed_minor": computed[k]}
                 for k, v in declared.items() if computed[k] != v}
    alert = {
        "kind": AlertKind.PAYOUT_MISMATCH.value,
        "summary": (f"round {ctx.round.id} ({ctx.table.game} at {ctx.table.venue}): declared"
                    f" payouts differ from the pay table on {len(differing)} bet(s)"),
        "player_id": "", "venue": ctx.table.venue,
        "details": {"round_id": ctx.round.id, "differing": differing,
                    "outcome": ctx.round.outcome,
                    "hint": "The round is held: check the outcome and the payouts, then a"
                            " compliance officer settles it at the computed payouts or"
                            " voids it."},
    }
    return [NewEvent(stream=ctx.stream, type=ROUND_DISPUTED, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day),
            NewEvent(stream=ctx.stream, type=ALERT_RAISED, payload=alert, occurred_at=at,
                     gaming_day=day)]


def _bet_record(item: Settled) -> dict[str, Any]:
    return {"bet_id": item.bet_id, "stake_minor": item.stake_minor,
            "returned_minor": item.returned_minor, "result": item.result, "table": item.table,
            "row": item.row, "cite": item.cite, "commission_minor": item.commission_minor,
            "contribution_minor": item.contribution_minor, "detail": _jsonable(item.detail)}


def _win_max(ctx: "RoundContext") -> tuple[int, str] | None:
    row = rules.win_limit(ctx.rulebook)
    return (row.win_minor_max, row.cite) if row else None


def _by_id(settled: Sequence[Settled]) -> dict[str, Settled]:
    return {s.bet_id: s for s in settled}




# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundContext:
    round: RoundAtVersion
    table: GameTable
    place: Venue
    rulebook: RulebookVersion
    tables: Mapping[str, Sequence[Mapping[str, Any]]]
    bets: list[BetAtVersion]
    stream: str
    version: int        # the stream's, read with the snapshot: what the append expects
    at: dt.datetime
    day: dt.date        # the venue's gaming day at `at`

    @property
    def bet_inputs(self) -> list[BetIn]:
        return [BetIn(b.id, b.kind, b.spec, b.stake_minor, b.spec.get("box"))
                for b in self.bets]


def _load_round(round_id: str, at: dt.datetime) -> RoundContext:
    """The round's snapshot joined to its table, with its stream's version.

    One statement, so one database snapshot: the snapshot row is written in
    the same transaction as the round's events, so it and the version agree,
    and a writer committing after the read makes the append stale (the
    runner starts again). The rulebook version and its pay tables come from
    the process cache.
    """
    parsed = parse_round_id(round_id) if isinstance(round_id, str) else None
    stream = round_stream(*parsed) if parsed else None
    snapshot = (RoundSnapshot.objects.select_related("round__table")
                .annotate(stream_version=Subquery(
                    Stream.objects.filter(name=stream).values("version")[:1]))
                .filter(round_id=round_id).first() if parsed else None)
    version = (snapshot.stream_version or 0) if snapshot is not None else 0
    if snapshot is None:
        if stream and stream_version(stream):
            raise InvariantViolation(f"round {round_id} has events but no snapshot;"
                                     " run rebuild_projections")
        raise GamesError(Code.UNKNOWN_ROUND, f"no round {round_id!r}",
                         round_id=round_id)
    round_ = round_at(round_id, snapshot.round.number, snapshot.version, snapshot.state)
    table = snapshot.round.table
    rulebook = _rulebook(table.rulebook)
    place = rules.venue(table.venue)
    return RoundContext(round_, table, place, rulebook, _tables(rulebook, GAMES[table.game]),
                        list(round_.bets), stream, version, at, venue_day(place, at))


def _rulebook(key: str) -> RulebookVersion:
    """A rulebook version by key, from the process cache (a version never changes)."""
    found = cached(("games.rulebook", key),
                   lambda: RulebookVersion.objects.filter(key=key).first())
    if found is None:
        raise InvariantViolation(f"no rulebook version {key}")
    return found


def _table(table_id: str) -> GameTable:
    table = GameTable.objects.filter(id=table_id).first()
    if table is None:
        raise GamesError(Code.UNKNOWN_TABLE, f"no table {table_id!r}",
                         table_id=table_id)
    return table


def _tables(rulebook: RulebookVersion, engine) -> dict[str, list[dict]]:
    """The game's pay tables from a rulebook version; 422 if a required one is missing."""
    found = {key: table.rows for key in engine.tables
             if (table := rules.rule_table(rulebook, key)) is not None}
    for key in engine.tables:
        # A single cited figure a game reads (RAY online's cover, banker raise
        # and doubling cube: issue 22) comes in as a one-row table.
        if key not in found and (figure := rules.figure(rulebook, key)) is not None:
            found[key] = [{"value": figure.value, "cite": figure.cite}]
    optional = set(getattr(engine, "optional_tables", ()))
    missing = [key for key in engine.tables if key not in found and key not in optional]
    if missing:
        raise GamesError(Code.GAME_NOT_OFFERED,
                         f"{rulebook.key} has no {', '.join(missing)}: {engine.id} is not"
                         " offered under it", rulebook=rulebook.key, game=engine.id)
    return {key: found.get(key, []) for key in engine.tables}




def _check_state(round_: Round, allowed: Sequence[str]) -> None:
    if round_.state not in allowed:
        code = Code.ROUND_DISPUTED if round_.state == RoundState.DISPUTED else Code.WRONG_STATE
        raise GamesError(code, f"round {round_.id} is {round_.state}; this needs"
                         f" {' or '.join(allowed)}", round_id=round_.id,
                         state=round_.state)


def _is_officer(actor: str) -> bool:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username=actor).first()
    return user is not None and has_role(user, Role.COMPLIANCE_OFFICER)


def _local_date(place: Venue, at: dt.datetime) -> dt.date:
    return at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()




# ---------------------------------------------------------------------------
# Accounts and refusals
# ---------------------------------------------------------------------------


def _accounts_to_open(ctx: "RoundContext", events: Sequence[NewEvent],
                      players: Sequence[str], credits: Mapping[str, PlayerCredit]
                      ) -> list[dict[str, Any]]:
    """The terms of every account the events post to, should it be missing.

    The runner opens those still missing in the append's transaction, so a
    refused request leaves none behind; the payouts-due account of an
    overflowing credit on the cage's terms (casino/wallet.py).
    """
    chips = _chip_players(ctx)
    codes = {gaming_account(p) for p in players if p not in chips} | {
        p.account for e in events for p in e.postings}
    codes.discard(payouts_due(ctx.table.venue))
    return [*(_account_terms(code, place=ctx.place, at=ctx.at) for code in sorted(codes)),
            *accounts_to_open(credits.values())]


def _account_terms(code: str, *, place: Venue, at: dt.datetime) -> dict[str, Any]:
    currency = place.currency
    if code == chips_outstanding(place.code):
        # The cage's own terms for its chip float (casino/cage/commands.py).
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Chips outstanding at {place.code}", must_not_go_negative=True)
    if code.startswith("games/") and code.endswith("/stakes"):
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Stakes on house-game table {code.split('/')[1]}",
                    must_not_go_negative=True)
    if code.startswith(f"house/{place.code}/games/"):
        return dict(code=code, type=AccountType.REVENUE, currency=currency,
                    name=("Commission" if code.endswith("/commission") else "House result")
                    + f" of {code.split('/')[3]} at {place.code}")
    if code.startswith(f"jackpot/{place.code}/") and code.endswith("/pending"):
        # A progressive's first contribution at the venue: the jackpots app's
        # terms for a pending account (it opens the pool on its own).
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Jackpot drops pending at {place.code}", must_not_go_negative=True)
    if code.startswith("player/") and code.endswith("/account"):
        # A winner whose account the cage never opened: the cage's terms.
        return dict(code=code, type=AccountType.LIABILITY, currency=currency,
                    name=f"Gaming account of player {code.split('/')[1]}",
                    must_not_go_negative=True,
                    balance_max_minor=account_ceiling(_local_date(place, at)))
    raise InvariantViolation(f"games does not open account {code}")




def _rejection(event_type: str, ctx: "RoundContext", refusal: GamesError,
               request: Mapping[str, Any]) -> Rejection:
    """A refusal by the game's rules: its event on the round's stream, then the error."""
    payload = {**_jsonable(request), "code": str(refusal.code), "message": refusal.message,
               "status": refusal.status, "details": _jsonable(refusal.details)}
    event = NewEvent(stream=ctx.stream, type=event_type, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=ctx.at, gaming_day=ctx.day)
    return Rejection(event, lambda position: refusal)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


# ---------------------------------------------------------------------------
# Results and replays
# ---------------------------------------------------------------------------


def _table_result(event: RecordedEvent, *, replayed: bool) -> TableResult:
    p = event.payload
    return TableResult(table_id=p["table_id"], venue=p["venue"], game=p["game"],
                       currency=p["currency"], rulebook=p["rulebook"], config=p["config"],
                       stake_minor_min=p["stake_minor_min"],
                       stake_minor_max=p["stake_minor_max"], position=event.position,
                       replayed=replayed)


def _bet_result(event: RecordedEvent, *, replayed: bool) -> BetResult:
    p = event.payload
    return BetResult(bet_id=p["bet_id"], round_id=p["round_id"], player_id=p["player_id"],
                     kind=p["kind"], spec=p["spec"], bet_unit=p["bet_unit"],
                     stake_minor=p["stake_minor"], void_minor=p["void_minor"],
                     cap_minor=p["cap_minor"], position=event.position, replayed=replayed)


def _round_result(events: Sequence[RecordedEvent], *, replayed: bool) -> RoundResult:
    round_id = next(e.payload["round_id"] for e in events if "round_id" in e.payload)
    table_id, number = parse_round_id(round_id)
    last = [e for e in events if e.type != ALERT_RAISED][-1]
    state = {ROUND_OPENED: "open", BETTING_CLOSED: "closed",
             OUTCOME_RECORDED: "outcome_recorded", ROUND_SETTLED: "settled",
             ROUND_DISPUTED: "disputed", ROUND_VOIDED: "voided"}[last.type]
    return RoundResult(round_id=round_id, table_id=table_id, number=number, state=state,
                       positions=tuple(e.position for e in events), replayed=replayed)




def _raise_recorded_refusal(first: RecordedEvent) -> None:
    p = first.payload
    raise GamesError(p["code"], p["message"], **p["details"])




def _insufficient(account: str, balance: int, amount_minor: int) -> GamesError:
    return GamesError(Code.INSUFFICIENT_FUNDS,
                      f"the gaming account holds {balance}, less than the stake {amount_minor};"
                      " chips are never sold on credit (002:L135)", account=account,
                      balance_minor=balance, amount_minor=amount_minor, cite="002:L135")




OPEN_TABLE = OpenTable()
OPEN_ROUND = OpenRound()
CLOSE_BETTING = Transition("close_betting", BETTING_CLOSED, (RoundState.OPEN,))
PLACE_BET = PlaceBet()
RECORD_OUTCOME = RecordOutcome()
SETTLE_ROUND = SettleRound()
VOID_ROUND = VoidRound()
COMMANDS = {command.name: command for command in (
    OPEN_TABLE, OPEN_ROUND, CLOSE_BETTING, PLACE_BET, RECORD_OUTCOME, SETTLE_ROUND, VOID_ROUND)}
