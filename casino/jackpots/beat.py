"""The beat schedule of the jackpots: one entry per pool, in its venue's zone.

Each pool gets the entry `jackpots.rollup.<venue>.<kind>`, due when a
gaming day of its venue has ended (plus commands.ROLLUP_DELAY): at 06:05
Helsinki or Tallinn time for the poker rooms, computed by zoneinfo from the
venue's zone and day start (engine.days), so the 23- and 25-hour days at
the DST changes fall due at the right instant, not an hour early or late as
a fixed-offset crontab would. The task (tasks.rollup_pool) rolls up every
closed day not yet rolled, in order, so a beat that was down catches up.

`JackpotScheduler` builds these entries from the pools in the database when
beat starts and refreshes them every minute (new pools), keeping each
entry's last run. A new entry starts from the pool's last rolled-up day, so
days missed before beat started are due at once. The fixed entry
`jackpots.rollup-all` (every 15 minutes) opens pools for pending accounts
poker opened and queues every pool's roll-up, a safety net that costs
nothing when all is rolled up.

Run exactly one beat (compose.yaml does): `celery -A casino beat`
(casino.celery sets this scheduler).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Any

from celery import beat, schedules

from .engine import days

logger = logging.getLogger(__name__)

REFRESH_SECONDS = 60
ROLLUP_ALL_EVERY = dt.timedelta(minutes=15)
UTC = dt.timezone.utc


class GamingDayEnd(schedules.BaseSchedule):
    """Due once after each end of a venue's gaming day (plus a delay)."""

    def __init__(self, time_zone: str, day_start: dt.time,
                 delay: dt.timedelta = dt.timedelta(minutes=5), nowfun=None, app=None) -> None:
        super().__init__(nowfun=nowfun, app=app)
        self.time_zone = time_zone
        self.day_start = day_start
        self.delay = delay

    def now(self) -> dt.datetime:
        moment = self.nowfun() if self.nowfun else dt.datetime.now(UTC)
        return _aware(moment)

    def next_run_after(self, moment: dt.datetime) -> dt.datetime:
        return days.next_rollup_at(_aware(moment), self.time_zone, self.day_start, self.delay)

    def remaining_estimate(self, last_run_at: dt.datetime) -> dt.timedelta:
        return self.next_run_after(last_run_at) - self.now()

    def is_due(self, last_run_at: dt.datetime) -> schedules.schedstate:
        now = self.now()
        due_at = self.next_run_after(last_run_at)
        if now >= due_at:
            return schedules.schedstate(True, (self.next_run_after(now) - now).total_seconds())
        return schedules.schedstate(False, (due_at - now).total_seconds())

    def __reduce__(self):
        return self.__class__, (self.time_zone, self.day_start, self.delay, self.nowfun)

    def __repr__(self) -> str:
        return f"<gaming day end: {self.day_start} {self.time_zone} + {self.delay}>"

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, GamingDayEnd):
            return (self.time_zone, self.day_start, self.delay) == (
                other.time_zone, other.day_start, other.delay)
        return NotImplemented


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def pool_entries() -> dict[str, dict[str, Any]]:
    """The beat entries of every pool, and the fixed catch-all entry."""
    from casino.rules.models import Venue

    from .commands import ROLLUP_DELAY
    from .models import JackpotPool

    entries: dict[str, dict[str, Any]] = {
        "jackpots.rollup-all": {"task": "casino.jackpots.tasks.rollup_all",
                                "schedule": ROLLUP_ALL_EVERY},
    }
    venues = {v.code: v for v in Venue.objects.all()}
    for pool in JackpotPool.objects.all():
        venue = venues.get(pool.venue)
        if venue is None:
            continue
        last = pool.last_rolled_day or pool.first_day - dt.timedelta(days=1)
        entries[f"jackpots.rollup.{pool.venue}.{pool.kind}"] = {
            "task": "casino.jackpots.tasks.rollup_pool",
            "schedule": GamingDayEnd(venue.time_zone, venue.gaming_day_start, ROLLUP_DELAY),
            "args": (pool.venue, pool.kind),
            "last_run_at": days.day_end_at(last, venue.time_zone, venue.gaming_day_start)
            + ROLLUP_DELAY,
        }
    return entries


class JackpotScheduler(beat.Scheduler):
    """Beat's in-memory scheduler plus one entry per jackpot pool.

    Nothing needs persisting between beat runs: the database knows which
    days are rolled up, and a fresh entry starts from there.
    """

    def setup_schedule(self) -> None:
        self._refreshed_at = 0.0
        self._refresh()

    def _refresh(self) -> None:
        import django
        from django.apps import apps
        from django.db import connection

        if not apps.ready:
            django.setup()
        entries = dict(self.app.conf.beat_schedule or {})
        try:
            entries.update(pool_entries())
        finally:
            if not connection.in_atomic_block:
                connection.close()  # beat sleeps between ticks; hold no idle connection
        self.merge_inplace(entries)
        self._refreshed_at = time.monotonic()

    def tick(self, *args, **kwargs):
        if time.monotonic() - self._refreshed_at > REFRESH_SECONDS:
            try:
                self._refresh()
            except Exception:  # noqa: BLE001 - keep beating with the entries known
                logger.exception("jackpots.beat_refresh_failed")
        return super().tick(*args, **kwargs)
