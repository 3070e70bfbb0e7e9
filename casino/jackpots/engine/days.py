"""Gaming days in a venue's time zone: when each ends, which are closed.

Pure: no Django. A gaming day D runs from D at the venue's day start (e.g.
06:00, decision `gaming_day.boundary`) to D + 1 at the same wall-clock time,
in the venue's zone. At the changes of daylight saving time that is 23 or 25
hours (Europe/Helsinki and Europe/Tallinn: the last Sundays of March and
October); zoneinfo does the arithmetic, so no day is lost or doubled.

The roll-up of D may run once D has ended plus a settling delay (hands
settling right at the boundary have committed by then).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

UTC = dt.timezone.utc


def day_of(moment: dt.datetime, zone: str, day_start: dt.time) -> dt.date:
    """The gaming day containing an aware moment (casino.compliance venue_day)."""
    local = moment.astimezone(ZoneInfo(zone))
    return (local - dt.timedelta(hours=day_start.hour, minutes=day_start.minute)).date()


def day_start_at(day: dt.date, zone: str, day_start: dt.time) -> dt.datetime:
    """The instant (UTC) a gaming day begins.

    A wall-clock start inside a spring-forward gap (none for 06:00 in the
    zones used) is taken as the instant after the gap, zoneinfo's fold=0.
    """
    local = dt.datetime.combine(day, day_start, tzinfo=ZoneInfo(zone))
    return local.astimezone(UTC)


def day_end_at(day: dt.date, zone: str, day_start: dt.time) -> dt.datetime:
    """The instant (UTC) a gaming day ends: the next day's start."""
    return day_start_at(day + dt.timedelta(days=1), zone, day_start)


def day_length(day: dt.date, zone: str, day_start: dt.time) -> dt.timedelta:
    return day_end_at(day, zone, day_start) - day_start_at(day, zone, day_start)


def last_closed_day(now: dt.datetime, zone: str, day_start: dt.time,
                    delay: dt.timedelta = dt.timedelta(0)) -> dt.date:
    """The latest gaming day that ended at least `delay` before `now`."""
    return day_of(now - delay, zone, day_start) - dt.timedelta(days=1)


def closed_days_after(after: dt.date, now: dt.datetime, zone: str, day_start: dt.time,
                      delay: dt.timedelta = dt.timedelta(0), days_max: int = 400
                      ) -> list[dt.date]:
    """The closed gaming days after `after`, oldest first (at most `days_max`)."""
    last = last_closed_day(now, zone, day_start, delay)
    count = min((last - after).days, days_max)
    return [after + dt.timedelta(days=i) for i in range(1, count + 1)]


def next_rollup_at(after: dt.datetime, zone: str, day_start: dt.time,
                   delay: dt.timedelta = dt.timedelta(0)) -> dt.datetime:
    """The first roll-up instant (a day's end plus delay) strictly after `after`."""
    day = day_of(after - delay, zone, day_start)
    moment = day_end_at(day, zone, day_start) + delay
    if moment <= after:  # pragma: no cover - day_of puts `after` inside `day`
        moment = day_end_at(day + dt.timedelta(days=1), zone, day_start) + delay
    return moment
