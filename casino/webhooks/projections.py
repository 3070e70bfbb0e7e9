"""The outbox: deliveries inserted in the transaction that appends the events.

`OutboxProjection` is registered with the ledger's projections, so the
writer calls it inside the append transaction: the events and their
deliveries commit together or not at all (no event without its delivery
rows, no delivery of an event that rolled back). It stays cheap on the
write path: the active subscriptions are cached per process (refreshed
every SUBSCRIPTIONS_CACHE_SECONDS, at once after a change in this
process), matching is in memory, and one INSERT ... SELECT FROM unnest
writes every delivery of the batch. After commit the subscriptions that
got rows are handed to a sender thread that queues their Celery task
(`kick`), so the writer never waits on the broker or on a receiver.

It is not a projection of the log: a rebuild neither resets nor refills
it (`reset` and `replay` do nothing, `tables` is empty), since its rows
record what was sent. A subscription made in another process is seen here
within SUBSCRIPTIONS_CACHE_SECONDS; the sender backfills the events of
that window before it sends anything (sending.backfill), so none is lost.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Sequence

from django.conf import settings
from django.db import connection, transaction

from .reach import Reach, reach_of

logger = logging.getLogger(__name__)

# Decision (issue 18): a subscription made in another process is matched
# by this one's writer at most this long after; the sender waits this long
# before backfilling a new subscription's first events.
SUBSCRIPTIONS_CACHE_SECONDS = 2.0

_cache: tuple[float, list[Reach]] | None = None
_cache_lock = threading.Lock()


def cache_seconds() -> float:
    return float(getattr(settings, "WEBHOOKS_SUBSCRIPTIONS_CACHE_SECONDS",
                         SUBSCRIPTIONS_CACHE_SECONDS))


def invalidate() -> None:
    """Forget the cached subscriptions (after a change made in this process)."""
    global _cache
    with _cache_lock:
        _cache = None


def active_reaches() -> list[Reach]:
    global _cache
    now = time.monotonic()
    with _cache_lock:
        if _cache is not None and now - _cache[0] < cache_seconds():
            return _cache[1]
    from .models import Subscription

    reaches = [reach_of(subscription) for subscription in
               Subscription.objects.filter(active=True).select_related("owner", "key")]
    with _cache_lock:
        _cache = (now, reaches)
    return reaches


class OutboxProjection:
    """Insert one delivery per (matching subscription, event); not rebuilt."""

    name = "webhooks.outbox"
    event_types = None
    tables: tuple[str, ...] = ()

    def reset(self) -> None:
        """Nothing: the outbox is not recomputed from the log."""

    def replay(self, events: Sequence) -> None:
        """Nothing: a rebuild sends nothing again."""

    def apply(self, events: Sequence) -> None:
        reaches = active_reaches()
        if not reaches:
            return
        subscription_ids, positions, streams, types = [], [], [], []
        for reach in reaches:
            for event in reach.select(events):
                subscription_ids.append(reach.subscription_id)
                positions.append(event.position)
                streams.append(event.stream)
                types.append(event.type)
        if not positions:
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO webhooks_delivery (subscription_id, position, stream, event_type,"
                " status, attempts, next_attempt_at, last_error, created_at)"
                " SELECT u.s, u.p, u.st, u.t, 'pending', 0, now(), '', now()"
                " FROM unnest(%s::bigint[], %s::bigint[], %s::text[], %s::text[])"
                " AS u(s, p, st, t)"
                # a subscription deactivated or gone since the cache was read gets none
                " JOIN webhooks_subscription AS w ON w.id = u.s AND w.active"
                " ON CONFLICT (subscription_id, position) DO NOTHING",
                [subscription_ids, positions, streams, types],
            )
        touched = sorted(set(subscription_ids))
        transaction.on_commit(lambda: kick(touched))


# --- after commit: queue the senders without holding up the writer ----------

_kicks: queue.SimpleQueue = queue.SimpleQueue()
_kicker: threading.Thread | None = None
_kicker_lock = threading.Lock()


def kick(subscription_ids: Sequence[int]) -> None:
    """Have the subscriptions' deliveries sent soon (a Celery task each)."""
    if not getattr(settings, "WEBHOOKS_KICK", True):
        return      # the beat's sweep sends them (tasks.sweep)
    global _kicker
    with _kicker_lock:
        if _kicker is None or not _kicker.is_alive():
            _kicker = threading.Thread(target=_kick_loop, name="webhooks-kicker", daemon=True)
            _kicker.start()
    _kicks.put(list(subscription_ids))


def _kick_loop() -> None:
    from django.db import connections

    from .tasks import deliver

    while True:
        ids = set(_kicks.get())
        while True:
            try:
                ids.update(_kicks.get_nowait())
            except queue.Empty:
                break
        for subscription_id in sorted(ids):
            try:
                deliver.delay(subscription_id)
            except Exception:  # noqa: BLE001 - the sweep sends what a lost kick left
                logger.exception("webhooks.kick_failed", extra={"subscription": subscription_id})
        connections.close_all()
