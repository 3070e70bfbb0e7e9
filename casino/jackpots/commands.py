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

Payments are credited up to each gaming account's ceiling and the rest to
`bank/<venue>/payouts_due` (decision online.account.balance_overflow,
002:L3068-3070; casino/cage/credits.py).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import connection, transaction
from django.db.models import Q, Sum

from casino import clock
from casino.cage.commands import account_ceiling
from casino.cage.credits import credit_players, overflow_blocks
from casino.cage.events import OVERFLOW_KEY, gaming_account
from casino.poker.events import HAND_STARTED, TABLE_OPENED, table_stream
from casino.rules import queries as rules
from casino.rules.models import Figure, RulebookVersion, Venue
from ledger import Metadata, NewEvent, Posting, RecordedEvent, append, open_account
from ledger.errors import AccountExists, BalanceMaxExceeded, StaleVersion
from ledger.models import Account, AccountType, Event, Stream
from ledger.store import recorded_result

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
    HIT_APPROVED,
    HIT_PAID,
    HIT_RECORDED,
    HIT_REJECTED,
    POOL_OPENED,
    SCHEMA_VERSION,
    hit_key,
    progressive_hit_key,
    rollup_key,
)
from .models import OPEN_HIT_STATES, HitTrigger, JackpotHit, JackpotPool, JackpotRollup

logger = logging.getLogger(__name__)

SOURCE = "casino.jackpots"
ATTEMPTS_MAX = 5
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


def pool_config(rulebook: RulebookVersion, kind: str) -> PoolConfig:
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
    figures = _figures(rulebook)
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


def _figures(rulebook: RulebookVersion) -> dict[str, Any]:
    return dict(Figure.objects.filter(rulebook=rulebook).values_list("figure_key", "value"))


@dataclass(frozen=True, slots=True)
class PoolResult:
    key: str
    venue: str
    kind: str
    position: int
    created: bool


def ensure_pool(*, venue: str, kind: str = BAD_BEAT, actor: str = "system",
                at: dt.datetime | None = None) -> PoolResult:
    """Open a venue's jackpot pool from its rulebook, once.

    Opens `jackpot/<venue>/<kind>/pending` (unless poker already did),
    `.../pool` and `house/<venue>/jackpot_funding`, then appends
    `pool_opened`. The pool's first gaming day is the earlier of today and
    the first day with a contribution already pending, so drops taken
    before the pool existed are rolled up too.
    """
    existing = JackpotPool.objects.filter(key=pool_key(venue, kind)).first()
    if existing is not None:
        return PoolResult(existing.key, venue, kind, existing.opened_position, False)
    place = rules.venue(venue)
    at = at or clock.now()
    today = engine.day_of(at, place.time_zone, place.gaming_day_start)
    rulebook = rules.rulebook_in_force(place.rulebook_id, today)
    config = pool_config(rulebook, kind)
    metadata = Metadata(actor=actor, source=SOURCE)
    for code, terms in _pool_accounts(place, kind).items():
        if not Account.objects.filter(code=code).exists():
            try:
                open_account(code=code, currency=place.currency, metadata=metadata,
                             idempotency_key=f"jackpots/account/{code}", **terms)
            except AccountExists:
                pass  # opened meanwhile (poker opens the pending account itself)
    first_pending = _first_pending_day(pending_account(venue, kind))
    first_day = min(today, first_pending) if first_pending else today
    payload = {
        "venue": venue, "kind": kind, "currency": place.currency,
        "rulebook": {"id": rulebook.rulebook_id, "version": rulebook.version},
        "first_day": first_day.isoformat(),
        "pending_account": pending_account(venue, kind),
        "pool_account": pool_account(venue, kind),
        "funding_account": funding_account(venue),
        "base_guarantee_minor": config.base_guarantee_minor,
        "players_min": config.players_min, "hits_enabled": config.hits_enabled,
    }
    result = append([NewEvent(stream=pool_stream(venue, kind), type=POOL_OPENED,
                              payload=payload, schema_version=SCHEMA_VERSION,
                              occurred_at=at, gaming_day=today)],
                    expected_versions={pool_stream(venue, kind): 0},
                    idempotency_key=f"jackpots/pool/{venue}/{kind}",
                    request={"op": "open_pool", "venue": venue, "kind": kind},
                    metadata=metadata)
    return PoolResult(pool_key(venue, kind), venue, kind, result.first_position,
                      not result.replayed)


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


def _pool_accounts(place: Venue, kind: str) -> dict[str, dict[str, Any]]:
    return {
        pending_account(place.code, kind): dict(
            type=AccountType.LIABILITY, must_not_go_negative=True,
            name=f"Jackpot drops pending at {place.code}"),
        pool_account(place.code, kind): dict(
            type=AccountType.LIABILITY, must_not_go_negative=True,
            name=f"Jackpot pool {kind} at {place.code}"),
        funding_account(place.code): dict(
            type=AccountType.EXPENSE, name=f"Jackpot base top-ups at {place.code}"),
    }


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
                           status=404, venue=venue, kind=kind)
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
               actor: str = "celery", now: dt.datetime | None = None) -> RollupResult:
    """Move one closed gaming day's pending contributions to the pool.

    Raises JackpotError: unknown pool (404), a day not yet closed in the
    venue's zone or before the pool's first day, or an earlier day not yet
    rolled up (409). A day already rolled up returns its result, replayed.
    """
    key = rollup_key(venue, kind, gaming_day)
    recorded = recorded_result(key)
    if recorded is not None:
        return _rollup_result(recorded[0], replayed=True)
    pool = _pool(venue, kind)
    place = rules.venue(venue)
    now = now or clock.now()
    closed = engine.last_closed_day(now, place.time_zone, place.gaming_day_start, ROLLUP_DELAY)
    if gaming_day > closed:
        raise JackpotError(Code.DAY_NOT_CLOSED,
                           f"gaming day {gaming_day} at {venue} has not ended (plus"
                           f" {ROLLUP_DELAY}) in {place.time_zone}", status=409,
                           gaming_day=gaming_day.isoformat(), last_closed_day=closed.isoformat())
    if gaming_day < pool.first_day:
        raise JackpotError(Code.DAY_BEFORE_POOL, f"the pool starts on {pool.first_day}",
                           status=409, gaming_day=gaming_day.isoformat(),
                           first_day=pool.first_day.isoformat())
    stream = pool_stream(venue, kind)
    with transaction.atomic():
        with connection.cursor() as cursor:
            # The writer lock first: every contribution to the day has
            # committed, and none can commit until the roll-up does.
            cursor.execute("SELECT position FROM ledger_head WHERE id = 1 FOR UPDATE")
            done = JackpotRollup.objects.filter(pool_id=pool.key, gaming_day=gaming_day).first()
            if done is not None:  # rolled up under another key: never twice
                return _rollup_result(_event(done.position), replayed=True)
            last = (JackpotPool.objects.filter(key=pool.key)
                    .values_list("last_rolled_day", flat=True).first())
            expected_day = (last or pool.first_day - dt.timedelta(days=1)) + dt.timedelta(days=1)
            if gaming_day != expected_day:
                raise JackpotError(Code.EARLIER_DAY_NOT_ROLLED,
                                   f"roll up {expected_day} before {gaming_day}", status=409,
                                   gaming_day=gaming_day.isoformat(),
                                   next_day=expected_day.isoformat())
            cursor.execute(ROLLUP_SQL, [pool.pending_account, gaming_day,
                                        CONTRIBUTIONS_ROLLED_UP])
            count, amount = cursor.fetchone()
        version = Stream.objects.filter(name=stream).values_list("version", flat=True).first()
        postings = ((Posting(pool.pending_account, amount, pool.currency),
                     Posting(pool.pool_account, -amount, pool.currency)) if amount else ())
        event = NewEvent(
            stream=stream, type=CONTRIBUTIONS_ROLLED_UP, schema_version=SCHEMA_VERSION,
            payload={"venue": venue, "kind": kind, "gaming_day": gaming_day.isoformat(),
                     "contributions": int(count), "amount_minor": int(amount),
                     "currency": pool.currency},
            postings=postings, gaming_day=gaming_day,
            occurred_at=engine.day_end_at(gaming_day, place.time_zone, place.gaming_day_start))
        result = append([event], expected_versions={stream: version or 0},
                        idempotency_key=key,
                        request={"op": "rollup", "venue": venue, "kind": kind,
                                 "gaming_day": gaming_day.isoformat()},
                        metadata=Metadata(actor=actor, source=SOURCE))
    return _rollup_result(result.events[0], replayed=result.replayed)


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
    from ledger.store import load_events

    return load_events(position, position)[0]


def _rollup_result(event: RecordedEvent, *, replayed: bool) -> RollupResult:
    p = event.payload
    return RollupResult(venue=p["venue"], kind=p["kind"],
                        gaming_day=dt.date.fromisoformat(p["gaming_day"]),
                        contributions=p["contributions"], amount_minor=p["amount_minor"],
                        currency=p["currency"], position=event.position, replayed=replayed)


# ---------------------------------------------------------------------------
# Hits
# ---------------------------------------------------------------------------


def criteria_for(rulebook: RulebookVersion, variant: str) -> list[engine.Criteria]:
    """The variant's category 1 and 2 triggers from the rulebook's figures."""
    family = engine.VARIANT_CRITERIA.get(variant)
    if family is None:
        return []
    rows = {row.figure_key: row for row in Figure.objects.filter(
        rulebook=rulebook, figure_key__startswith=FIGURE_PREFIX)}
    result = []
    for category in CATEGORIES:
        row = rows.get(f"{FIGURE_PREFIX}cat{category}.trigger.{family}")
        if row is not None:
            result.append(engine.Criteria(category, row.value,
                                          engine.threshold_value(family, row.value),
                                          row.cite))
    return result


def share_rule(rulebook: RulebookVersion, category: int) -> engine.ShareRule:
    """The category's percentages from the rulebook (decision jackpot.payout_formula)."""
    figures = _figures(rulebook)
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

    Idempotent: the hit is appended under `jackpots/hit-check/<hand_id>`
    and a repeat returns it. Hands at tables without a jackpot, unlisted
    variants and misses write nothing.
    """
    key = hit_key(hand_id)
    recorded = recorded_result(key)
    if recorded is not None:
        return _hit_result(recorded, replayed=True)
    p = settled.payload
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
    config = pool_config(rulebook, kind)
    if not config.hits_enabled:
        return None
    players = {str(seat): player for seat, player in started["players"].items()}
    verdict = engine.detect(
        variant=variant, board=p.get("board"),
        hands={int(seat): cards for seat, cards in (p.get("hands") or {}).items()},
        players_dealt=[int(seat) for seat in players], players_min=config.players_min or 0,
        criteria=criteria_for(rulebook, variant))
    if verdict.hit is None:
        return None
    hit = verdict.hit
    payload = {
        "hit_id": hand_id, "venue": venue, "kind": kind, "table_id": p["table_id"],
        "hand_id": hand_id, "hand_started_at": started_row.occurred_at.isoformat(),
        "hand_position": settled.position, "variant": variant, "category": hit.category,
        "threshold": hit.threshold,
        "cite": next((c.cite for c in criteria_for(rulebook, variant)
                      if c.category == hit.category), ""),
        "players": players,
        "roles": {str(seat): role for seat, role in hit.roles().items()},
        "hands": [{"seat": h.seat, "value": h.value, "category": h.category,
                   "cards": list(h.cards), "uses_both_hole_cards": h.uses_both_hole_cards}
                  for h in hit.hands],
        "rulebook": {"id": rulebook.rulebook_id, "version": rulebook.version},
    }
    stream = pool_stream(venue, kind)
    for _ in range(ATTEMPTS_MAX):
        try:
            result = append([NewEvent(stream=stream, type=HIT_RECORDED, payload=payload,
                                      schema_version=SCHEMA_VERSION,
                                      occurred_at=settled.occurred_at,
                                      gaming_day=settled.gaming_day)],
                            expected_versions={stream: _version(stream)},
                            idempotency_key=key, request={"op": "hit_check", "hand_id": hand_id},
                            metadata=Metadata(actor="system", source=SOURCE,
                                              causation_id=str(settled.position)))
        except StaleVersion:
            continue
        logger.info("jackpots.hit_recorded", extra={"hit_id": hand_id, "venue": venue})
        return _hit_result(result.events, replayed=result.replayed)
    raise _concurrent()


def record_progressive_hit(*, round_id: str, bet_id: str, player_id: str, venue: str,
                           position: int, hit: Mapping[str, Any] | None = None
                           ) -> HitResult | None:
    """Record a house game's winning progressive bet as a jackpot hit, once per bet.

    Called for `casino.games.signals.progressive_hit` after the round's
    settlement committed (and again on its replays): the hit is appended
    under `jackpots/progressive-hit/<bet_id>`, so a repeat returns it. The
    prize is read from the settled event at `position` in the ledger (its
    bet's `jackpot_hit`), never from the caller: `hit` must agree with it.
    The hit awaits a compliance officer's approval (decision
    jackpots.progressive.hit, 002:L2297, L2478), then `pay_hit` pays it.
    Returns None (nothing written) when the venue's rulebook lists no such
    pool. Raises JackpotError (422) when the event does not show this win.
    """
    key = progressive_hit_key(bet_id)
    recorded = recorded_result(key)
    if recorded is not None:
        return _hit_result(recorded, replayed=True)
    settled = _event(position)
    facts = _progressive_facts(settled, round_id=round_id, bet_id=bet_id,
                               player_id=player_id, venue=venue, hit=hit)
    kind = facts["hit"]["kind"]
    ensure_pool(venue=venue, kind=kind, actor="system", at=settled.occurred_at)
    pool = _pool(venue, kind)
    rulebook = rules.rulebook_in_force(pool.rulebook_id, settled.gaming_day)
    if not pool_config(rulebook, kind).hits_enabled:
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
    stream = pool_stream(venue, kind)
    for _ in range(ATTEMPTS_MAX):
        try:
            result = append([NewEvent(stream=stream, type=HIT_RECORDED, payload=payload,
                                      schema_version=SCHEMA_VERSION,
                                      occurred_at=settled.occurred_at,
                                      gaming_day=settled.gaming_day)],
                            expected_versions={stream: _version(stream)},
                            idempotency_key=key,
                            request={"op": "progressive_hit", "bet_id": bet_id},
                            metadata=Metadata(actor="system", source=SOURCE,
                                              causation_id=str(position)))
        except StaleVersion:
            continue
        logger.info("jackpots.hit_recorded", extra={"hit_id": bet_id, "venue": venue})
        return _hit_result(result.events, replayed=result.replayed)
    raise _concurrent()


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
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return _replay_hit(recorded, HIT_APPROVED, hit_id)
    for _ in range(ATTEMPTS_MAX):
        hit = _hit(hit_id)
        _transition(hit, "approve", Code.HIT_NOT_PENDING)
        _refuse_if_earlier_open(hit)
        pool = hit.pool
        stream = pool_stream(pool.venue, pool.kind)
        version = _version(stream)
        balance = _balance_at_hit(hit)
        if hit.trigger == HitTrigger.PROGRESSIVE:
            payload = _progressive_approval(hit, balance, actor)
        else:
            payload = _bad_beat_approval(hit, balance, actor)
        try:
            result = append([NewEvent(stream=stream, type=HIT_APPROVED, payload=payload,
                                      schema_version=SCHEMA_VERSION)],
                            expected_versions={stream: version},
                            idempotency_key=idempotency_key,
                            request={"op": "approve_hit", "hit_id": hit_id},
                            metadata=Metadata(actor=actor, source=SOURCE))
        except StaleVersion:
            continue
        return _hit_result(_hit_events(result.events), replayed=result.replayed)
    raise _concurrent()


def _bad_beat_approval(hit: JackpotHit, balance: int, actor: str) -> dict[str, Any]:
    """The shares of a bad-beat hit by the closed forms (decision jackpot.payout_formula)."""
    recorded_hit = _event(hit.recorded_position).payload
    rulebook = RulebookVersion.objects.get(rulebook_id=recorded_hit["rulebook"]["id"],
                                           version=recorded_hit["rulebook"]["version"])
    rule = share_rule(rulebook, hit.category)
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


def _progressive_approval(hit: JackpotHit, balance: int, actor: str) -> dict[str, Any]:
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
    recorded = _event(hit.recorded_position).payload
    rulebook = RulebookVersion.objects.get(rulebook_id=recorded["rulebook"]["id"],
                                           version=recorded["rulebook"]["version"])
    cap = rules.win_limit(rulebook)
    capped = max(0, amount - cap.win_minor_max) if cap is not None else 0
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
    later = JackpotRollup.objects.filter(pool_id=hit.pool_id,
                                         position__gt=hit.recorded_position
                                         ).aggregate(total=Sum("amount_minor"))["total"]
    return Account.objects.get(code=hit.pool.pool_account).balance_minor - (later or 0)


def reject_hit(*, hit_id: str, actor: str, reason: str,
               idempotency_key: str | None = None) -> HitResult:
    """Refuse a hit (e.g. a player disclosed cards during the deal, 002:L1810)."""
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return _replay_hit(recorded, HIT_REJECTED, hit_id)
    if not reason.strip():
        raise JackpotError(Code.INVALID_REQUEST, "give the reason for the rejection",
                           status=400, field="reason")
    for _ in range(ATTEMPTS_MAX):
        hit = _hit(hit_id)
        _transition(hit, "reject", Code.HIT_NOT_PENDING)
        stream = pool_stream(hit.pool.venue, hit.pool.kind)
        try:
            result = append([NewEvent(stream=stream, type=HIT_REJECTED,
                                      payload={"hit_id": hit_id, "rejected_by": actor,
                                               "reason": reason},
                                      schema_version=SCHEMA_VERSION)],
                            expected_versions={stream: _version(stream)},
                            idempotency_key=idempotency_key,
                            request={"op": "reject_hit", "hit_id": hit_id, "reason": reason},
                            metadata=Metadata(actor=actor, source=SOURCE))
        except StaleVersion:
            continue
        return _hit_result(_hit_events(result.events), replayed=result.replayed)
    raise _concurrent()


def pay_hit(*, hit_id: str, actor: str, idempotency_key: str | None = None) -> HitResult:
    """Pay an approved hit into the players' gaming accounts; top the base up.

    One append: `hit_paid` (pool +amount, each `player/<id>/account`
    -share) and, when the pool's remainder is below the guaranteed base
    (000:L3185-3186), `base_topped_up` (the casino's expense
    `house/<venue>/jackpot_funding` +top-up, pool -top-up). Pending
    contributions of the current day are not touched: they join the new
    base at the roll-up. Each share is credited up to the gaming account's
    ceiling, the rest to `bank/<venue>/payouts_due` (casino/cage/credits.py);
    a fixed progressive prize larger than the pool is first funded by the
    casino (`base_topped_up`, reason shortfall). Raises JackpotError (404,
    409).
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return _replay_hit(recorded, HIT_PAID, hit_id)
    for _ in range(ATTEMPTS_MAX):
        hit = _hit(hit_id)
        _transition(hit, "pay", Code.HIT_NOT_APPROVED)
        _refuse_if_earlier_open(hit)
        pool = hit.pool
        stream = pool_stream(pool.venue, pool.kind)
        version = _version(stream)
        balance = Account.objects.get(code=pool.pool_account).balance_minor
        amount = hit.amount_minor or 0
        metadata = Metadata(actor=actor, source=SOURCE)
        place = rules.venue(pool.venue)
        owed: dict[str, int] = {}
        for share in hit.shares:
            if share["amount_minor"]:
                owed[share["player_id"]] = owed.get(share["player_id"], 0) + share["amount_minor"]
        # Each share up to the gaming account's ceiling, the rest owed to the
        # player's bank account (decision online.account.balance_overflow,
        # 002:L3068-3070; casino/cage/credits.py).
        credits = credit_players(owed, currency=pool.currency, venue=pool.venue,
                                 on=engine.day_of(clock.now(), place.time_zone,
                                                  place.gaming_day_start),
                                 metadata=metadata)
        events = []
        # A fixed prize larger than the pool: the casino funds the shortfall
        # first, so the pool never goes negative (decision
        # jackpots.progressive.shortfall).
        shortfall = max(0, amount - balance)
        if shortfall:
            events.append(_top_up_event(stream, pool, hit_id, reason="shortfall",
                                        balance_before_minor=balance, amount_minor=shortfall))
        postings = [p for player_id in sorted(credits) for p in credits[player_id].postings]
        if amount:
            postings.insert(0, Posting(pool.pool_account, amount, pool.currency))
        payload = {"hit_id": hit_id, "paid_by": actor, "amount_minor": amount,
                   "shares": hit.shares}
        overflow = overflow_blocks(credits[player_id] for player_id in sorted(credits))
        if overflow:
            payload[OVERFLOW_KEY] = overflow
        events.append(NewEvent(stream=stream, type=HIT_PAID, schema_version=SCHEMA_VERSION,
                               payload=payload, postings=tuple(postings)))
        remainder = balance + shortfall - amount
        top_up = max(0, pool.base_guarantee_minor - remainder)
        if top_up:
            events.append(_top_up_event(stream, pool, hit_id, reason="base_guarantee",
                                        balance_before_minor=remainder, amount_minor=top_up))
        try:
            result = _append_opening(
                events, sorted(owed), place=place, expected_versions={stream: version},
                idempotency_key=idempotency_key, request={"op": "pay_hit", "hit_id": hit_id},
                metadata=metadata)
        except (StaleVersion, BalanceMaxExceeded):
            # BalanceMaxExceeded: a deposit committed after the ceiling split
            # was read; split again from a new read.
            continue
        return _hit_result(_hit_events(result.events), replayed=result.replayed)
    raise _concurrent()


def _top_up_event(stream: str, pool: JackpotPool, hit_id: str, *, reason: str,
                  balance_before_minor: int, amount_minor: int) -> NewEvent:
    """The casino's funding of a pool: to its guaranteed base, or a fixed prize's shortfall."""
    return NewEvent(
        stream=stream, type=BASE_TOPPED_UP, schema_version=SCHEMA_VERSION,
        payload={"hit_id": hit_id, "reason": reason,
                 "base_guarantee_minor": pool.base_guarantee_minor,
                 "balance_before_minor": balance_before_minor, "amount_minor": amount_minor},
        postings=(Posting(pool.funding_account, amount_minor, pool.currency),
                  Posting(pool.pool_account, -amount_minor, pool.currency)))


def _append_opening(events: list[NewEvent], player_ids: Sequence[str], *, place: Venue,
                    **arguments):
    """Append, first opening any gaming account a share goes to (cage terms)."""
    codes = [gaming_account(pid) for pid in player_ids]
    missing = [c for c in codes if not Account.objects.filter(code=c).exists()]
    if not missing:
        return append(events, **arguments)
    with transaction.atomic():
        for code in missing:
            open_account(code=code, type=AccountType.LIABILITY, currency=place.currency,
                         name=f"Gaming account of player {code.split('/')[1]}",
                         must_not_go_negative=True,
                         balance_max_minor=account_ceiling(clock.now().date()),
                         metadata=arguments.get("metadata"))
        return append(events, **arguments)


def _hit(hit_id: str) -> JackpotHit:
    hit = JackpotHit.objects.select_related("pool").filter(id=hit_id).first()
    if hit is None:
        raise JackpotError(Code.UNKNOWN_HIT, f"no jackpot hit {hit_id!r}", status=404,
                           hit_id=hit_id)
    return hit


def _transition(hit: JackpotHit, name: str, code: Code) -> None:
    """Run the django-fsm transition on the loaded row (never saved: events set state)."""
    from django_fsm import TransitionNotAllowed

    try:
        getattr(hit, name)()
    except TransitionNotAllowed:
        raise JackpotError(code, f"hit {hit.id} is {hit.state}; cannot {name} it", status=409,
                           hit_id=hit.id, state=hit.state) from None


def _refuse_if_earlier_open(hit: JackpotHit) -> None:
    """Near-simultaneous hits go in the order their hands started (000:L2854-2861)."""
    # Hits of one instant (two progressive boxes of one round) go in the
    # order they were recorded (decision jackpots.progressive.order).
    earlier = (JackpotHit.objects.filter(pool_id=hit.pool_id, state__in=OPEN_HIT_STATES)
               .filter(Q(hand_started_at__lt=hit.hand_started_at)
                       | Q(hand_started_at=hit.hand_started_at,
                           recorded_position__lt=hit.recorded_position))
               .exclude(id=hit.id).order_by("hand_started_at", "recorded_position").first())
    if earlier is not None:
        raise JackpotError(Code.EARLIER_HIT_OPEN,
                           f"hit {earlier.id} started earlier and is still {earlier.state};"
                           " it is settled first (000:L2854-2861)", status=409,
                           hit_id=hit.id, earlier_hit_id=earlier.id)


def _version(stream: str) -> int:
    return Stream.objects.filter(name=stream).values_list("version", flat=True).first() or 0


def _concurrent() -> JackpotError:
    return JackpotError(Code.CONCURRENT_UPDATE, "the pool changed while deciding; try again",
                        status=409)


def _hit_events(events: Sequence[RecordedEvent]) -> list[RecordedEvent]:
    return list(events)


def _replay_hit(events: Sequence[RecordedEvent], event_type: str, hit_id: str) -> HitResult:
    from ledger.errors import IdempotencyConflict

    if events[0].type != event_type or events[0].payload.get("hit_id") != hit_id:
        raise IdempotencyConflict(
            "this idempotency key was already used for a different request",
            idempotency_key=events[0].idempotency_key)
    return _hit_result(events, replayed=True)


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
