"""Reads from a streaming replica when it is fresh enough, else from the primary.

A `replica` database alias (settings: DATABASE_REPLICA_URL) names a hot
standby of the primary. Reports, exports' lists, admin changelists and the
event feed run their reads inside `reading_from_replica()`; everything else
(every write, everything the command runner and the compliance pipeline
read, authentication) keeps to the primary, untouched.

The choice is made once per scope, when it opens (`read_alias`):

- no replica configured: the primary (the default set-up changes nothing);
- already inside a transaction on the primary (the write path, a test's
  transaction): the primary, which alone has its uncommitted rows;
- the replica's replay lag above settings.CASINO_REPLICA_LAG_MAX_S, or the
  replica unreachable or no longer in recovery: the primary;
- otherwise the replica.

The lag is an upper bound on how stale the replica is: zero when it has
replayed all the WAL the primary had written (`pg_current_wal_lsn()`,
read on the primary first), else the age of the newest primary position
it has replayed, or the time since the last transaction it replayed
committed, whichever is smaller (`measure_lag_seconds`). It
is cached per process for CASINO_REPLICA_LAG_CACHE_S, so a busy feed costs
one lag query a second, not one per request.

Inside a replica scope the thread's `default` connection *is* the replica's
(swapped back when the scope ends): the ledger's reads use the `default`
connection directly, in SQL, not through a router, and must see the same
snapshot as the ORM's. A write attempted inside the scope reaches the
standby and is refused there ("cannot execute ... in a read-only
transaction"): the scope fails closed rather than writing anywhere. The
router (settings.DATABASE_ROUTERS) sends the ORM's reads to the alias
chosen, keeps migrations off the replica, and saves a row read from the
replica on `default`; outside a scope it has no opinion.
"""

from __future__ import annotations

import time
from collections import deque
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

REPLICA = "replica"

# The alias the current scope reads from; None outside every scope.
_reading: ContextVar[str | None] = ContextVar("casino_replica_reading", default=None)
# Inside a replica scope: the thread's own primary connection, for on_primary().
_primary: ContextVar[object | None] = ContextVar("casino_replica_primary", default=None)
T = TypeVar("T")
# alias -> (time.monotonic() when measured, lag in seconds or None if unusable)
_lag_cache: dict[str, tuple[float, float | None]] = {}

PRIMARY_LSN_SQL = "SELECT pg_current_wal_lsn()::text"
REPLICA_SQL = (
    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,"
    " COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()),"
    " 'Infinity')::float8"
)
# The primary's positions remembered per process (one per measurement, so
# one a CASINO_REPLICA_LAG_CACHE_S): two minutes at the default of 1 s.
LSN_SAMPLES_MAX = 120
# alias -> [(time.monotonic(), primary position)], oldest first
_lsn_samples: dict[str, deque[tuple[float, int]]] = {}


def _lsn(text: str | None) -> int | None:
    """Return a pg_lsn ('16/B374D848') as an integer."""
    if text is None:
        return None
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


def replica_configured(alias: str = REPLICA) -> bool:
    """Return whether a replica alias is configured."""
    return alias in connections.settings


def measure_lag_seconds(alias: str = REPLICA) -> float | None:
    """Measure how stale the replica may be, in seconds, now; None when it is unusable.

    An upper bound on the time since the primary was where the replica is:
    - zero when the replica has replayed up to the primary's position read
      just before (`pg_current_wal_lsn()`);
    - else the age of the newest remembered primary position the replica
      has replayed (each measurement remembers one), or, if smaller or
      none is, the time since the last transaction the replica replayed
      committed (`now() - pg_last_xact_replay_timestamp()`, on the replica).
    Against the primary's position, not what the replica received: a
    standby cut off from its primary has replayed all it received, yet
    falls behind as soon as the primary writes. Not the commit time
    alone either: WAL written without a commit (a long transaction, a
    test's) would count as lag on a replica that has it all. Unusable:
    unreachable, or not in recovery (promoted, or a primary named by
    mistake): its data may have left the primary's history.
    """
    primary = _primary.get() or connections[DEFAULT_DB_ALIAS]
    with primary.cursor() as cursor:
        cursor.execute(PRIMARY_LSN_SQL)
        primary_lsn = _lsn(cursor.fetchone()[0])
    now = time.monotonic()
    samples = _lsn_samples.setdefault(alias, deque(maxlen=LSN_SAMPLES_MAX))
    samples.append((now, primary_lsn))
    connection = connections[alias]
    try:
        with connection.cursor() as cursor:
            cursor.execute(REPLICA_SQL)
            in_recovery, replay_text, since_commit = cursor.fetchone()
    except DatabaseError:
        connection.close()      # a fresh connection next time
        return None
    replay_lsn = _lsn(replay_text)
    if not in_recovery or replay_lsn is None:
        return None
    if replay_lsn >= primary_lsn:
        return 0.0
    lag = max(0.0, float(since_commit))
    for sampled_at, sampled_lsn in reversed(samples):
        if sampled_lsn <= replay_lsn:
            lag = min(lag, now - sampled_at)
            break
    return lag


def lag_seconds(alias: str = REPLICA) -> float | None:
    """Return the replica's lag, measured at most CASINO_REPLICA_LAG_CACHE_S ago."""
    now = time.monotonic()
    cached = _lag_cache.get(alias)
    if cached is not None and now - cached[0] < settings.CASINO_REPLICA_LAG_CACHE_S:
        return cached[1]
    lag = measure_lag_seconds(alias)
    _lag_cache[alias] = (time.monotonic(), lag)
    return lag


def forget_lag() -> None:
    """Drop the cached lag measurements and positions (tests; after a failover)."""
    _lag_cache.clear()
    _lsn_samples.clear()


def read_alias() -> str:
    """Return the alias a report, export, admin list or the feed reads from now."""
    if not replica_configured():
        return DEFAULT_DB_ALIAS
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    lag = lag_seconds()
    if lag is None or lag > settings.CASINO_REPLICA_LAG_MAX_S:
        return DEFAULT_DB_ALIAS
    return REPLICA


def current_alias() -> str | None:
    """Return the alias of the enclosing replica scope, None outside one."""
    return _reading.get()


@contextmanager
def reading_from_replica() -> Iterator[str]:
    """Read from the replica inside this block when its lag is within the bound.

    Yields the alias chosen (`replica` or `default`). A nested scope keeps
    the outer one's choice. Only for code that reads: a write inside a
    replica scope is refused by the standby (see `on_primary`).
    """
    outer = _reading.get()
    if outer is not None:
        yield outer
        return
    with reading_in(read_alias()) as alias:
        yield alias


@contextmanager
def reading_in(alias: str) -> Iterator[str]:
    """Read from `alias` (a choice `reading_from_replica` made before) inside this block.

    For work that goes on after the scope that chose closed, such as a
    streamed export: it keeps reading where its first part read. Inside a
    transaction on the primary it stays there, whatever `alias` says.
    """
    outer = _reading.get()
    if outer is not None:
        yield outer
        return
    if alias == REPLICA and (not replica_configured()
                             or connections[DEFAULT_DB_ALIAS].in_atomic_block):
        alias = DEFAULT_DB_ALIAS
    token = _reading.set(alias)
    if alias == DEFAULT_DB_ALIAS:
        try:
            yield alias
        finally:
            _reading.reset(token)
        return
    primary = connections[DEFAULT_DB_ALIAS]
    primary_token = _primary.set(primary)
    connections[DEFAULT_DB_ALIAS] = connections[REPLICA]
    try:
        yield alias
    finally:
        connections[DEFAULT_DB_ALIAS] = primary
        _primary.reset(primary_token)
        _reading.reset(token)


@contextmanager
def on_primary() -> Iterator[None]:
    """Run this block on the primary, inside a replica scope or not.

    For the one write that belongs to a read: a journal export records
    itself (`reports.journal_exported`) after reading the journal.
    """
    primary = _primary.get()
    if _reading.get() != REPLICA or primary is None:
        yield
        return
    replica = connections[DEFAULT_DB_ALIAS]
    token = _reading.set(None)
    primary_token = _primary.set(None)
    connections[DEFAULT_DB_ALIAS] = primary
    try:
        yield
    finally:
        connections[DEFAULT_DB_ALIAS] = replica
        _primary.reset(primary_token)
        _reading.reset(token)


def streaming_in(alias: str, chunks: Iterable[T]) -> Iterator[T]:
    """Yield `chunks`, producing each inside `reading_in(alias)`.

    A streamed response is produced after its view has returned, by the
    server; each step opens the scope again (and closes it before the
    chunk goes out), so the rows keep coming from where the view read.
    """
    iterator = iter(chunks)
    while True:
        with reading_in(alias):
            try:
                chunk = next(iterator)
            except StopIteration:
                return
        yield chunk


class ReplicaRouter:
    """Database router: the ORM reads from the scope's alias; writes and migrations on `default`."""

    def db_for_read(self, model, **hints) -> str | None:
        return _reading.get()

    def db_for_write(self, model, **hints) -> str | None:
        # A row read from the replica is saved, if ever, on the primary;
        # anything else is left to the next router or Django's default.
        instance = hints.get("instance")
        if instance is not None and getattr(instance._state, "db", None) == REPLICA:
            return DEFAULT_DB_ALIAS
        return None

    def allow_relation(self, first, second, **hints) -> bool | None:
        # Both aliases hold the same data: a row read from the replica may
        # be related to one read from the primary.
        return True

    def allow_migrate(self, db: str, app_label: str, model_name=None, **hints) -> bool | None:
        return False if db == REPLICA else None
