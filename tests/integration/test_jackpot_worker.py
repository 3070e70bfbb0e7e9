"""The daily jackpot roll-up on a real Celery worker and beat, real broker.

A worker and beat (`celery -A casino worker` / `beat`, the project's
JackpotScheduler) run as subprocesses against this test's database and an
embedded Redis. Days are relative to the real clock, as the processes'
business clock is the real one. Rules: contributions join the jackpot at
the end of the gaming day (000:L2872-2873); the roll-up of a pool and day
happens exactly once (casino/jackpots/commands.py).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import psycopg
import pytest
from django.db import connection

from casino.jackpots.accounts import pending_account, pool_account
from casino.jackpots.commands import ROLLUP_DELAY
from casino.jackpots.engine import last_closed_day
from casino.jackpots.events import CONTRIBUTIONS_ROLLED_UP
from ledger import verify_chain
from ledger.models import Event
from tests.casino.jackpots.conftest import balance, contribute
from tests.integration.conftest import wait_for

pytestmark = [pytest.mark.slow]

WORKER = ("worker", "-c", "2", "--pool", "prefork", "-l", "info", "--without-gossip",
          "--without-mingle", "--without-heartbeat")
SIX = dt.time(6)


def _rollups(venue: str) -> dict[str, list[dict]]:
    by_day: dict[str, list[dict]] = {}
    for event in Event.objects.filter(type=CONTRIBUTIONS_ROLLED_UP,
                                      stream=f"jackpot/{venue}/bad_beat").order_by("position"):
        by_day.setdefault(event.payload["gaming_day"], []).append(
            {**event.payload, "position": event.position})
    return by_day


def _pool(venue: str, first_day: dt.date, zone: str) -> None:
    from casino.jackpots.commands import ensure_pool

    ensure_pool(venue=venue, at=dt.datetime.combine(first_day, dt.time(12),
                                                    tzinfo=ZoneInfo(zone)))


def _closed(zone: str) -> dt.date:
    return last_closed_day(dt.datetime.now(dt.timezone.utc), zone, SIX, ROLLUP_DELAY)


def test_beat_schedules_the_rollup_a_rerun_posts_nothing_and_a_killed_worker_rolls_once(
        venues, celery_processes, celery_client):
    """1. beat finds the pool's three closed days and the worker rolls them up
    in order; 2. the task again, three times at once, and a single day three
    times at once, post nothing; 3. a worker killed (SIGKILL) in the middle
    of a roll-up, its event inserted but not committed, leaves nothing, and
    after a restart the redelivered task rolls each day up exactly once."""
    procs = celery_processes
    last = _closed("Europe/Helsinki")
    days = [last - dt.timedelta(days=2), last - dt.timedelta(days=1), last]
    _pool("poker-helsinki", days[0], "Europe/Helsinki")
    for day, count in zip(days, (3, 2, 1)):
        contribute("poker-helsinki", day, [100] * count)
    contribute("poker-helsinki", last + dt.timedelta(days=1), [100])   # today: stays pending

    # 1. The beat-scheduled roll-up.
    procs.start("worker-a", *WORKER, "-n", "a@%h")
    procs.start("beat", "beat", "-l", "info", "--max-interval", "1")
    logs = [procs.log("worker-a"), procs.log("beat")]
    wait_for(lambda: last.isoformat() in _rollups("poker-helsinki"), timeout=90,
             what="the beat-scheduled roll-up", logs=logs)
    rolled = _rollups("poker-helsinki")
    assert [rolled[d.isoformat()][0]["amount_minor"] for d in days] == [300, 200, 100]
    assert [rolled[d.isoformat()][0]["contributions"] for d in days] == [3, 2, 1]
    positions = [rolled[d.isoformat()][0]["position"] for d in days]
    assert positions == sorted(positions)
    assert "jackpots.rollup.poker-helsinki.bad_beat" in procs.log("beat").read_text()
    assert balance(pool_account("poker-helsinki", "bad_beat")) == 600
    assert balance(pending_account("poker-helsinki", "bad_beat")) == 100

    # 2. A second run and concurrent runs.
    pools = [celery_client.send_task("casino.jackpots.tasks.rollup_pool",
                                     args=["poker-helsinki", "bad_beat"]) for _ in range(3)]
    singles = [celery_client.send_task("casino.jackpots.tasks.rollup_day",
                                       args=["poker-helsinki", "bad_beat",
                                             days[1].isoformat()]) for _ in range(3)]
    for result in pools:
        assert all(r["gaming_day"] > last.isoformat() for r in result.get(timeout=60))
    answers = [result.get(timeout=60) for result in singles]
    assert {a["position"] for a in answers} == {positions[1]}
    assert all(a["replayed"] for a in answers)
    rolled = _rollups("poker-helsinki")
    assert all(len(rolled[d.isoformat()]) == 1 for d in days)
    assert balance(pool_account("poker-helsinki", "bad_beat")) == 600
    procs.kill("beat")

    # 3. Kill the worker in the middle of a roll-up.
    last_tallinn = _closed("Europe/Tallinn")
    tallinn_days = [last_tallinn - dt.timedelta(days=1), last_tallinn]
    _pool("olympic-tallinn", tallinn_days[0], "Europe/Tallinn")
    for day, count in zip(tallinn_days, (4, 5)):
        contribute("olympic-tallinn", day, [100] * count)
    events_before = Event.objects.count()
    settings = connection.settings_dict
    with psycopg.connect(host=settings["HOST"], user=settings["USER"],
                         dbname=settings["NAME"]) as blocker:
        # Inserts into the idempotency table wait for this lock: the worker
        # takes the writer lock, sums the day, inserts the roll-up event and
        # its postings, and stops at the key, before its commit.
        blocker.execute("LOCK TABLE ledger_idempotency IN EXCLUSIVE MODE")
        celery_client.send_task("casino.jackpots.tasks.rollup_pool",
                                args=["olympic-tallinn", "bad_beat"])

        def blocked_mid_insert() -> bool:
            # Activity statistics are a snapshot per transaction: refresh it.
            blocker.execute("SELECT pg_stat_clear_snapshot()")
            row = blocker.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE %s AND pid <> pg_backend_pid()",
                ["%INSERT INTO ledger_event%"]).fetchone()
            return row[0] >= 1

        wait_for(blocked_mid_insert, timeout=60, what="the roll-up blocked mid-insert",
                 logs=[procs.log("worker-a")])
        procs.kill("worker-a")
        blocker.rollback()   # release the lock: the dead worker's transaction aborts

    def orphan_gone() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in%'"
                           " AND datname = current_database() AND pid <> pg_backend_pid()")
            return cursor.fetchone()[0] == 0

    wait_for(orphan_gone, timeout=30, what="the killed worker's backend to end")
    assert _rollups("olympic-tallinn") == {}
    assert Event.objects.count() == events_before
    assert balance(pool_account("olympic-tallinn", "bad_beat")) == 0

    # The restarted worker gets the unacknowledged task again (late ack,
    # visibility timeout 4 s) and rolls each day up once.
    procs.start("worker-b", *WORKER, "-n", "b@%h")
    wait_for(lambda: last_tallinn.isoformat() in _rollups("olympic-tallinn"), timeout=90,
             what="the redelivered roll-up", logs=[procs.log("worker-b")])
    rolled = _rollups("olympic-tallinn")
    assert [len(rolled[d.isoformat()]) for d in tallinn_days] == [1, 1]
    assert [rolled[d.isoformat()][0]["amount_minor"] for d in tallinn_days] == [400, 500]
    assert balance(pool_account("olympic-tallinn", "bad_beat")) == 900
    assert all(len(v) == 1 for v in _rollups("poker-helsinki").values())
    assert verify_chain().ok
