"""Write side of the house-banked games: tables, rounds, bets, settlement.

Each command: replay a request whose idempotency key is recorded (its
result, or its recorded refusal); load the round and its bets from the
projection and the stream's version; check (a refusal by a game rule is
appended as `games.bet_rejected` or `games.outcome_rejected` under the
request's key, then raised; the compliance pipeline records its own);
decide events and postings with the pure engine (casino/games/engine); one
`append` expecting the stream version read, retried from the load when
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
casino/cage/credits.py). The split is read before the append: a deposit
committed in between makes the ledger refuse the append with
BalanceMaxExceeded, and the command splits again from a new read.
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

from casino import clock
from casino.cage.commands import account_ceiling
from casino.cage.credits import credit_players, overflow_blocks
from casino.cage.events import OVERFLOW_KEY, gaming_account
from casino.compliance.events import ALERT_RAISED, ATTEMPT_REJECTED
from casino.compliance.models import AlertKind
from casino.compliance.pipeline import Attempt, authorize, raise_recorded_rejection, venue_day
from casino.compliance.pipeline import verdict_record
from casino.jackpots.accounts import pending_account as jackpot_pending
from casino.roles import Role, has_role
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, RuleTable, Venue
from ledger import InvariantViolation, Metadata, NewEvent, Posting, RecordedEvent, append
from ledger import open_account
from ledger.errors import (
    AccountExists,
    BalanceMaxExceeded,
    IdempotencyConflict,
    InsufficientFunds,
    StaleVersion,
)
from ledger.canonical import request_fingerprint
from ledger.models import Account, AccountType, IdempotencyRecord, Stream
from ledger.store import recorded_result

from . import signals
from .engine import GAMES, BetIn, BetInvalid, OutcomeInvalid, Settled
from .errors import GamesError, GamesErrorCode as Code
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
from .models import Bet, GameTable, Round, RoundState

ATTEMPTS_MAX = 5
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
    recorded = _recorded(idempotency_key, {
        "op": "open_table", "venue": venue, "game": game, "config": dict(config or {}),
        "stake_minor_min": stake_minor_min, "stake_minor_max": stake_minor_max})
    if recorded is not None:
        if recorded[0].type != TABLE_OPENED:
            raise _conflict(recorded[0])
        return _table_result(recorded[0], replayed=True)
    engine = GAMES.get(game)
    if engine is None:
        raise GamesError(Code.INVALID_REQUEST, f"unknown game {game!r}; one of"
                         f" {', '.join(sorted(GAMES))}", status=400, field="game")
    if type(stake_minor_min) is not int or type(stake_minor_max) is not int or not (
            0 < stake_minor_min <= stake_minor_max):
        raise GamesError(Code.INVALID_REQUEST, "the stake range needs 0 < minimum <= maximum",
                         status=400, field="stake_min")
    place = rules.venue(venue)
    at = at or clock.now()
    rulebook = rules.rulebook_in_force(place.rulebook_id, _local_date(place, at))
    tables = _tables(rulebook, engine)
    try:
        clean = engine.configure(dict(config or {}), tables)
    except BetInvalid as error:
        raise GamesError(Code.INVALID_REQUEST, str(error), status=400, field="config") from None
    table_id = f"gt-{uuid.uuid4().hex[:12]}"
    payload = {"table_id": table_id, "venue": place.code, "game": game,
               "currency": place.currency, "rulebook": rulebook.key, "config": clean,
               "stake_minor_min": stake_minor_min, "stake_minor_max": stake_minor_max}
    event = NewEvent(stream=table_stream(table_id), type=TABLE_OPENED, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))
    request = {"op": "open_table", "venue": venue, "game": game, "config": dict(config or {}),
               "stake_minor_min": stake_minor_min, "stake_minor_max": stake_minor_max}
    accounts = [table_stakes(table_id), house_games(place.code, game),
                house_commission(place.code, game)]
    for _ in range(ATTEMPTS_MAX):
        try:
            result = _append([event], accounts, place=place, at=at,
                             expected_versions={event.stream: 0},
                             idempotency_key=idempotency_key, request=request, actor=actor)
        except AccountExists:
            continue
        return _table_result(result.events[0], replayed=result.replayed)
    raise _concurrent()


def open_round(*, table_id: str, actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> RoundResult:
    """Open the table's next round for bets; the last one must be finished."""
    recorded = _recorded(idempotency_key, {"op": "open_round", "table_id": table_id})
    if recorded is not None:
        return _replay_round(recorded, (ROUND_OPENED,))
    at = at or clock.now()
    for _ in range(ATTEMPTS_MAX):
        table = _table(table_id)
        last = Round.objects.filter(table=table).order_by("-number").first()
        if last is not None and last.state not in (RoundState.SETTLED, RoundState.VOIDED):
            raise GamesError(Code.ROUND_RUNNING, f"round {last.id} is {last.state}",
                             status=409, round_id=last.id, state=last.state)
        number = (last.number if last else 0) + 1
        place = rules.venue(table.venue)
        stream = round_stream(table.id, number)
        event = NewEvent(stream=stream, type=ROUND_OPENED,
                         payload={"round_id": round_id_of(table.id, number),
                                  "table_id": table.id, "number": number},
                         schema_version=SCHEMA_VERSION, occurred_at=at,
                         gaming_day=venue_day(place, at))
        expected = {stream: 0}
        if last is not None:
            expected[round_stream(table.id, last.number)] = _version(
                round_stream(table.id, last.number))
        try:
            result = append([event], expected_versions=expected,
                            idempotency_key=idempotency_key,
                            request={"op": "open_round", "table_id": table_id},
                            metadata=Metadata(actor=actor, source=SOURCE))
        except StaleVersion:
            continue
        return _round_result(result.events, replayed=result.replayed)
    raise _concurrent()


def close_betting(*, round_id: str, actor: str, idempotency_key: str | None = None,
                  at: dt.datetime | None = None) -> RoundResult:
    """No more bets (002:L143, L1545): from now on only in-play bets."""
    return _transition(round_id, BETTING_CLOSED, (RoundState.OPEN,), {}, actor=actor,
                       idempotency_key=idempotency_key, at=at, op="close_betting")


# ---------------------------------------------------------------------------
# Bets
# ---------------------------------------------------------------------------


def place_bet(*, round_id: str, player_id: str, kind: str, spec: Mapping[str, Any] | None,
              stake_minor: int, actor: str, idempotency_key: str | None = None,
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
    """
    spec = dict(spec or {})
    request = {"op": "place_bet", "round_id": round_id, "player_id": player_id,
               "kind": kind, "spec": spec, "stake_minor": stake_minor}
    recorded = _recorded(idempotency_key, request)
    if recorded is not None:
        return _replay_bet(recorded)
    if type(stake_minor) is not int or stake_minor <= 0:
        raise GamesError(Code.INVALID_REQUEST, "stake must be a positive amount", status=400,
                         field="stake")
    at = at or clock.now()
    for _ in range(ATTEMPTS_MAX):
        ctx = _load_round(round_id)
        engine = GAMES[ctx.table.game]
        try:
            bet_kind = engine.bet_kind(kind, spec, ctx.tables, ctx.table.config)
        except BetInvalid as error:
            raise GamesError(Code.INVALID_BET, str(error), status=400, kind=kind,
                             spec=spec) from None
        state = ctx.round.state
        if state != RoundState.OPEN and not (state == RoundState.CLOSED and bet_kind.in_play):
            raise GamesError(Code.BETTING_CLOSED,
                             f"round {round_id} is {state}: no more bets"
                             + (" (in-play bets only after the close)" if state ==
                                RoundState.CLOSED else ""),
                             status=409, round_id=round_id, state=state, cite="002:L1545")
        if bet_kind.in_play and state == RoundState.OPEN:
            raise GamesError(Code.RAISE_NOT_ALLOWED,
                             f"a {kind} is placed after betting closes", status=409,
                             round_id=round_id, kind=kind)
        mine = [b for b in ctx.bets if b.player_id == player_id]
        refusal, cap = _stake_refusal(ctx, bet_kind, mine, stake_minor, player_id)
        if refusal is not None:
            _record_rejection(BET_REJECTED, ctx.stream, refusal, request, place=ctx.place,
                              at=at, actor=actor, idempotency_key=idempotency_key)
            raise refusal
        limit_minor, limit_cite = cap
        valid = min(stake_minor, limit_minor)
        verdict = authorize(Attempt(kind="stake", venue=ctx.table.venue, amount_minor=valid,
                                    currency=ctx.table.currency, player_id=player_id,
                                    game=ctx.table.game, bet_unit=bet_kind.bet_unit,
                                    category=CATEGORY, at=at,
                                    in_play_raise=bet_kind.raise_of is not None),
                            actor=actor, idempotency_key=idempotency_key)
        account = gaming_account(player_id)
        if not Account.objects.filter(code=account).exists():
            raise _insufficient(account, 0, valid)
        bet_id = f"{round_id}.{len(ctx.bets) + 1}"
        payload = {
            "round_id": round_id, "bet_id": bet_id, "player_id": player_id, "kind": kind,
            "spec": dict(bet_kind.spec), "position": bet_kind.position,
            "bet_unit": bet_kind.bet_unit, "in_play": bet_kind.in_play,
            "stake_minor_offered": stake_minor, "stake_minor": valid,
            "void_minor": stake_minor - valid, "cap_minor": limit_minor, "cap_cite": limit_cite,
            "verdict": verdict_record(verdict),
        }
        event = NewEvent(stream=ctx.stream, type=BET_PLACED, payload=payload,
                         postings=(Posting(account, valid, ctx.table.currency),
                                   Posting(table_stakes(ctx.table.id), -valid,
                                           ctx.table.currency)),
                         schema_version=SCHEMA_VERSION, occurred_at=at,
                         gaming_day=venue_day(ctx.place, at))
        try:
            result = append([event], expected_versions={ctx.stream: ctx.version},
                            idempotency_key=idempotency_key, request=request,
                            metadata=Metadata(actor=actor, source=SOURCE))
        except StaleVersion:
            continue
        except InsufficientFunds as error:
            raise _insufficient(account, error.details.get("balance_minor", 0), valid) from None
        return _bet_result(result.events[0], replayed=result.replayed)
    raise _concurrent()


def _stake_refusal(ctx: "RoundContext", bet_kind, mine: Sequence[Bet], stake_minor: int,
                   player_id: str = "") -> tuple[GamesError | None, tuple[int, str]]:
    """Why this stake is refused by the table's rules, and the cap (pure but for reads).

    In order: a side bet or later raise without the bet it needs
    (games.side_bet_alone); a raise of the wrong size (games.raise_not_allowed);
    the table's minimum; the cap less what the player already has on the
    position (games.pooling); what the game itself still allows (the bank's
    cover in Baccara, decision games.baccara.cover).
    """
    table = ctx.table
    limit = rules.stake_limit(ctx.rulebook, table.game, bet_kind.bet_unit)
    cap, cite = table.stake_minor_max, "002:L139"
    if limit is not None and limit.stake_minor_max < cap:
        cap, cite = limit.stake_minor_max, limit.cite
    already = sum(b.stake_minor for b in mine if b.position == bet_kind.position)
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
    room = cap - already
    if room <= 0:
        return GamesError(Code.STAKE_ABOVE_MAXIMUM,
                          f"the player already has the maximum {cap} on {bet_kind.position}",
                          limit_minor=cap, amount_minor=stake_minor, cite=cite,
                          decision="games.pooling"), (cap, cite)
    stake_room = getattr(GAMES[table.game], "stake_room", None)
    if stake_room is not None:
        game_room = stake_room(bet_kind.kind, player_id,
                               [(b.player_id, b.kind, b.stake_minor) for b in ctx.bets])
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
    request = {"op": "record_outcome", "round_id": round_id,
               "outcome": _jsonable(outcome)}
    recorded = _recorded(idempotency_key, request)
    if recorded is not None:
        return _replay_round(recorded, (OUTCOME_RECORDED,), rejected=OUTCOME_REJECTED)
    at = at or clock.now()
    if not isinstance(outcome, Mapping):
        raise GamesError(Code.INVALID_REQUEST, "outcome must be an object", status=400)
    ctx = _load_round(round_id)
    _check_state(ctx.round, (RoundState.CLOSED,))
    engine = GAMES[ctx.table.game]
    try:
        clean = engine.check_outcome(dict(outcome), ctx.table.config, ctx.bet_inputs, ctx.tables)
        engine.settle(ctx.bet_inputs, clean, ctx.tables, ctx.table.config)  # settles cleanly
    except (OutcomeInvalid, KeyError, ValueError) as error:
        refusal = GamesError(Code.INVALID_OUTCOME, str(error), round_id=round_id)
        _record_rejection(OUTCOME_REJECTED, ctx.stream, refusal, request,
                          place=ctx.place, at=at, actor=actor, idempotency_key=idempotency_key)
        raise refusal from None
    return _transition(round_id, OUTCOME_RECORDED, (RoundState.CLOSED,),
                       {"outcome": clean}, actor=actor, idempotency_key=idempotency_key,
                       at=at, op="record_outcome", request_extra={"outcome": _jsonable(outcome)})


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
    recorded = _recorded(idempotency_key, {
        "op": "settle_round", "round_id": round_id,
        "declared": {str(k): v for k, v in (declared_minor or {}).items()}})
    if recorded is not None:
        replay = _replay_round(recorded, (PLAYER_SETTLED, ROUND_SETTLED, ROUND_DISPUTED))
        opened = GameTable.objects.filter(id=replay.table_id).first()
        if opened is not None:
            _announce_hits(recorded, opened.venue)
        return replay
    at = at or clock.now()
    declared = {str(k): v for k, v in (declared_minor or {}).items()}
    for _ in range(ATTEMPTS_MAX):
        ctx = _load_round(round_id)
        if ctx.round.state == RoundState.DISPUTED:
            if declared or not _is_officer(actor):
                raise GamesError(Code.ROUND_DISPUTED,
                                 f"round {round_id} is disputed: a compliance officer settles"
                                 " it at the computed payouts, or voids it", status=409,
                                 round_id=round_id)
        else:
            _check_state(ctx.round, (RoundState.OUTCOME_RECORDED,))
        unknown = set(declared) - {b.id for b in ctx.bets}
        if unknown:
            raise GamesError(Code.INVALID_REQUEST, f"no bets {sorted(unknown)} in this round",
                             status=400, field="declared")
        engine = GAMES[ctx.table.game]
        settled = engine.settle(ctx.bet_inputs, ctx.round.outcome, ctx.tables,
                                ctx.table.config)
        day = venue_day(ctx.place, at)
        mismatched = {bet_id: amount for bet_id, amount in declared.items()
                      if amount != _by_id(settled)[bet_id].returned_minor}
        if mismatched:
            events = _disputed_events(ctx, settled, declared, at=at, day=day)
        else:
            events = _settlement_events(ctx, settled, at=at, day=day)
        request = {"op": "settle_round", "round_id": round_id, "declared": declared}
        accounts = [gaming_account(p) for p in {b.player_id for b in ctx.bets}]
        try:
            result = _append(events, accounts, place=ctx.place, at=at,
                             expected_versions={ctx.stream: ctx.version},
                             idempotency_key=idempotency_key, request=request, actor=actor)
        except (StaleVersion, AccountExists, BalanceMaxExceeded):
            # BalanceMaxExceeded: a deposit committed after the ceiling split
            # was read (casino/cage/credits.py); split again from a new read.
            continue
        _announce_hits(result.events, ctx.table.venue)
        return _round_result(result.events, replayed=result.replayed)
    raise _concurrent()


def void_round(*, round_id: str, reason: str, actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> RoundResult:
    """Void an unfinished round (no spin, misdeal, malfunction): every stake back.

    A disputed round is voided only by a compliance officer.
    """
    recorded = _recorded(idempotency_key, {"op": "void_round", "round_id": round_id,
                                           "reason": reason})
    if recorded is not None:
        return _replay_round(recorded, (ROUND_VOIDED,))
    if not isinstance(reason, str) or not reason.strip():
        raise GamesError(Code.INVALID_REQUEST, "give the reason for the void", status=400,
                         field="reason")
    at = at or clock.now()
    for _ in range(ATTEMPTS_MAX):
        ctx = _load_round(round_id)
        if ctx.round.state == RoundState.DISPUTED and not _is_officer(actor):
            raise GamesError(Code.ROUND_DISPUTED, f"round {round_id} is disputed: a"
                             " compliance officer voids it", status=409, round_id=round_id)
        _check_state(ctx.round, (RoundState.OPEN, RoundState.CLOSED,
                                 RoundState.OUTCOME_RECORDED, RoundState.DISPUTED))
        returned: dict[str, int] = defaultdict(int)
        for bet in ctx.bets:
            returned[bet.player_id] += bet.stake_minor
        currency = ctx.table.currency
        # Stakes go back through the ceiling split too (decision
        # online.account.balance_overflow): a deposit since the bet may have
        # filled the account.
        credits = credit_players(dict(sorted(returned.items())), currency=currency,
                                 venue=ctx.table.venue, on=_local_date(ctx.place, at))
        postings = [p for credit in credits.values() for p in credit.postings]
        total = sum(returned.values())
        if total:
            postings.append(Posting(table_stakes(ctx.table.id), total, currency))
        payload = {"round_id": round_id, "reason": reason.strip(),
                   "returned": dict(sorted(returned.items())),
                   "cite": VOID_CITES.get(ctx.table.game, "002:L149")}
        if overflow_blocks(credits.values()):
            payload[OVERFLOW_KEY] = overflow_blocks(credits.values())
        event = NewEvent(stream=ctx.stream, type=ROUND_VOIDED, payload=payload,
                         postings=tuple(postings), schema_version=SCHEMA_VERSION,
                         occurred_at=at, gaming_day=venue_day(ctx.place, at))
        try:
            result = _append([event], [gaming_account(p) for p in returned], place=ctx.place,
                             at=at, expected_versions={ctx.stream: ctx.version},
                             idempotency_key=idempotency_key,
                             request={"op": "void_round", "round_id": round_id,
                                      "reason": reason}, actor=actor)
        except (StaleVersion, AccountExists, BalanceMaxExceeded):
            continue
        return _round_result(result.events, replayed=result.replayed)
    raise _concurrent()


def _settlement_events(ctx: "RoundContext", settled: Sequence[Settled], *, at: dt.datetime,
                       day: dt.date) -> list[NewEvent]:
    """One `player_settled` per player (its postings balance) and the round's total.

    A progressive stake's pool share goes to the pool's pending account at
    the venue (decision games.progressive.paid_from_pool); the house keeps
    the rest of what the players lost, commissions apart.
    """
    owner = {b.id: b.player_id for b in ctx.bets}
    by_player: dict[str, list[Settled]] = defaultdict(list)
    for item in settled:
        by_player[owner[item.bet_id]].append(item)
    win_max = _win_max(ctx)
    currency = ctx.table.currency
    table, venue, game = ctx.table.id, ctx.table.venue, ctx.table.game
    returns = {player_id: _capped_return(items, win_max)[0]
               for player_id, items in by_player.items()}
    # Each player's return is credited up to the gaming account's ceiling and
    # the rest is owed to their bank account (decision
    # online.account.balance_overflow, 002:L3068-3070; casino/cage/credits.py).
    credits = credit_players(returns, currency=currency, venue=venue, on=_local_date(
        ctx.place, at))
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
                         "category": CATEGORY, "staked_minor": staked,
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


def _announce_hits(events: Sequence[RecordedEvent], venue: str) -> None:
    """Tell the jackpots app of each progressive hit, once the settlement has committed.

    Sent again when a settling request is replayed; receivers key on the bet id.
    """
    for event in events:
        if event.type != PLAYER_SETTLED:
            continue
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
    round: Round
    table: GameTable
    place: Venue
    rulebook: RulebookVersion
    tables: Mapping[str, Sequence[Mapping[str, Any]]]
    bets: list[Bet]
    stream: str
    version: int

    @property
    def bet_inputs(self) -> list[BetIn]:
        return [BetIn(b.id, b.kind, b.spec, b.stake_minor, b.spec.get("box"))
                for b in self.bets]


def _load_round(round_id: str) -> RoundContext:
    parsed = parse_round_id(round_id) if isinstance(round_id, str) else None
    round_ = Round.objects.select_related("table").filter(id=round_id).first() if parsed else None
    if round_ is None:
        raise GamesError(Code.UNKNOWN_ROUND, f"no round {round_id!r}", status=404,
                         round_id=round_id)
    table = round_.table
    rulebook = RulebookVersion.objects.get(key=table.rulebook)
    stream = round_stream(table.id, round_.number)
    return RoundContext(round_, table, rules.venue(table.venue), rulebook,
                        _tables(rulebook, GAMES[table.game]),
                        list(Bet.objects.filter(round=round_).order_by("placed_position")),
                        stream, _version(stream))


def _table(table_id: str) -> GameTable:
    table = GameTable.objects.filter(id=table_id).first()
    if table is None:
        raise GamesError(Code.UNKNOWN_TABLE, f"no table {table_id!r}", status=404,
                         table_id=table_id)
    return table


def _tables(rulebook: RulebookVersion, engine) -> dict[str, list[dict]]:
    """The game's pay tables from a rulebook version; 422 if a required one is missing."""
    found = {t.table_key: t.rows for t in RuleTable.objects.filter(
        rulebook=rulebook, table_key__in=engine.tables)}
    optional = set(getattr(engine, "optional_tables", ()))
    missing = [key for key in engine.tables if key not in found and key not in optional]
    if missing:
        raise GamesError(Code.GAME_NOT_OFFERED,
                         f"{rulebook.key} has no {', '.join(missing)}: {engine.id} is not"
                         " offered under it", rulebook=rulebook.key, game=engine.id)
    return {key: found.get(key, []) for key in engine.tables}


def _version(stream: str) -> int:
    return Stream.objects.filter(name=stream).values_list("version", flat=True).first() or 0


def _check_state(round_: Round, allowed: Sequence[str]) -> None:
    if round_.state not in allowed:
        code = Code.ROUND_DISPUTED if round_.state == RoundState.DISPUTED else Code.WRONG_STATE
        raise GamesError(code, f"round {round_.id} is {round_.state}; this needs"
                         f" {' or '.join(allowed)}", status=409, round_id=round_.id,
                         state=round_.state)


def _is_officer(actor: str) -> bool:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username=actor).first()
    return user is not None and has_role(user, Role.COMPLIANCE_OFFICER)


def _local_date(place: Venue, at: dt.datetime) -> dt.date:
    return at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()


# ---------------------------------------------------------------------------
# Appending
# ---------------------------------------------------------------------------


def _transition(round_id: str, event_type: str, allowed: Sequence[str],
                extra: Mapping[str, Any], *, actor: str, idempotency_key: str | None,
                at: dt.datetime | None, op: str,
                request_extra: Mapping[str, Any] | None = None) -> RoundResult:
    recorded = _recorded(idempotency_key, {"op": op, "round_id": round_id,
                                           **(request_extra or {})})
    if recorded is not None:
        return _replay_round(recorded, (event_type,))
    at = at or clock.now()
    for _ in range(ATTEMPTS_MAX):
        ctx = _load_round(round_id)
        _check_state(ctx.round, allowed)
        event = NewEvent(stream=ctx.stream, type=event_type,
                         payload={"round_id": round_id, **extra},
                         schema_version=SCHEMA_VERSION, occurred_at=at,
                         gaming_day=venue_day(ctx.place, at))
        try:
            result = append([event], expected_versions={ctx.stream: ctx.version},
                            idempotency_key=idempotency_key,
                            request={"op": op, "round_id": round_id, **(request_extra or {})},
                            metadata=Metadata(actor=actor, source=SOURCE))
        except StaleVersion:
            continue
        return _round_result(result.events, replayed=result.replayed)
    raise _concurrent()


def _append(events: list[NewEvent], accounts: Sequence[str], *, place: Venue, at: dt.datetime,
            expected_versions: Mapping[str, int], idempotency_key: str | None,
            request: Mapping[str, Any], actor: str):
    """Append, first opening (in the same transaction) any account that is missing."""
    metadata = Metadata(actor=actor, source=SOURCE)
    needed = set(accounts) | {p.account for e in events for p in e.postings}
    existing = set(Account.objects.filter(code__in=needed).values_list("code", flat=True))
    missing = sorted(needed - existing)
    arguments = dict(expected_versions=dict(expected_versions),
                     idempotency_key=idempotency_key, request=dict(request), metadata=metadata)
    if not missing:
        return append(events, **arguments)
    with transaction.atomic():
        for code in missing:
            open_account(**_account_terms(code, place=place, at=at), metadata=metadata)
        return append(events, **arguments)


def _account_terms(code: str, *, place: Venue, at: dt.datetime) -> dict[str, Any]:
    currency = place.currency
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


def _record_rejection(event_type: str, stream: str, refusal: GamesError,
                      request: Mapping[str, Any], *, place: Venue, at: dt.datetime,
                      actor: str, idempotency_key: str | None) -> None:
    payload = {**_jsonable(request), "code": str(refusal.code), "message": refusal.message,
               "status": refusal.status, "details": _jsonable(refusal.details)}
    append([NewEvent(stream=stream, type=event_type, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))],
           idempotency_key=idempotency_key, request=_jsonable(request),
           metadata=Metadata(actor=actor, source=SOURCE))


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


def _replay_bet(events: Sequence[RecordedEvent]) -> BetResult:
    first = events[0]
    if first.type == ATTEMPT_REJECTED:
        raise_recorded_rejection(events)
    if first.type == BET_REJECTED:
        _raise_recorded_refusal(first)
    if first.type != BET_PLACED:
        raise _conflict(first)
    return _bet_result(first, replayed=True)


def _replay_round(events: Sequence[RecordedEvent], types: tuple[str, ...],
                  rejected: str | None = None) -> RoundResult:
    first = events[0]
    if rejected is not None and first.type == rejected:
        _raise_recorded_refusal(first)
    if first.type not in types:
        raise _conflict(first)
    return _round_result(events, replayed=True)


def _raise_recorded_refusal(first: RecordedEvent) -> None:
    p = first.payload
    raise GamesError(p["code"], p["message"], status=p["status"], **p["details"])


def _recorded(idempotency_key: str | None, request: Mapping[str, Any]
              ) -> list[RecordedEvent] | None:
    """What an earlier request under this key recorded; a different request is refused.

    The ledger keeps each keyed append's request fingerprint; a replay is
    answered only for the same request (L7). A refusal the compliance
    pipeline recorded is compared by `raise_recorded_rejection` itself.
    """
    recorded = recorded_result(idempotency_key)
    if recorded is None or recorded[0].type == ATTEMPT_REJECTED:
        return recorded
    record = IdempotencyRecord.objects.filter(key=idempotency_key).first()
    if record is not None and record.fingerprint != request_fingerprint(_jsonable(request)):
        raise _conflict(recorded[0])
    return recorded


def _conflict(first: RecordedEvent) -> IdempotencyConflict:
    return IdempotencyConflict("this idempotency key was already used for a different request",
                               idempotency_key=first.idempotency_key)


def _insufficient(account: str, balance: int, amount_minor: int) -> GamesError:
    return GamesError(Code.INSUFFICIENT_FUNDS,
                      f"the gaming account holds {balance}, less than the stake {amount_minor};"
                      " chips are never sold on credit (002:L135)", account=account,
                      balance_minor=balance, amount_minor=amount_minor, cite="002:L135")


def _concurrent() -> GamesError:
    return GamesError(Code.CONCURRENT_UPDATE,
                      "the round changed during the request each time it was tried;"
                      " send it again", status=409, attempts=ATTEMPTS_MAX)
