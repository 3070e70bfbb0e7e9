"""The beat schedule: one entry per pool, due at its venue's gaming-day end.

The real worker and beat run in tests/integration/test_jackpot_worker.py;
here the schedule's arithmetic and the scheduler's entries are checked in
process.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from casino.celery import app
from casino.jackpots import tasks
from casino.jackpots.beat import GamingDayEnd, JackpotScheduler, pool_entries
from casino.jackpots.models import JackpotPool, JackpotRollup
from tests.casino.jackpots.conftest import contribute, pool_at

UTC = dt.timezone.utc
D = dt.date
SIX = dt.time(6)


def _at(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize("zone", ["Europe/Helsinki", "Europe/Tallinn"])
@pytest.mark.parametrize("last_run, not_yet, due", [
    # Spring: the day of 28 March ends at 06:00 EEST = 03:00 UTC (23 hours).
    pytest.param(_at(2026, 3, 28, 4, 5), _at(2026, 3, 29, 3, 4), _at(2026, 3, 29, 3, 5),
                 id="spring"),
    # Autumn: the day of 24 October ends at 06:00 EET = 04:00 UTC (25 hours).
    pytest.param(_at(2026, 10, 24, 3, 5), _at(2026, 10, 25, 4, 4), _at(2026, 10, 25, 4, 5),
                 id="autumn"),
])
def test_gaming_day_end_is_due_at_0605_local_across_dst(zone, last_run, not_yet, due):
    """Due five minutes after 06:00 local, after a 23- or 25-hour day, and
    not a minute before; then next due a day later in local time."""
    schedule = GamingDayEnd(zone, SIX, nowfun=lambda: not_yet)
    assert schedule.is_due(last_run).is_due is False
    assert schedule.is_due(last_run).next == 60
    schedule = GamingDayEnd(zone, SIX, nowfun=lambda: due)
    state = schedule.is_due(last_run)
    assert state.is_due is True
    next_local = (due + dt.timedelta(seconds=state.next)).astimezone(ZoneInfo(zone))
    assert (next_local.hour, next_local.minute) == (6, 5)
    assert state.next in (23 * 3600, 24 * 3600, 25 * 3600)


def test_scheduler_has_one_entry_per_pool_in_its_venue_zone(venues):
    """Pools of Helsinki and Tallinn each get an entry running rollup_pool;
    an entry starts from the pool's last rolled day, so missed days are due
    at once."""
    pool_at("poker-helsinki", D(2026, 6, 14))
    pool_at("olympic-tallinn", D(2026, 6, 16), "Europe/Tallinn")
    entries = pool_entries()
    helsinki = entries["jackpots.rollup.poker-helsinki.bad_beat"]
    tallinn = entries["jackpots.rollup.olympic-tallinn.bad_beat"]
    assert helsinki["task"] == "casino.jackpots.tasks.rollup_pool"
    assert helsinki["args"] == ("poker-helsinki", "bad_beat")
    assert helsinki["schedule"] == GamingDayEnd("Europe/Helsinki", SIX)
    assert tallinn["schedule"] == GamingDayEnd("Europe/Tallinn", SIX)
    # Helsinki's pool starts on the 14th: the roll-up of the 13th's end is
    # its last run, so the ends of the 14th and 15th are overdue.
    assert helsinki["last_run_at"] == _at(2026, 6, 14, 3, 5)
    assert "jackpots.rollup-all" in entries

    scheduler = JackpotScheduler(app=app, lazy=True)
    scheduler.setup_schedule()
    assert "jackpots.rollup.poker-helsinki.bad_beat" in scheduler.schedule
    now = _at(2026, 6, 16, 9, 0)
    entry = scheduler.schedule["jackpots.rollup.poker-helsinki.bad_beat"]
    entry.schedule.nowfun = lambda: now
    assert entry.is_due().is_due


def test_tasks_roll_up_closed_days_eagerly_and_repeat_harmlessly(venues):
    """With no broker the tasks run in process (settings: eager); the second
    run posts nothing."""
    pool_at("poker-helsinki", D(2026, 6, 14))
    contribute("poker-helsinki", D(2026, 6, 14), [100, 100])
    first = tasks.rollup_pool.delay("poker-helsinki", "bad_beat").get()
    assert [(r["gaming_day"], r["amount_minor"]) for r in first] == [
        ("2026-06-14", 200), ("2026-06-15", 0)]
    assert tasks.rollup_pool.delay("poker-helsinki", "bad_beat").get() == []
    again = tasks.rollup_day.delay("poker-helsinki", "bad_beat", "2026-06-14").get()
    assert again["replayed"] is True
    assert JackpotRollup.objects.count() == 2


def test_rollup_all_opens_pools_for_pending_accounts_poker_opened(venues):
    contribute("olympic-tallinn", D(2026, 6, 15), [100])
    assert tasks.rollup_all.delay().get() == ["olympic-tallinn/bad_beat"]
    assert JackpotPool.objects.get(key="olympic-tallinn/bad_beat").rolled_up_minor == 100


def test_setup_jackpots_opens_the_pools_the_rulebooks_name(venues):
    """Veikkaus room, RAY casino and Tallinn have jackpot figures; the halls
    and online venues do not. The RAY casino also lists its THB and UTH
    progressive pools (002:L2297, L2478). Running it twice opens nothing more."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("setup_jackpots", stdout=out)
    assert sorted(JackpotPool.objects.values_list("key", flat=True)) == [
        "casino-helsinki/bad_beat", "casino-helsinki/holdem_bonus_progressive",
        "casino-helsinki/oasis_progressive",
        "casino-helsinki/ultimate_holdem_progressive", "olympic-tallinn/bad_beat",
        "poker-helsinki/bad_beat"]
    call_command("setup_jackpots", "--rollup", stdout=out)
    assert "poker-helsinki/bad_beat: exists" in out.getvalue()
