"""Write side of the jackpots: pools, the daily roll-up, hits, approvals, payouts.

Pools. `ensure_pool` opens a venue's pool from the rulebook in force: its
pending, pool and funding accounts (tolerating a pending account poker
already opened) and one `pool_opened` event. Poker, the beat scheduler and
the hit check call it on demand; it is idempotent.

Roll-up (000:L2872-2873, 002:L1804). `rollup_day` moves one closed gaming
day's contributions from the pending account to the pool in one event that
carries their count and sum. The sum is one aggregate SQL statement over the
postings (no Python loop over rows), run after taking the ledger's writer
lock, so nothing can commit to that day between the sum and the roll-up.
Exactly once per pool and gaming day, enforced by PostgreSQL twice: the
append's idempotency key `jackpots/rollup/<venue>/<kind>/<day>` (a primary
key; a rerun, concurrent or after a killed worker, replays the first result
and posts nothing) and the unique (pool, gaming day) of JackpotRollup,
projected in the same transaction. Days are rolled up in order:
`rollup_closed_days` catches up every closed day after the last one rolled.

Hits. `check_hand` runs after a hand settles (the poker `hand_settled`
signal): the engine (`engine.hits.detect`) decides with native_eval; a hit
is one `hit_recorded` event keyed `jackpots/hit-check/<hand>`, which puts
the pool into awaiting approval. A compliance officer approves (shares are
fixed then, from the pool's posted balance at the hit, roll-ups since
excluded: decision `jackpot.payout_base`)
or rejects; `pay_hit` posts each share to the player's gaming account and,
if the remainder is below the guaranteed base (000:L3185-3186), a
casino-funded top-up from `house/<venue>/jackpot_funding` in the same
append. Near-simultaneous hits (000:L2854-2861) are approved and paid in the
order their hands started: a later hand waits for the earlier one.

Progressives (002:L2297, L2478; rows `jackpots.progressive.pools` and the
decisions jackpots.progressive.* of ray-casino). The house games post a
share of every THB and UTH progressive stake to the pool's pending account
(rolled up daily like the drops) and, after a round settles, signal each
winning progressive bet; `record_progressive_hit` records it as a hit keyed
by the bet (checked against the settled event in the ledger). The same
approve -> pay flow follows: a `pool_basis_points` row is that share of the
posted balance at the hit (as jackpot.payout_base), a `pays` row is pays x
the stake, the casino funding a shortfall of the pool first
(jackpots.progressive.shortfall); no guaranteed base. Hits of one pool go
in the order they were recorded.

Posted terms (002:L1796-1808, 003:L141-142; decision jackpots.posted_terms).
Where a rulebook leaves a bad-beat pool's criteria, shares and base to what
the venue posts in the gaming area (RAY casino, Olympic Tallinn), a
compliance officer records the posted notice with `post_terms`: one
`terms_posted` event on the pool's stream saying who posted what, when and
from which gaming day. Until then the pool detects no hit; from then on the
hit check reads the terms in force when a hand started, and the approval
the terms recorded with the hit. A rulebook that fixes the terms itself
(the Veikkaus room, 000) refuses posted terms.

Payments are credited up to each gaming account's ceiling and the rest to
`bank/<venue>/payouts_due` (decision online.account.balance_overflow,
002:L3068-3070; casino/wallet.py).

The writes run through the one command runner (casino/runner.py): each is a
command (`load`: the pool stream's version first, then the state it
protects; `check`: a refusal raised, nothing written; `decide`: pure;
`answer`: from the recorded events, which is also how a replay answers).
Idempotency, retries on a stale version and the refusal of a reused key
(409 `request.idempotency_key_reused`, `request.concurrent_update` after the runner's
attempts) live in the runner.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import connection, transaction
from django.db.models import Q, Sum
from django_fsm import can_proceed

from casino import books, clock
from casino.wallet import account_ceiling
from casino.wallet import PlayerCredit, credit_players, overflow_blocks
from casino.accounts import OVERFLOW_KEY, gaming_account
from casino.compliance.pipeline import venue_day
from casino.poker.events import HAND_STARTED, TABLE_OPENED, table_stream
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, Venue
from casino.roles import four_eyes_payload, same_person, two_person_rule
from casino.runner import (BaseCommand, Call, Decision, Rejection, RunnerError, RunnerErrorCode,
                           run)
from ledger import InvariantViolation, Metadata, NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, LedgerError
from ledger.read import Account, AccountType, Event
from ledger.read import stream_events
from ledger.read import events as load_events, stream_version

from . import engine
from .accounts import (
    BAD_BEAT,
    funding_account,
    parse_pending_account,
    pending_account,
    pool_account,
    pool_key,
    pool_stream,
)
from .errors import JackpotError, JackpotErrorCode as Code
from .events import (
    BASE_TOPPED_UP,
    CONTRIBUTIONS_ROLLED_UP,
    FOUR_EYES_REFUSED,
    HIT_APPROVED,
    HIT_PAID,
    HIT_RECORDED,
    HIT_REJECTED,
    POOL_OPENED,
    SCHEMA_VERSION,
    TERMS_POSTED,
    hit_key,
    progressive_hit_key,
    rollup_key,
)
from .models import (
    OPEN_HIT_STATES,
    HitTrigger,
    JackpotHit,
    JackpotPool,
    JackpotRollup,
    JackpotTerms,
)

logger = logging.getLogger(__name__)

SOURCE = "casino.jackpots"
# Decision `jackpots.rollup.delay`: a day is rolled up five minutes after it
# ends, so a hand settling on the boundary has committed first.
ROLLUP_DELAY = dt.timedelta(minutes=5)
CATCH_UP_DAYS_MAX = 400
FIGURE_PREFIX = "jackpot.bad_beat."
CATEGORIES = (1, 2)
PROGRESSIVE_POOLS = "jackpots.progressive.pools"
BASIS_POINTS_WHOLE = 10_000


# ---------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PoolConfig:
    """A pool's terms from its venue's rulebook version."""

    rulebook: RulebookVersion
    base_guarantee_minor: int
    players_min: int | None
    hits_enabled: bool


def pool_config(rulebook: RulebookVersion, kind: str, day: dt.date) -> PoolConfig:
    """Read a pool's terms from the rulebook (figures `jackpot.bad_beat.*`).

    Hits need trigger criteria and share figures; a rulebook without them
    (ray-casino, olympic-tallinn: posted configuration, see their decisions)
    gives a pool that accumulates and rolls up but detects no hits. A
    progressive pool (a row of `jackpots.progressive.pools`) takes hits from
    the games and has no guaranteed base (decision
    jackpots.progressive.pool_terms, 002:L2297).
    """
    if kind != BAD_BEAT:
        return PoolConfig(rulebook, 0, None, progressive_terms(rulebook, kind) is not None)
    figures = _figures(rulebook, day)
    base = figures.get(FIGURE_PREFIX + "base_guarantee", 0)
    players_min = figures.get(FIGURE_PREFIX + "payout.min_players")
    criteria = any(key.startswith(FIGURE_PREFIX + "cat1.trigger.") for key in figures)
    share_rules = FIGURE_PREFIX + "cat1.loser_share" in figures
    return PoolConfig(rulebook, int(base), players_min, bool(criteria and share_rules))


def progressive_terms(rulebook: RulebookVersion, kind: str) -> Mapping[str, Any] | None:
    """The rulebook's row for a progressive pool kind, or None (002:L2297, L2478)."""
    table = rules.rule_table(rulebook, PROGRESSIVE_POOLS)
    if table is None:
        return None
    return next((row for row in table.rows if row["kind"] == kind), None)


def _figures(rulebook: RulebookVersion, day: dt.date) -> dict[str, Any]:
    """The values of the rulebook's figures in force on a gaming day."""
    return {key: row.value for key, row in rules.figures_in_force(rulebook, day).items()}


@dataclass(frozen=True, slots=True)
class PoolResult:
    key: str
    venue: str
    kind: str
    position: int
    created: bool


# Rules the jackpots app applies as the seeds state them: a rulebook whose
# figure says otherwise opens no pool rather than being silently not followed.
# key -> (the value applied, its citation).
SUPPORTED_RULES: dict[str, tuple[Any, str]] = {
    # Cash-game tables only: tournament tables pay no drop, win no jackpot.
    FIGURE_PREFIX + "cash_games_only": (True, "000:L2814, 002:L1788"),
    "online.jackpot.bad_beat.cash_games_only": (True, "002:L3203"),
    # Contributions and drops join the pool at the end of the gaming day
    # (the daily roll-up, 000:L2872-2873, 002:L1804).
    FIGURE_PREFIX + "contribution.posting": ("end_of_gaming_day", "002:L1804"),
    FIGURE_PREFIX + "drop.posting": ("end_of_gaming_day", "000:L2872-2873"),
    # A paid period's time charge stays in the pool below five players.
    FIGURE_PREFIX + "time_charge.kept_below_min_players": (True, "000:L2878-2879"),
}


def unsupported_rule(figures: Mapping[str, Any]) -> tuple[str, Any, Any, str] | None:
    """The first SUPPORTED_RULES figure whose value differs, as (key, value, applied, cite)."""
    for key, (applied, cite) in SUPPORTED_RULES.items():
        if key in figures and figures[key] != applied:
            return key, figures[key], applied, cite
    return None


def ensure_pool(*, venue: str, kind: str = BAD_BEAT, actor: str = "system",
                at: dt.datetime | None = None, idempotency_key: str | None = None
                ) -> PoolResult:
    """Open a venue's jackpot pool from its rulebook, once.

    Opens `jackpot/<venue>/<kind>/pending` (unless poker already did),
    `.../pool` and `house/<venue>/jackpot_funding` in the append's
    transaction, and appends `pool_opened` under the key
    `jackpots/pool/<venue>/<kind>`. The pool's first gaming day is the
    earlier of today and the first day with a contribution already pending,
    so drops taken before the pool existed are rolled up too. A pool that
    exists needs no write: it is answered from its row (`created` false). A
    client's key (the API's) identifies its request, so a retry under it
    answers as the first time and another request under it is refused.
    """
    if idempotency_key is None:
        existing = JackpotPool.objects.filter(key=pool_key(venue, kind)).first()
        if existing is not None:
            return PoolResult(existing.key, venue, kind, existing.opened_position, False)
    return run(OPEN_POOL, {"venue": venue, "kind": kind},
               Call(actor=actor, key=idempotency_key or f"jackpots/pool/{venue}/{kind}",
                    at=at, source=SOURCE))


@dataclass(frozen=True, slots=True)
class PoolContext:
    place: Venue
    kind: str
    stream: str
    version: int
    at: dt.datetime
    day: dt.date
    rulebook: RulebookVersion
    config: PoolConfig
    first_pending: dt.date | None
    existing: tuple[RecordedEvent, ...] = ()


class OpenPoolCommand(BaseCommand[PoolContext, PoolResult]):
    name = "jackpots.open_pool"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PoolContext:
        venue, kind = arguments["venue"], arguments["kind"]
        stream = pool_stream(venue, kind)
        version = stream_version(stream)
        place = rules.venue(venue)
        at = call.moment()
        day = venue_day(place, at)
        rulebook = rules.rulebook_in_force(place.rulebook_id, day)
        existing = tuple(stream_events(stream, limit=1)) if version else ()
        differing = None if existing else unsupported_rule(_figures(rulebook, day))
        if differing is not None:
            key, value, applied, cite = differing
            raise JackpotError(Code.RULE_NOT_APPLIED,
                               f"{rulebook.key} sets {key} to {value!r}; the jackpot pool"
                               f" applies {applied!r} ({cite})", figure=key, cite=cite)
        return PoolContext(place=place, kind=kind, stream=stream, version=version, at=at,
                           day=day, rulebook=rulebook, config=pool_config(rulebook, kind, day),
                           first_pending=_first_pending_day(pending_account(venue, kind)),
                           existing=existing)

    def decide(self, context: PoolContext) -> Decision:
        if context.existing:
            # Open already (another request opened it): nothing to write.
            return Decision((), existing=context.existing)
        venue, kind, rulebook = context.place.code, context.kind, context.rulebook
        first_day = (min(context.day, context.first_pending) if context.first_pending
                     else context.day)
        payload = {
            "venue": venue, "kind": kind, "currency": context.place.currency,
            "rulebook": {"id": rulebook.rulebook_id, "version": rulebook.version},
            "first_day": first_day.isoformat(),
            "pending_account": pending_account(venue, kind),
            "pool_account": pool_account(venue, kind),
            "funding_account": funding_account(venue),
            "base_guarantee_minor": context.config.base_guarantee_minor,
            "players_min": context.config.players_min,
            "hits_enabled": context.config.hits_enabled,
        }
        event = NewEvent(stream=context.stream, type=POOL_OPENED, payload=payload,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=context.day)
        return Decision([event], {context.stream: context.version},
                        accounts=_pool_accounts(context.place, kind))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> PoolResult:
        p = events[0].payload
        return PoolResult(pool_key(p["venue"], p["kind"]), p["venue"], p["kind"],
                          events[0].position, True)

    def answer_existing(self, events: Sequence[RecordedEvent]) -> PoolResult:
        p = events[0].payload
        return PoolResult(pool_key(p["venue"], p["kind"]), p["venue"], p["kind"],
                          events[0].position, False)


OPEN_POOL = OpenPoolCommand()


def ensure_progressive_pools(*, venue: str, actor: str = "system",
                             at: dt.datetime | None = None) -> list[PoolResult]:
    """Open a venue's progressive pools, one per row of `jackpots.progressive.pools`."""
    place = rules.venue(venue)
    at = at or clock.now()
    rulebook = rules.rulebook_in_force(
        place.rulebook_id, engine.day_of(at, place.time_zone, place.gaming_day_start))
    table = rules.rule_table(rulebook, PROGRESSIVE_POOLS)
    return [ensure_pool(venue=venue, kind=row["kind"], actor=actor, at=at)
            for row in (table.rows if table else ())]


def ensure_pools_for_pending_accounts(*, actor: str = "system") -> list[PoolResult]:
    """Open a pool for every pending account that has none (poker opened it)."""
    codes = Account.objects.filter(code__startswith="jackpot/", code__endswith="/pending"
                                   ).values_list("code", flat=True)
    results = []
    for code in codes:
        parsed = parse_pending_account(code)
        if parsed and not JackpotPool.objects.filter(key=pool_key(*parsed)).exists():
            results.append(ensure_pool(venue=parsed[0], kind=parsed[1], actor=actor))
    return results


def _pool_accounts(place: Venue, kind: str) -> list[dict[str, Any]]:
    """The `open_account` terms of a pool's accounts (the runner opens the missing ones)."""
    return [
        dict(code=pending_account(place.code, kind), type=AccountType.LIABILITY,
             currency=place.currency, must_not_go_negative=True,
             name=f"Jackpot drops pending at {place.code}"),
        dict(code=pool_account(place.code, kind), type=AccountType.LIABILITY,
             currency=place.currency, must_not_go_negative=True,
             name=f"Jackpot pool {kind} at {place.code}"),
        dict(code=funding_account(place.code), type=AccountType.EXPENSE,
             currency=place.currency, name=f"Jackpot base top-ups at {place.code}"),
    ]

def _first_pending_day(code: str) -> dt.date | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(e.gaming_day) FROM ledger_posting p"
            " JOIN ledger_event e ON e.position = p.event_id WHERE p.account_id = %s",
            [code])
        return cursor.fetchone()[0]


def _pool(venue: str, kind: str) -> JackpotPool:
    pool = JackpotPool.objects.filter(key=pool_key(venue, kind)).first()
    if pool is None:
        raise JackpotError(Code.UNKNOWN_POOL, f"no jackpot pool {kind} at {venue}",
                           venue=venue, kind=kind)
    return pool


# ---------------------------------------------------------------------------
# The daily roll-up
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RollupResult:
    venue: str
    kind: str
    gaming_day: dt.date
    contributions: int
    amount_minor: int
    currency: str
    position: int
    replayed: bool = False


# One statement over the day's postings to the pending account: their count
# and sum. The roll-up's own event is dated the day it rolls up, so it is
# left out by type.
ROLLUP_SQL = (
    "SELECT count(*) FILTER (WHERE p.amount_minor < 0), COALESCE(-sum(p.amount_minor), 0)::bigint"
    " FROM ledger_posting p JOIN ledger_event e ON e.position = p.event_id"
    " WHERE p.account_id = %s AND e.gaming_day = %s AND e.type <> %s"
)


def rollup_day(*, venue: str, kind: str = BAD_BEAT, gaming_day: dt.date,
               actor: str = "celery", now: dt.datetime | None = None,
               idempotency_key: str | None = None) -> RollupResult:
    """Move one closed gaming day's pending contributions to the pool.

    Runs under the key `jackpots/rollup/<venue>/<kind>/<day>`: a day already
    rolled up returns its result, replayed, and posts nothing. The run is
    one transaction, so the writer lock `load` takes holds until the
    roll-up commits. Raises JackpotError: unknown pool (404), a day not yet
    closed in the venue's zone or before the pool's first day, an earlier
    day not yet rolled up, or a day rolled up under another key (409).
    """
    with transaction.atomic():
        return run(ROLLUP, {"venue": venue, "kind": kind, "gaming_day": gaming_day.isoformat()},
                   Call(actor=actor, key=idempotency_key or rollup_key(venue, kind, gaming_day),
                        at=now, source=SOURCE))


@dataclass(frozen=True, slots=True)
class RollupContext:
    key: str | None
    pool: JackpotPool
    place: Venue
    stream: str
    version: int
    gaming_day: dt.date
    last_closed_day: dt.date
    last_rolled_day: dt.date | None
    done: RecordedEvent | None      # the day's roll-up, if one is recorded
    contributions: int
    amount_minor: int


class RollupCommand(BaseCommand[RollupContext, RollupResult]):
    name = "jackpots.rollup_day"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> RollupContext:
        if not connection.in_atomic_block:
            raise InvariantViolation("a roll-up runs in one transaction (rollup_day)")
        venue, kind = arguments["venue"], arguments["kind"]
        day = dt.date.fromisoformat(arguments["gaming_day"])
        stream = pool_stream(venue, kind)
        with connection.cursor() as cursor:
            # The writer lock of the pool's book first (the venue's: the
            # pending account's book, casino.books): every contribution to
            # the day has committed, and none can commit until the roll-up does.
            cursor.execute("SELECT position FROM ledger_head WHERE id = coalesce("
                           "(SELECT book FROM ledger_account WHERE code = %s), %s) FOR UPDATE",
                           [pending_account(venue, kind), books.venue_book(venue)])
            version = stream_version(stream)
            pool = _pool(venue, kind)
            place = rules.venue(venue)
            closed = engine.last_closed_day(call.moment(), place.time_zone,
                                            place.gaming_day_start, ROLLUP_DELAY)
            done = (JackpotRollup.objects.filter(pool_id=pool.key, gaming_day=day)
                    .values_list("position", flat=True).first())
            last = (JackpotPool.objects.filter(key=pool.key)
                    .values_list("last_rolled_day", flat=True).first())
            count, amount = 0, 0
            if done is None and pool.first_day <= day <= closed:
                cursor.execute(ROLLUP_SQL, [pool.pending_account, day,
                                            CONTRIBUTIONS_ROLLED_UP])
                count, amount = cursor.fetchone()
        return RollupContext(key=call.key, pool=pool, place=place, stream=stream,
                             version=version, gaming_day=day, last_closed_day=closed,
                             last_rolled_day=last,
                             done=_event(done) if done is not None else None,
                             contributions=int(count), amount_minor=int(amount))

    def check(self, context: RollupContext) -> None:
        day, pool = context.gaming_day, context.pool
        if day > context.last_closed_day:
            raise JackpotError(Code.DAY_NOT_CLOSED,
                               f"gaming day {day} at {pool.venue} has not ended (plus"
                               f" {ROLLUP_DELAY}) in {context.place.time_zone}",
                               gaming_day=day.isoformat(),
                               last_closed_day=context.last_closed_day.isoformat())
        if day < pool.first_day:
            raise JackpotError(Code.DAY_BEFORE_POOL, f"the pool starts on {pool.first_day}",
                               gaming_day=day.isoformat(),
                               first_day=pool.first_day.isoformat())
        if context.done is not None:
            if context.done.idempotency_key == context.key:
                # Rolled up under this key after the runner looked it up:
                # the append finds the key and answers the recorded event.
                return None
            raise JackpotError(Code.DAY_ROLLED_UP,
                               f"gaming day {day} of {pool.key} is already rolled up (at"
                               f" position {context.done.position}); never twice",
                               gaming_day=day.isoformat(), position=context.done.position)
        expected = ((context.last_rolled_day or pool.first_day - dt.timedelta(days=1))
                    + dt.timedelta(days=1))
        if day != expected:
            raise JackpotError(Code.EARLIER_DAY_NOT_ROLLED, f"roll up {expected} before {day}",
                               gaming_day=day.isoformat(),
                               next_day=expected.isoformat())
        return None

    def decide(self, context: RollupContext) -> Decision:
        pool, day, amount = context.pool, context.gaming_day, context.amount_minor
        postings = ((Posting(pool.pending_account, amount, pool.currency),
                     Posting(pool.pool_account, -amount, pool.currency)) if amount else ())
        event = NewEvent(
            stream=context.stream, type=CONTRIBUTIONS_ROLLED_UP, schema_version=SCHEMA_VERSION,
            payload={"venue": pool.venue, "kind": pool.kind, "gaming_day": day.isoformat(),
                     "contributions": context.contributions, "amount_minor": amount,
                     "currency": pool.currency},
            postings=postings,
            # Dated the day it rolls up (ROLLUP_SQL leaves it out by type).
            gaming_day=day,
            occurred_at=engine.day_end_at(day, context.place.time_zone,
                                          context.place.gaming_day_start))
        return Decision([event], {context.stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> RollupResult:
        return _rollup_result(events[0], replayed=replayed)


ROLLUP = RollupCommand()

def rollup_closed_days(*, venue: str, kind: str = BAD_BEAT, actor: str = "celery",
                       now: dt.datetime | None = None) -> list[RollupResult]:
    """Roll up every closed gaming day after the last one rolled, oldest first.

    A day missed while the worker was down is caught up here, in order.
    """
    pool = _pool(venue, kind)
    place = rules.venue(venue)
    now = now or clock.now()
    after = pool.last_rolled_day or pool.first_day - dt.timedelta(days=1)
    days = engine.closed_days_after(after, now, place.time_zone, place.gaming_day_start,
                                    ROLLUP_DELAY, CATCH_UP_DAYS_MAX)
    return [rollup_day(venue=venue, kind=kind, gaming_day=day, actor=actor, now=now)
            for day in days]


def _event(position: int) -> RecordedEvent:
    return load_events(position, position)[0]


def _rollup_result(event: RecordedEvent, *, replayed: bool) -> RollupResult:
    p = event.payload
    return RollupResult(venue=p["venue"], kind=p["kind"],
                        gaming_day=dt.date.fromisoformat(p["gaming_day"]),
                        contributions=p["contributions"], amount_minor=p["amount_minor"],
                        currency=p["currency"], position=event.position, replayed=replayed)


# ---------------------------------------------------------------------------
# Posted terms
# ---------------------------------------------------------------------------

# The share names each category's posted terms give, in basis points of the
# pool (as the Veikkaus figures jackpot.bad_beat.cat<N>.*).
POSTED_SHARES = {1: ("loser_share", "winner_share", "others_share"),
                 2: ("loser_share", "winner_share", "others_share_each")}
FAMILIES = frozenset(engine.VARIANT_CRITERIA.values())
NOTICE_LENGTH_MAX = 500


@dataclass(frozen=True, slots=True)
class TermsResult:
    venue: str
    kind: str
    position: int
    posted_by: str
    effective_day: dt.date
    replayed: bool = False


def post_terms(*, venue: str, kind: str = BAD_BEAT, notice: str,
               criteria: Mapping[str, Mapping[str, str]],
               shares: Mapping[str, Mapping[str, int]], base_guarantee_minor: int,
               actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> TermsResult:
    """Record the terms a venue posted for its bad-beat pool (a compliance officer).

    `criteria` maps a category ("1", "2") to {variant family: threshold}
    (families and thresholds as engine.hits names them), `shares` each
    category to its basis points (POSTED_SHARES), `notice` says where and
    how the venue posted them. One `terms_posted` event on the pool's
    stream; hands started after it are checked against these terms. Only a
    pool whose rulebook leaves the terms to the venue takes them
    (002:L1796-1808, 003:L141-142). Raises JackpotError: invalid terms
    (400), terms the rulebook fixes itself (409).
    """
    ensure_pool(venue=venue, kind=kind, actor=actor, at=at)
    arguments = {"venue": venue, "kind": kind, "notice": notice,
                 "criteria": {str(c): dict(f) for c, f in criteria.items()},
                 "shares": {str(c): dict(v) for c, v in shares.items()},
                 "base_guarantee_minor": base_guarantee_minor}
    return run(POST_TERMS, arguments,
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


@dataclass(frozen=True, slots=True)
class TermsContext:
    pool: JackpotPool
    place: Venue
    stream: str
    version: int
    at: dt.datetime
    day: dt.date
    rulebook: RulebookVersion
    fixed_by_rulebook: bool
    arguments: Mapping[str, Any]
    actor: str


class PostTermsCommand(BaseCommand[TermsContext, TermsResult]):
    name = "jackpots.post_terms"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> TermsContext:
        venue, kind = arguments["venue"], arguments["kind"]
        stream = pool_stream(venue, kind)
        version = stream_version(stream)
        pool = _pool(venue, kind)
        place = rules.venue(venue)
        at = call.moment()
        day = venue_day(place, at)
        rulebook = rules.rulebook_in_force(place.rulebook_id, day)
        fixed = kind != BAD_BEAT or pool_config(rulebook, kind, day).hits_enabled
        return TermsContext(pool=pool, place=place, stream=stream, version=version, at=at,
                            day=day, rulebook=rulebook, fixed_by_rulebook=fixed,
                            arguments=arguments, actor=call.actor)

    def check(self, context: TermsContext) -> None:
        if context.fixed_by_rulebook:
            raise JackpotError(Code.TERMS_FIXED_BY_RULEBOOK,
                               f"the terms of {context.pool.key} are fixed by rulebook"
                               f" {context.rulebook.rulebook_id} v{context.rulebook.version};"
                               " a venue cannot post others",
                               venue=context.pool.venue, kind=context.pool.kind)
        problem = terms_problem(context.arguments)
        if problem is not None:
            raise JackpotError(Code.INVALID_TERMS, f"posted terms refused: {problem}",
                               venue=context.pool.venue, kind=context.pool.kind)

    def decide(self, context: TermsContext) -> Decision:
        a, pool, rulebook = context.arguments, context.pool, context.rulebook
        payload = {"venue": pool.venue, "kind": pool.kind, "posted_by": context.actor,
                   "notice": a["notice"], "effective_day": context.day.isoformat(),
                   "base_guarantee_minor": a["base_guarantee_minor"],
                   "criteria": a["criteria"], "shares": a["shares"],
                   "rulebook": {"id": rulebook.rulebook_id, "version": rulebook.version}}
        event = NewEvent(stream=context.stream, type=TERMS_POSTED, payload=payload,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=context.day)
        return Decision([event], {context.stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TermsResult:
        event = events[0]
        p = event.payload
        return TermsResult(venue=p["venue"], kind=p["kind"], position=event.position,
                           posted_by=p["posted_by"],
                           effective_day=dt.date.fromisoformat(p["effective_day"]),
                           replayed=replayed)


POST_TERMS = PostTermsCommand()


def terms_problem(arguments: Mapping[str, Any]) -> str | None:
    """What is wrong with posted terms, or None (pure)."""
    notice = arguments["notice"]
    if not isinstance(notice, str) or not notice.strip() or len(notice) > NOTICE_LENGTH_MAX:
        return f"give the posted notice (1 to {NOTICE_LENGTH_MAX} characters)"
    base = arguments["base_guarantee_minor"]
    if not isinstance(base, int) or isinstance(base, bool) or base < 0:
        return "base_guarantee_minor must be a whole number of cents, 0 or more"
    criteria, shares = arguments["criteria"], arguments["shares"]
    if not criteria:
        return "give the trigger criteria of at least one category"
    if set(criteria) != set(shares):
        return "give shares for exactly the categories that have criteria"
    for category, families in criteria.items():
        if category not in {str(c) for c in POSTED_SHARES}:
            return f"unknown category {category!r}"
        if not families:
            return f"category {category} names no game"
        for family, threshold in families.items():
            if family not in FAMILIES:
                return f"unknown game family {family!r}"
            try:
                engine.threshold_value(family, threshold)
            except ValueError:
                return f"unknown threshold {threshold!r}"
        names = POSTED_SHARES[int(category)]
        given = shares[category]
        if set(given) != set(names):
            return f"category {category} shares are {', '.join(names)}"
        if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in given.values()):
            return f"category {category} shares must be basis points, 0 or more"
        if given["loser_share"] + given["winner_share"] + given[names[2]] > BASIS_POINTS_WHOLE:
            return f"category {category} shares add up to more than the pool"
    return None


def variant_takes_part(variant: str, figures: Mapping[str, Any]) -> bool:
    """Whether a listed variant's hands can hit the bad beat (pure).

    Hi-lo games are judged on their high hands by the same criteria
    (000:L3196-3198, figure hi_lo_uses_high_criteria); a rulebook saying
    otherwise leaves them out of the jackpot.
    """
    if variant.endswith("_hilo"):
        return figures.get(FIGURE_PREFIX + "hi_lo_uses_high_criteria", True) is not False
    return variant in engine.VARIANT_CRITERIA


def drop_terms_refusal(*, venue: str, at: dt.datetime, kind: str = BAD_BEAT) -> str | None:
    """Why a table at `venue` may not take a jackpot drop yet, or None.

    A pool whose rulebook fixes its terms (the Veikkaus room, 000:L2880-3186)
    takes drops at once. One whose rulebook leaves them to the venue (the
    RAY casino, 002:L1792, L1808; Tallinn, 003:L141-142) takes none before
    the venue's terms are posted: no pool may collect money that no rule
    can pay out (decision jackpots.posted_terms.before_drops). Read by
    poker through `signals.jackpot_drop_terms` when a jackpot table opens.
    """
    place = rules.venue(venue)
    day = venue_day(place, at)
    rulebook = rules.rulebook_in_force(place.rulebook_id, day)
    if pool_config(rulebook, kind, day).hits_enabled:
        return None
    if JackpotTerms.objects.filter(pool_id=pool_key(venue, kind),
                                   posted_at__lte=at).exists():
        return None
    return (f"the {kind.replace('_', ' ')} jackpot of {venue} has no posted terms: its"
            f" rulebook {rulebook.rulebook_id} leaves the criteria and shares to the venue,"
            " so no drop is taken until a compliance officer records them"
            " (POST /api/v1/jackpots/pools/<venue>/<kind>/terms)")


def terms_in_force(pool: JackpotPool, *, before_position: int) -> JackpotTerms | None:
    """The venue's latest posted terms recorded before a position (a hand's start)."""
    return (JackpotTerms.objects.filter(pool_id=pool.key, position__lt=before_position)
            .order_by("-position").first())


def posted_criteria(terms: JackpotTerms, variant: str) -> list[engine.Criteria]:
    """The variant's triggers from posted terms, cited to the posting."""
    family = engine.VARIANT_CRITERIA.get(variant)
    cite = f"posted by {terms.posted_by}, position {terms.position}"
    return [engine.Criteria(int(category), families[family],
                            engine.threshold_value(family, families[family]), cite)
            for category, families in sorted(terms.criteria.items())
            if family in families]


def posted_share_rule(terms: JackpotTerms, category: int) -> engine.ShareRule:
    """A category's percentages from posted terms (as share_rule from figures)."""
    given = terms.shares[str(category)]
    if category == 1:
        return engine.ShareRule(1, given["loser_share"], given["winner_share"],
                                others_total_bp=given["others_share"])
    return engine.ShareRule(2, given["loser_share"], given["winner_share"],
                            other_each_bp=given["others_share_each"])


# ---------------------------------------------------------------------------
# Hits
# ---------------------------------------------------------------------------


def criteria_for(rulebook: RulebookVersion, variant: str, day: dt.date
                 ) -> list[engine.Criteria]:
    """The variant's category 1 and 2 triggers from the rulebook's figures."""
    family = engine.VARIANT_CRITERIA.get(variant)
    if family is None:
        return []
    rows = rules.figures_in_force(rulebook, day)
    result = []
    for category in CATEGORIES:
        row = rows.get(f"{FIGURE_PREFIX}cat{category}.trigger.{family}")
        if row is not None:
            result.append(engine.Criteria(category, row.value,
                                          engine.threshold_value(family, row.value),
                                          row.cite))
    return result


def share_rule(rulebook: RulebookVersion, category: int, day: dt.date) -> engine.ShareRule:
    """The category's percentages from the rulebook (decision jackpot.payout_formula)."""
    figures = _figures(rulebook, day)
    prefix = f"{FIGURE_PREFIX}cat{category}."
    if category == 1:
        return engine.ShareRule(1, figures[prefix + "loser_share"],
                                figures[prefix + "winner_share"],
                                others_total_bp=figures[prefix + "others_share"])
    return engine.ShareRule(2, figures[prefix + "loser_share"], figures[prefix + "winner_share"],
                            other_each_bp=figures[prefix + "others_share_each"])


@dataclass(frozen=True, slots=True)
class HitResult:
    hit_id: str
    venue: str
    kind: str
    state: str
    category: int
    roles: Mapping[str, str]
    players: Mapping[str, str]
    position: int
    positions: tuple[int, ...] = ()
    balance_minor: int | None = None
    amount_minor: int | None = None
    remainder_minor: int | None = None
    top_up_minor: int = 0
    shares: tuple[Mapping[str, Any], ...] = ()
    replayed: bool = False


def check_hand(*, hand_id: str, settled: RecordedEvent) -> HitResult | None:
    """Run the hit detector on a settled hand; record a hit once.

    Idempotent: the hit is recorded under `jackpots/hit-check/<hand_id>`
    and a repeat returns it. Hands at tables without a jackpot, unlisted
    variants and misses write nothing.
    """
    p = settled.payload
    if p.get("run_twice"):
        # Decision poker.run_it_twice.jackpot (olympic-tallinn): a board run
        # twice has two boards, and no hit rule judges two.
        return None
    opened = Event.objects.filter(stream=table_stream(p["table_id"]), type=TABLE_OPENED
                                  ).values_list("payload", flat=True).first()
    parsed = parse_pending_account(opened["jackpot"]) if opened and opened.get("jackpot") else None
    if parsed is None or not p.get("showdown"):
        return None
    venue, kind = parsed
    started_row = Event.objects.filter(stream=settled.stream, type=HAND_STARTED).first()
    if started_row is None:
        return None
    started = started_row.payload
    variant = started["variant"]
    if variant not in engine.VARIANT_CRITERIA:
        return None  # unlisted variants neither pay nor are charged (000:L2937-2938)
    ensure_pool(venue=venue, kind=kind, actor="system", at=started_row.occurred_at)
    pool = _pool(venue, kind)
    rulebook = rules.rulebook_in_force(pool.rulebook_id, settled.gaming_day)
    config = pool_config(rulebook, kind, settled.gaming_day)
    terms = None
    if config.hits_enabled:
        criteria = criteria_for(rulebook, variant, settled.gaming_day)
    else:
        # The venue's posted terms when the hand started, if any were
        # posted (decision jackpots.posted_terms); none: no rule pays.
        terms = terms_in_force(pool, before_position=started_row.position)
        if terms is None:
            return None
        criteria = posted_criteria(terms, variant)
    players = {str(seat): player for seat, player in started["players"].items()}
    figures = _figures(rulebook, settled.gaming_day)
    if not variant_takes_part(variant, figures):
        return None
    verdict = engine.detect(
        variant=variant, board=p.get("board"),
        hands={int(seat): cards for seat, cards in (p.get("hands") or {}).items()},
        players_dealt=[int(seat) for seat in players], players_min=config.players_min or 0,
        criteria=criteria,
        # Two qualifying hands, a loser and a winner (000:L2821-2822, 002:L1790).
        qualifying_hands_min=int(figures.get(FIGURE_PREFIX + "payout.min_qualifying_hands",
                                             2)),
        # The hold'em loser plays both hole cards (000:L2898).
        holdem_loser_both_hole_cards=figures.get(
            FIGURE_PREFIX + "texas_holdem.loser_uses_both_hole_cards", True) is not False)
    if verdict.hit is None:
        return None
    hit = verdict.hit
    payload = {
        "hit_id": hand_id, "venue": venue, "kind": kind, "table_id": p["table_id"],
        "hand_id": hand_id, "hand_started_at": started_row.occurred_at.isoformat(),
        "hand_position": settled.position, "variant": variant, "category": hit.category,
        "threshold": hit.threshold,
        "cite": next((c.cite for c in criteria if c.category == hit.category), ""),
        "players": players,
        "roles": {str(seat): role for seat, role in hit.roles().items()},
        "hands": [{"seat": h.seat, "value": h.value, "category": h.category,
                   "cards": list(h.cards), "uses_both_hole_cards": h.uses_both_hole_cards}
                  for h in hit.hands],
        "rulebook": {"id": rulebook.rulebook_id, "version": rulebook.version},
    }
    if terms is not None:
        payload["terms_position"] = terms.position
    result = run(RECORD_HIT["hit_check"], {"hand_id": hand_id, "hit": payload},
                 Call(actor="system", key=hit_key(hand_id), at=settled.occurred_at,
                      source=SOURCE))
    logger.info("jackpots.hit_recorded", extra={"hit_id": hand_id, "venue": venue})
    return result


def record_progressive_hit(*, round_id: str, bet_id: str, player_id: str, venue: str,
                           position: int, hit: Mapping[str, Any] | None = None
                           ) -> HitResult | None:
    """Record a house game's winning progressive bet as a jackpot hit, once per bet.

    Called for `casino.games.signals.progressive_hit` after the round's
    settlement committed (and again on its replays): the hit is recorded
    under `jackpots/progressive-hit/<bet_id>`, so a repeat returns it. The
    prize is read from the settled event at `position` in the ledger (its
    bet's `jackpot_hit`), never from the caller: `hit` must agree with it.
    The hit awaits a compliance officer's approval (decision
    jackpots.progressive.hit, 002:L2297, L2478), then `pay_hit` pays it.
    Returns None (nothing written) when the venue's rulebook lists no such
    pool. Raises JackpotError (422) when the event does not show this win.
    """
    settled = _event(position)
    facts = _progressive_facts(settled, round_id=round_id, bet_id=bet_id,
                               player_id=player_id, venue=venue, hit=hit)
    kind = facts["hit"]["kind"]
    ensure_pool(venue=venue, kind=kind, actor="system", at=settled.occurred_at)
    pool = _pool(venue, kind)
    rulebook = rules.rulebook_in_force(pool.rulebook_id, settled.gaming_day)
    if not pool_config(rulebook, kind, settled.gaming_day).hits_enabled:
        logger.warning("jackpots.progressive_hit_without_pool",
                       extra={"bet_id": bet_id, "venue": venue, "kind": kind})
        return None
    won = facts["hit"]
    box = str(facts["box"])
    payload = {
        "hit_id": bet_id, "trigger": HitTrigger.PROGRESSIVE.value, "venue": venue,
        "kind": kind, "table_id": facts["table_id"], "hand_id": round_id,
        "hand_started_at": settled.occurred_at.isoformat(), "hand_position": position,
        "variant": facts["game"], "category": 0, "threshold": won["row"], "cite": won["cite"],
        "players": {box: player_id}, "roles": {box: "winner"},
        "hands": [{"seat": int(box), "value": None, "category": facts["hand"],
                   "cards": facts["cards"], "uses_both_hole_cards": None}],
        "bet_id": bet_id, "round_id": round_id, "row": won["row"],
        "pool_basis_points": won.get("pool_basis_points"), "pays": won.get("pays"),
        "stake_minor": won["stake_minor"],
        "rulebook": {"id": rulebook.rulebook_id, "version": rulebook.version},
    }
    result = run(RECORD_HIT["progressive_hit"], {"bet_id": bet_id, "hit": payload},
                 Call(actor="system", key=progressive_hit_key(bet_id), at=settled.occurred_at,
                      source=SOURCE))
    logger.info("jackpots.hit_recorded", extra={"hit_id": bet_id, "venue": venue})
    return result


@dataclass(frozen=True, slots=True)
class RecordHitContext:
    payload: Mapping[str, Any]
    stream: str
    version: int
    at: dt.datetime
    day: dt.date


class RecordHitCommand(BaseCommand[RecordHitContext, HitResult]):
    """Record a detected hit (the detection read only settled, immutable facts)."""

    source = SOURCE

    def __init__(self, operation: str) -> None:
        self.name = f"jackpots.{operation}"

    def load(self, arguments: Mapping[str, Any], call: Call) -> RecordHitContext:
        payload = arguments["hit"]
        stream = pool_stream(payload["venue"], payload["kind"])
        version = stream_version(stream)
        at = call.moment()
        return RecordHitContext(payload=payload, stream=stream, version=version, at=at,
                                day=venue_day(rules.venue(payload["venue"]), at))

    def decide(self, context: RecordHitContext) -> Decision:
        event = NewEvent(stream=context.stream, type=HIT_RECORDED, payload=context.payload,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=context.day)
        return Decision([event], {context.stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HitResult:
        return _hit_result(events, replayed=replayed)


RECORD_HIT = {operation: RecordHitCommand(operation)
              for operation in ("hit_check", "progressive_hit")}


def _progressive_facts(settled: RecordedEvent, *, round_id: str, bet_id: str,
                       player_id: str, venue: str, hit: Mapping[str, Any] | None
                       ) -> dict[str, Any]:
    """Check the settled event shows this bet winning a progressive; return its facts."""
    from casino.games import events as games

    def refuse(why: str) -> JackpotError:
        return JackpotError(Code.HIT_NOT_VERIFIED,
                            f"position {settled.position} does not show bet {bet_id} winning"
                            f" a progressive: {why}", position=settled.position,
                            bet_id=bet_id)

    p = settled.payload
    parsed = games.parse_round_id(round_id)
    if settled.type != games.PLAYER_SETTLED or parsed is None or (
            settled.stream != games.round_stream(*parsed)):
        raise refuse(f"it is a {settled.type} on {settled.stream}")
    if p.get("round_id") != round_id or p.get("player_id") != player_id:
        raise refuse("another round or player")
    record = next((b for b in p.get("bets", ()) if b.get("bet_id") == bet_id), None)
    won = (record or {}).get("detail", {}).get("jackpot_hit")
    if won is None or record.get("result") != "jackpot":
        raise refuse("the bet did not win a progressive")
    if hit is not None and dict(hit) != won:
        raise refuse("the signalled prize differs from the recorded one")
    table_id, _ = parsed
    opened = (Event.objects.filter(stream=games.table_stream(table_id),
                                   type=games.TABLE_OPENED)
              .values_list("payload", flat=True).first())
    if opened is None or opened.get("venue") != venue:
        raise refuse(f"the table is not at {venue}")
    placed = Event.objects.filter(stream=settled.stream, type=games.BET_PLACED,
                                  payload__bet_id=bet_id).values_list("payload", flat=True).first()
    box = str((placed or {}).get("spec", {}).get("box", 1))
    outcome = (Event.objects.filter(stream=settled.stream, type=games.OUTCOME_RECORDED)
               .order_by("-position").values_list("payload", flat=True).first() or {}
               ).get("outcome", {})
    hole = list((outcome.get("boxes") or {}).get(box) or ())
    return {"hit": won, "table_id": table_id, "game": opened["game"], "box": box,
            "hand": record["detail"].get("progressive_hand"),
            "cards": hole + list(outcome.get("board") or ())[:3]}


def approve_hit(*, hit_id: str, actor: str, idempotency_key: str | None = None) -> HitResult:
    """Approve a hit: fix each player's share of the posted pool balance.

    Shares follow the closed forms (engine.shares), each rounded down to the
    cent; the cents rounded away stay in the pool (decision
    jackpot.payout_formula). Raises JackpotError: unknown hit (404), not
    awaiting approval or an earlier hand's hit still open (409).
    """
    return run(APPROVE_HIT, {"hit_id": hit_id},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


@dataclass(frozen=True, slots=True)
class LoadedHit:
    """What every decision on a hit reads: the pool stream's version, then the hit."""

    stream: str
    version: int
    hit: JackpotHit
    earlier: JackpotHit | None      # an earlier hit of the pool still open
    place: Venue
    actor: str
    at: dt.datetime
    day: dt.date


def _load_hit(hit_id: str, call: Call) -> LoadedHit:
    """Read the pool stream's version first, then the hit it protects."""
    pool = JackpotHit.objects.filter(id=hit_id).values_list("pool__venue", "pool__kind").first()
    if pool is None:
        raise _unknown_hit(hit_id)
    stream = pool_stream(*pool)
    version = stream_version(stream)
    hit = _hit(hit_id)
    place = rules.venue(hit.pool.venue)
    at = call.moment()
    return LoadedHit(stream=stream, version=version, hit=hit, earlier=_earlier_open(hit),
                    place=place, actor=call.actor, at=at, day=venue_day(place, at))


@dataclass(frozen=True, slots=True)
class ApproveContext:
    state: LoadedHit
    balance_minor: int
    share_rule: engine.ShareRule | None         # a bad-beat hit
    win_minor_max: int | None                   # a progressive hit: the venue's cap


class ApproveHitCommand(BaseCommand[ApproveContext, HitResult]):
    name = "jackpots.approve_hit"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ApproveContext:
        state = _load_hit(arguments["hit_id"], call)
        hit = state.hit
        recorded_event = _event(hit.recorded_position)
        recorded = recorded_event.payload
        rulebook = RulebookVersion.objects.get(rulebook_id=recorded["rulebook"]["id"],
                                               version=recorded["rulebook"]["version"])
        if hit.trigger == HitTrigger.PROGRESSIVE:
            cap = rules.win_limit(rulebook)
            rule, win_max = None, cap.win_minor_max if cap is not None else None
        elif recorded.get("terms_position") is not None:
            terms = JackpotTerms.objects.get(position=recorded["terms_position"])
            rule, win_max = posted_share_rule(terms, hit.category), None
        else:
            rule, win_max = share_rule(rulebook, hit.category,
                                       recorded_event.gaming_day), None
        return ApproveContext(state=state, balance_minor=_balance_at_hit(hit), share_rule=rule,
                              win_minor_max=win_max)

    def check(self, context: ApproveContext) -> None:
        _require(context.state.hit, "approve", Code.HIT_NOT_PENDING)
        _refuse_if_earlier_open(context.state)

    def decide(self, context: ApproveContext) -> Decision:
        state = context.state
        if state.hit.trigger == HitTrigger.PROGRESSIVE:
            payload = _progressive_approval(state.hit, context.balance_minor, state.actor,
                                            win_minor_max=context.win_minor_max)
        else:
            payload = _bad_beat_approval(state.hit, context.balance_minor, state.actor,
                                         rule=context.share_rule)
        return Decision([_hit_event(state, HIT_APPROVED, payload)],
                        {state.stream: state.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HitResult:
        return _hit_result(events, replayed=replayed)


APPROVE_HIT = ApproveHitCommand()


def _bad_beat_approval(hit: JackpotHit, balance: int, actor: str, *,
                       rule: engine.ShareRule) -> dict[str, Any]:
    """The shares of a bad-beat hit by the closed forms (decision jackpot.payout_formula)."""
    amounts = engine.amounts(rule, balance_minor=balance, roles=hit.roles)
    exact = engine.shares(rule, players=len(hit.roles),
                          losers=list(hit.roles.values()).count("loser"),
                          winners=list(hit.roles.values()).count("winner"))
    each = {"loser": exact.loser_each, "winner": exact.winner_each,
            "other": exact.other_each}
    shares = [{"seat": int(seat), "player_id": hit.players[seat], "role": role,
               "fraction": f"{each[role].numerator}/{each[role].denominator}",
               "amount_minor": amounts[seat]}
              for seat, role in sorted(hit.roles.items(), key=lambda item: int(item[0]))]
    total = sum(amounts.values())
    return {"hit_id": hit.id, "approved_by": actor, "balance_minor": balance,
            "category": hit.category, "shares": shares, "amount_minor": total,
            "remainder_minor": (balance * exact.total).__floor__() - total if balance else 0,
            "rounding": "each share rounded down to the cent; the rest stays in the pool"}


def _progressive_approval(hit: JackpotHit, balance: int, actor: str, *,
                          win_minor_max: int | None) -> dict[str, Any]:
    """The prize of a progressive hit (002:L2297, L2478; its pay-table row).

    `pool_basis_points`: that share of the posted balance at the hit
    (decision jackpots.progressive.payout_base), rounded down to the cent,
    the cents staying in the pool. `pays`: pays x the progressive stake,
    whatever the pool holds (decision jackpots.progressive.shortfall: the
    casino funds a shortfall at payment). Either is cut to the venue's
    maximum single win (Part IV s.11, decision max_win.scope) if larger.
    """
    if hit.pool_basis_points is not None:
        amount = balance * hit.pool_basis_points // BASIS_POINTS_WHOLE
        fraction = f"{hit.pool_basis_points}/{BASIS_POINTS_WHOLE}"
    else:
        amount = hit.pays * hit.stake_minor
        fraction = f"{hit.pays}x{hit.stake_minor}"
    capped = max(0, amount - win_minor_max) if win_minor_max is not None else 0
    amount -= capped
    (seat, player_id), = hit.players.items()
    return {"hit_id": hit.id, "approved_by": actor, "balance_minor": balance,
            "category": hit.category, "amount_minor": amount, "remainder_minor": 0,
            "shares": [{"seat": int(seat), "player_id": player_id, "role": "winner",
                        "fraction": fraction, "amount_minor": amount}],
            "win_capped_minor": capped,
            "rounding": "a share of the pool is rounded down to the cent; the rest stays in"
                        " the pool"}


def _balance_at_hit(hit: JackpotHit) -> int:
    """The posted pool balance a hit pays from (decision jackpot.payout_base).

    The balance now, less what roll-ups posted after the hit added: days
    rolled up between the hit and its approval belong to the new base, while
    an earlier hit's payout and top-up (000:L2854-2861) count, so a second
    hit is computed on what the first left.
    """
    balance = Account.objects.get(code=hit.pool.pool_account).balance_minor
    return balance - _rolled_up_after(hit)


def _rolled_up_after(hit: JackpotHit) -> int:
    """What roll-ups posted to the hit's pool after the hit was recorded.

    Drops rolled up after a hit join the jackpot at the day's end on top of
    the new base (000:L3185-3186, L2872-2873): they are neither paid by the
    hit nor counted towards the base it leaves.
    """
    later = JackpotRollup.objects.filter(pool_id=hit.pool_id,
                                         position__gt=hit.recorded_position
                                         ).aggregate(total=Sum("amount_minor"))["total"]
    return later or 0


def reject_hit(*, hit_id: str, actor: str, reason: str,
               idempotency_key: str | None = None) -> HitResult:
    """Refuse a hit (e.g. a player disclosed cards during the deal, 002:L1810)."""
    return run(REJECT_HIT, {"hit_id": hit_id, "reason": reason},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


@dataclass(frozen=True, slots=True)
class RejectContext:
    state: LoadedHit
    reason: str


class RejectHitCommand(BaseCommand[RejectContext, HitResult]):
    name = "jackpots.reject_hit"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> RejectContext:
        reason = arguments["reason"]
        if not reason.strip():
            raise JackpotError(Code.INVALID_REQUEST, "give the reason for the rejection",
                               field="reason")
        return RejectContext(state=_load_hit(arguments["hit_id"], call), reason=reason)

    def check(self, context: RejectContext) -> None:
        _require(context.state.hit, "reject", Code.HIT_NOT_PENDING)

    def decide(self, context: RejectContext) -> Decision:
        state = context.state
        payload = {"hit_id": state.hit.id, "rejected_by": state.actor, "reason": context.reason}
        return Decision([_hit_event(state, HIT_REJECTED, payload)],
                        {state.stream: state.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HitResult:
        return _hit_result(events, replayed=replayed)


REJECT_HIT = RejectHitCommand()


def pay_hit(*, hit_id: str, actor: str, idempotency_key: str | None = None) -> HitResult:
    """Pay an approved hit into the players' gaming accounts; top the base up.

    One append: `hit_paid` (pool +amount, each `player/<id>/account`
    -share) and, when what the hit leaves of the balance at the hit is
    below the guaranteed base (000:L3185-3186), `base_topped_up` (the
    casino's expense `house/<venue>/jackpot_funding` +top-up, pool -top-up).
    Drops that arrive after the hit, pending or already rolled up when the
    officer pays, are not part of the base: they join the jackpot at the
    day's end on top of it (000:L2872-2873), so the next jackpot is the base
    plus the drops rolled up after the hit, whenever the payment is made
    (decision jackpots.payout.top_up). Each share is credited up to the gaming account's
    ceiling, the rest to `bank/<venue>/payouts_due` (casino/wallet.py);
    a fixed progressive prize larger than the pool is first funded by the
    casino (`base_topped_up`, reason shortfall). Gaming accounts a share
    goes to are opened (cage terms) in the append's transaction. Raises
    JackpotError (404, 409); RunnerError `request.concurrent_update` when a credit
    committed after the ceiling split was read on every attempt.
    """
    return run(PAY_HIT, {"hit_id": hit_id},
               Call(actor=actor, key=idempotency_key, source=SOURCE))


@dataclass(frozen=True, slots=True)
class PayContext:
    state: LoadedHit
    balance_minor: int                  # the pool account's posted balance
    rolled_up_after_minor: int          # roll-ups posted after the hit (new base)
    owed: Mapping[str, int]             # player id -> the sum of their shares
    credits: Mapping[str, PlayerCredit]
    ceiling_minor: int | None           # of a gaming account opened by the payment


class PayHitCommand(BaseCommand[PayContext, HitResult]):
    name = "jackpots.pay_hit"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> PayContext:
        state = _load_hit(arguments["hit_id"], call)
        hit, pool = state.hit, state.hit.pool
        balance = Account.objects.get(code=pool.pool_account).balance_minor
        owed: dict[str, int] = {}
        for share in hit.shares or ():
            if share["amount_minor"]:
                owed[share["player_id"]] = owed.get(share["player_id"], 0) + share["amount_minor"]
        credits: dict[str, PlayerCredit] = {}
        if can_proceed(hit.pay) and state.earlier is None:
            # Each share up to the gaming account's ceiling, the rest owed to
            # the player's bank account (decision
            # online.account.balance_overflow, 002:L3068-3070;
            # casino/wallet.py, which opens payouts_due if needed).
            credits = credit_players(owed, currency=pool.currency, venue=pool.venue,
                                     on=state.day,
                                     metadata=Metadata(actor=state.actor, source=SOURCE))
        return PayContext(state=state, balance_minor=balance,
                          rolled_up_after_minor=_rolled_up_after(hit), owed=owed,
                          credits=credits,
                          ceiling_minor=account_ceiling(state.day) if owed else None)

    def check(self, context: PayContext) -> Rejection | None:
        _require(context.state.hit, "pay", Code.HIT_NOT_APPROVED)
        _refuse_if_earlier_open(context.state)
        return _four_eyes(self.name, context.state, context.state.hit.approved_by)

    def decide(self, context: PayContext) -> Decision:
        state = context.state
        hit, pool, stream = state.hit, state.hit.pool, state.stream
        balance, credits = context.balance_minor, context.credits
        amount = hit.amount_minor or 0
        events = []
        # A fixed prize larger than the pool: the casino funds the shortfall
        # first, so the pool never goes negative (decision
        # jackpots.progressive.shortfall).
        shortfall = max(0, amount - balance)
        if shortfall:
            events.append(_top_up_event(state, reason="shortfall",
                                        balance_before_minor=balance, amount_minor=shortfall))
        postings = [p for player_id in sorted(credits) for p in credits[player_id].postings]
        if amount:
            postings.insert(0, Posting(pool.pool_account, amount, pool.currency))
        payload = {"hit_id": hit.id, "paid_by": state.actor, "amount_minor": amount,
                   "shares": hit.shares}
        overflow = overflow_blocks(credits[player_id] for player_id in sorted(credits))
        if overflow:
            payload[OVERFLOW_KEY] = overflow
        events.append(_hit_event(state, HIT_PAID, payload, postings=tuple(postings)))
        # The base is what the hit leaves of the balance at the hit
        # (000:L3185-3186); days rolled up since are added on top of it
        # (000:L2872-2873), so the next jackpot does not depend on when an
        # officer pays.
        remainder = balance + shortfall - amount - context.rolled_up_after_minor
        top_up = (max(0, pool.base_guarantee_minor - remainder)
                  if pool.base_guarantee_minor else 0)
        if top_up:
            events.append(_top_up_event(state, reason="base_guarantee",
                                        balance_before_minor=remainder, amount_minor=top_up))
        accounts = [dict(code=gaming_account(player_id), type=AccountType.LIABILITY,
                         currency=state.place.currency,
                         name=f"Gaming account of player {player_id}",
                         must_not_go_negative=True, balance_max_minor=context.ceiling_minor)
                    for player_id in sorted(context.owed)]
        return Decision(events, {stream: state.version}, accounts=accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> HitResult:
        _raise_recorded_refusal(events)
        return _hit_result(events, replayed=replayed)

    def refusal(self, context: PayContext, error: LedgerError) -> Exception | None:
        if isinstance(error, BalanceMaxExceeded):
            # A credit committed after the ceiling split was read: the split
            # is stale, as a stale version is; the request may be sent again.
            return RunnerError(RunnerErrorCode.CONCURRENT_UPDATE,
                               "a gaming account changed while the payment was split at its"
                               " ceiling; send it again",
                               account=error.details.get("account"))
        return None


PAY_HIT = PayHitCommand()


def _four_eyes(command: str, state: LoadedHit, earlier_actor: str | None) -> Rejection | None:
    """Refuse, on the record, a step the actor's own earlier step rules out.

    The two-person rule lives here, in the command, so the API, the admin's
    actions and the officers' desk all meet it (casino.roles.TWO_PERSON_RULES).
    """
    rule = two_person_rule(command)
    if not same_person(rule, actor=state.actor, earlier_actor=earlier_actor):
        return None
    message = (f"{state.actor} took the step {rule.earlier} on hit {state.hit.id};"
               " a second officer must take this one")
    payload = four_eyes_payload(rule, actor=state.actor, earlier_actor=earlier_actor or "",
                                record=state.hit.id, message=message)
    event = NewEvent(stream=f"{state.stream}/rejections", type=FOUR_EYES_REFUSED, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=state.at, gaming_day=state.day)

    def error(position: int) -> JackpotError:
        return JackpotError(Code.PAYER_IS_APPROVER, message, hit_id=state.hit.id,
                            **{rule.actor_field: earlier_actor}, rejection_position=position)

    return Rejection(event, error)


def _raise_recorded_refusal(events: Sequence[RecordedEvent]) -> None:
    """A replayed request whose outcome was a two-person refusal is refused again."""
    if events and events[0].type == FOUR_EYES_REFUSED:
        p = events[0].payload
        raise JackpotError(Code(p["rule"]), p["message"], hit_id=p["record"],
                           approved_by=p["approved_by"], rejection_position=events[0].position)


def _hit_event(state: LoadedHit, event_type: str, payload: Mapping[str, Any], *,
               postings: tuple[Posting, ...] = ()) -> NewEvent:
    """An event of a decision on a hit, dated by the venue's gaming day."""
    return NewEvent(stream=state.stream, type=event_type, payload=payload, postings=postings,
                    schema_version=SCHEMA_VERSION, occurred_at=state.at, gaming_day=state.day)


def _top_up_event(state: LoadedHit, *, reason: str, balance_before_minor: int,
                  amount_minor: int) -> NewEvent:
    """The casino's funding of a pool: to its guaranteed base, or a fixed prize's shortfall."""
    pool = state.hit.pool
    return _hit_event(
        state, BASE_TOPPED_UP,
        {"hit_id": state.hit.id, "reason": reason,
         "base_guarantee_minor": pool.base_guarantee_minor,
         "balance_before_minor": balance_before_minor, "amount_minor": amount_minor},
        postings=(Posting(pool.funding_account, amount_minor, pool.currency),
                  Posting(pool.pool_account, -amount_minor, pool.currency)))


def _hit(hit_id: str) -> JackpotHit:
    hit = JackpotHit.objects.select_related("pool").filter(id=hit_id).first()
    if hit is None:
        raise _unknown_hit(hit_id)
    return hit


def _unknown_hit(hit_id: str) -> JackpotError:
    return JackpotError(Code.UNKNOWN_HIT, f"no jackpot hit {hit_id!r}",
                        hit_id=hit_id)


def _require(hit: JackpotHit, name: str, code: Code) -> None:
    """Refuse a step the hit's django-fsm transitions do not allow from its state.

    The transition is only asked (`can_proceed`), never run: events set the state.
    """
    if not can_proceed(getattr(hit, name)):
        raise JackpotError(code, f"hit {hit.id} is {hit.state}; cannot {name} it",
                           hit_id=hit.id, state=hit.state)


def _earlier_open(hit: JackpotHit) -> JackpotHit | None:
    """An earlier hit of the pool still open, if any (000:L2854-2861)."""
    # Hits of one instant (two progressive boxes of one round) go in the
    # order they were recorded (decision jackpots.progressive.order).
    return (JackpotHit.objects.filter(pool_id=hit.pool_id, state__in=OPEN_HIT_STATES)
            .filter(Q(hand_started_at__lt=hit.hand_started_at)
                    | Q(hand_started_at=hit.hand_started_at,
                        recorded_position__lt=hit.recorded_position))
            .exclude(id=hit.id).order_by("hand_started_at", "recorded_position").first())


def _refuse_if_earlier_open(state: LoadedHit) -> None:
    """Near-simultaneous hits go in the order their hands started (000:L2854-2861)."""
    earlier = state.earlier
    if earlier is not None:
        raise JackpotError(Code.EARLIER_HIT_OPEN,
                           f"hit {earlier.id} started earlier and is still {earlier.state};"
                           " it is settled first (000:L2854-2861)",
                           hit_id=state.hit.id, earlier_hit_id=earlier.id)


def _hit_result(events: Sequence[RecordedEvent], *, replayed: bool) -> HitResult:
    hit_id = events[0].payload["hit_id"]
    hit = JackpotHit.objects.select_related("pool").get(id=hit_id)
    return HitResult(
        hit_id=hit.id, venue=hit.pool.venue, kind=hit.pool.kind, state=hit.state,
        category=hit.category, roles=hit.roles, players=hit.players,
        position=events[0].position, positions=tuple(e.position for e in events),
        balance_minor=hit.balance_minor, amount_minor=hit.amount_minor,
        remainder_minor=hit.remainder_minor, top_up_minor=hit.top_up_minor,
        shares=tuple(hit.shares or ()), replayed=replayed)
