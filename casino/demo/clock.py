"""The demo's business time: every step runs at a fixed moment, never the wall clock.

Commands take `at=`; the demo passes it everywhere. A few write paths have
no such parameter (a Celery task, the jackpot hit check behind poker's
signal, `ensure_pool`'s default), and read `casino.clock.now()`. While a
step runs, `business_time` points that clock at the step's moment, so those
paths see the demo's evening too, and a run on any date writes the same
events. The ledger's own `recorded_at` stays the database's.
"""

from __future__ import annotations

import datetime as dt
from contextlib import contextmanager
from typing import Iterator
from zoneinfo import ZoneInfo

from casino import clock

HELSINKI = ZoneInfo("Europe/Helsinki")


def helsinki(day: dt.date, hour: int, minute: int = 0, *, next_day: bool = False
             ) -> dt.datetime:
    """A moment of a demo day, Helsinki time (after midnight with `next_day`)."""
    date = day + dt.timedelta(days=1) if next_day else day
    return dt.datetime.combine(date, dt.time(hour, minute), HELSINKI)


@contextmanager
def business_time(at: dt.datetime) -> Iterator[dt.datetime]:
    """Pin `casino.clock.now()` to `at` for the duration of the block."""
    if at.tzinfo is None:
        raise ValueError("business time must be timezone-aware")
    original = clock.now
    clock.now = lambda: at
    try:
        yield at
    finally:
        clock.now = original
