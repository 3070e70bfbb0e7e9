"""Pools and the daily roll-up: in SQL, exactly once, in order, DST-true.

Rules: contributions are added to the jackpot at the end of the gaming day
(000:L2872-2873, 002:L1804); a gaming day runs 06:00-06:00 in the venue's
zone (decision gaming_day.boundary; 003:L124 for Tallinn).
"""

from __future__ import annotations

import datetime as dt
import threading
from zoneinfo import ZoneInfo

import pytest
from django.db import IntegrityError, connection, transaction

from casino import runner
from casino.books import venue_book
from casino.compliance.pipeline import venue_day
from casino.jackpots.accounts import funding_account, pending_account, pool_account
from casino.jackpots.commands import ensure_pool, rollup_closed_days, rollup_day
from casino.jackpots.engine import day_length
from casino.jackpots.errors import JackpotError
from casino.jackpots.events import CONTRIBUTIONS_ROLLED_UP, POOL_OPENED, rollup_key
from casino.jackpots.models import JackpotPool, JackpotRollup
from casino.rules.models import Venue
from ledger import NewEvent, append, rebuild_projections, verify_chain
from ledger.models import Account, Event, Posting as PostingRow
from tests.casino.jackpots.conftest import balance, contribute, pool_at

HELSINKI = ZoneInfo("Europe/Helsinki")
UTC = dt.timezone.utc
VENUE = "poker-helsinki"
D = dt.date


def _rollups(venue: str = VENUE) -> list[Event]:
    return list(Event.objects.filter(type=CONTRIBUTIONS_ROLLED_UP,
                                     stream=f"jackpot/{venue}/bad_beat").order_by("position"))


def test_ensure_pool_opens_accounts_from_the_rulebook_once(venues):
    """The Veikkaus pool: EUR 1,000 guaranteed base (000:L3185-3186), five
    players (000:L2816-2819), hits enabled; a second call writes nothing."""
    first = ensure_pool(venue=VENUE)
    again = ensure_pool(venue=VENUE)
    assert first.created and not again.created and first.position == again.position
    pool = JackpotPool.objects.get(key=f"{VENUE}/bad_beat")
    assert (pool.base_guarantee_minor, pool.players_min, pool.hits_enabled) == (100_000, 5, True)
    assert pool.first_day == D(2026, 6, 16)
    accounts = {a.code: a for a in Account.objects.filter(code__in=[
        pending_account(VENUE, "bad_beat"), pool_account(VENUE, "bad_beat"),
        funding_account(VENUE)])}
    assert {a.type for a in accounts.values()} == {"liability", "expense"}
    assert accounts[pool_account(VENUE, "bad_beat")].must_not_go_negative
    assert Event.objects.filter(type=POOL_OPENED).count() == 1


def test_ensure_pool_takes_over_a_pending_account_poker_opened_and_its_days(venues):
    """Drops taken before the pool existed (poker opens the pending account
    itself) are rolled up too: the pool starts on their first day."""
    contribute(VENUE, D(2026, 6, 10), [100, 100])
    ensure_pool(venue=VENUE)
    pool = JackpotPool.objects.get(key=f"{VENUE}/bad_beat")
    assert pool.first_day == D(2026, 6, 10)
    results = rollup_closed_days(venue=VENUE)
    assert [r.gaming_day for r in results] == [D(2026, 6, d) for d in range(10, 16)]
    assert results[0].amount_minor == 200 and results[0].contributions == 2
    assert balance(pool_account(VENUE, "bad_beat")) == 200


def test_ray_casino_and_tallinn_pools_accumulate_without_hits_or_base(venues):
    """Their criteria, shares and base are posted configuration (decisions
    jackpots.pool_terms, 002:L1788-1808, 003:L141-142)."""
    for venue in ("casino-helsinki", "olympic-tallinn"):
        ensure_pool(venue=venue)
        pool = JackpotPool.objects.get(key=f"{venue}/bad_beat")
        assert (pool.hits_enabled, pool.base_guarantee_minor) == (False, 0)
    assert JackpotPool.objects.get(key="casino-helsinki/bad_beat").players_min == 6


def test_rollup_moves_the_days_contributions_in_one_event_with_count_and_sum(venues):
    """One event per pool and day: pending +sum, pool -sum, payload count and
    sum; other days' contributions stay pending."""
    pool_at(VENUE, D(2026, 6, 14))
    contribute(VENUE, D(2026, 6, 14), [100] * 7)
    contribute(VENUE, D(2026, 6, 15), [100] * 3)
    contribute(VENUE, D(2026, 6, 16), [100] * 2)   # today: not closed
    result = rollup_day(venue=VENUE, gaming_day=D(2026, 6, 14))
    assert (result.contributions, result.amount_minor, result.replayed) == (7, 700, False)
    event = Event.objects.get(position=result.position)
    assert event.payload == {"venue": VENUE, "kind": "bad_beat", "gaming_day": "2026-06-14",
                             "contributions": 7, "amount_minor": 700, "currency": "EUR"}
    assert event.gaming_day == D(2026, 6, 14)
    assert event.idempotency_key == rollup_key(VENUE, "bad_beat", D(2026, 6, 14))
    assert {p.account_id: p.amount_minor for p in PostingRow.objects.filter(event=event)} == {
        pending_account(VENUE, "bad_beat"): 700, pool_account(VENUE, "bad_beat"): -700}
    assert balance(pool_account(VENUE, "bad_beat")) == 700
    assert balance(pending_account(VENUE, "bad_beat")) == 500


def test_rerunning_a_day_posts_nothing_and_returns_the_first_result(venues):
    pool_at(VENUE, D(2026, 6, 15))
    contribute(VENUE, D(2026, 6, 15), [100, 250])
    first = rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15))
    events_before = Event.objects.count()
    again = rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15))
    assert again.replayed and again.position == first.position
    assert again.amount_minor == 350
    assert rollup_closed_days(venue=VENUE) == []
    assert Event.objects.count() == events_before
    assert balance(pool_account(VENUE, "bad_beat")) == 350


def test_a_day_not_yet_closed_in_the_venue_zone_is_refused(venues):
    """At 12:00 on 16 June the 16th is open; the 15th ended at 06:00 today."""
    pool_at(VENUE, D(2026, 6, 15))
    with pytest.raises(JackpotError) as refused:
        rollup_day(venue=VENUE, gaming_day=D(2026, 6, 16))
    assert refused.value.code == "jackpots.gaming_day_not_closed" and refused.value.status == 409
    early = dt.datetime(2026, 6, 16, 6, 4, tzinfo=HELSINKI)   # within the 5-minute delay
    with pytest.raises(JackpotError):
        rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15), now=early)
    assert not _rollups()
    assert rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15),
                      now=early + dt.timedelta(minutes=1)).contributions == 0


def test_missed_days_are_caught_up_in_order_and_a_later_day_waits(venues):
    """Three days missed (the worker was down): the next run rolls them up
    oldest first; rolling up a later day first is refused."""
    pool_at(VENUE, D(2026, 6, 12))
    for day, count in ((12, 1), (13, 2), (14, 3), (15, 4)):
        contribute(VENUE, D(2026, 6, day), [100] * count)
    with pytest.raises(JackpotError) as refused:
        rollup_day(venue=VENUE, gaming_day=D(2026, 6, 14))
    assert refused.value.code == "jackpots.earlier_gaming_day_not_rolled_up"
    assert refused.value.details["next_day"] == "2026-06-12"
    results = rollup_closed_days(venue=VENUE)
    assert [(r.gaming_day.day, r.contributions) for r in results] == [
        (12, 1), (13, 2), (14, 3), (15, 4)]
    assert [e.payload["gaming_day"] for e in _rollups()] == [
        "2026-06-12", "2026-06-13", "2026-06-14", "2026-06-15"]
    pool = JackpotPool.objects.get(key=f"{VENUE}/bad_beat")
    assert (pool.last_rolled_day, pool.rollups, pool.contributions, pool.rolled_up_minor) == (
        D(2026, 6, 15), 4, 10, 1_000)


def test_a_second_rollup_event_for_a_day_is_refused_by_the_database(venues):
    """The unique (pool, gaming day) of JackpotRollup, projected in the
    append's transaction, refuses a second roll-up even under another key."""
    pool_at(VENUE, D(2026, 6, 15))
    contribute(VENUE, D(2026, 6, 15), [100])
    rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15))
    count = Event.objects.count()
    duplicate = NewEvent(stream=f"jackpot/{VENUE}/bad_beat", type=CONTRIBUTIONS_ROLLED_UP,
                         payload={"venue": VENUE, "kind": "bad_beat",
                                  "gaming_day": "2026-06-15", "contributions": 0,
                                  "amount_minor": 0, "currency": "EUR"},
                         gaming_day=D(2026, 6, 15))
    with pytest.raises(IntegrityError), transaction.atomic():
        # On the pool's stream's book: the venue's (casino.books; main unless venues
        # have books of their own).
        append([duplicate], idempotency_key="another-key", book=venue_book(VENUE))
    assert Event.objects.count() == count
    assert JackpotRollup.objects.count() == 1


def test_a_rollup_killed_before_commit_leaves_nothing_and_reruns_once(venues, monkeypatch):
    """The worker dies after the sum, before the commit: nothing is written;
    the rerun rolls the day up once."""
    pool_at(VENUE, D(2026, 6, 15))
    contribute(VENUE, D(2026, 6, 15), [100, 100, 100])
    count = Event.objects.count()
    real_append = runner.append_across   # the runner is the one caller of the ledger

    def dying_append(events, **kwargs):
        if events[0].type == CONTRIBUTIONS_ROLLED_UP:
            real_append(events, **kwargs)   # written in the open transaction...
            raise SystemExit("worker killed")  # ...which never commits
        return real_append(events, **kwargs)

    monkeypatch.setattr(runner, "append_across", dying_append)
    with pytest.raises(SystemExit):
        rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15))
    assert Event.objects.count() == count and not _rollups()
    monkeypatch.setattr(runner, "append_across", real_append)
    assert rollup_closed_days(venue=VENUE)[0].amount_minor == 300
    assert rollup_closed_days(venue=VENUE) == []
    assert len(_rollups()) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_rollups_of_one_day_post_exactly_once(venues):
    """Six threads, each with its own connection, roll up the same day at the
    same moment: one event, the others replay it."""
    pool_at(VENUE, D(2026, 6, 15))
    contribute(VENUE, D(2026, 6, 15), [100] * 5)
    start = threading.Barrier(6)
    results, errors = [], []

    def run():
        try:
            start.wait()
            results.append(rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15)))
        except Exception as error:  # noqa: BLE001
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len({r.position for r in results}) == 1
    assert sorted(r.replayed for r in results) == [False] + [True] * 5
    assert len(_rollups()) == 1
    assert balance(pool_account(VENUE, "bad_beat")) == 500


@pytest.mark.django_db(transaction=True)
def test_concurrent_catch_ups_roll_each_missed_day_once_in_order(venues):
    """Four catch-ups racing over four missed days: each day once, in order."""
    pool_at(VENUE, D(2026, 6, 12))
    for day in (12, 13, 14, 15):
        contribute(VENUE, D(2026, 6, day), [100] * day)
    start = threading.Barrier(4)
    errors = []

    def run():
        try:
            start.wait()
            rollup_closed_days(venue=VENUE)
        except JackpotError as error:
            # A racer may find the next day already taken by another: fine.
            errors.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rollup_closed_days(venue=VENUE)
    assert set(errors) <= {"jackpots.earlier_gaming_day_not_rolled_up"}
    assert [e.payload["gaming_day"][-2:] for e in _rollups()] == ["12", "13", "14", "15"]
    assert [e.payload["amount_minor"] for e in _rollups()] == [1200, 1300, 1400, 1500]


# ---------------------------------------------------------------------------
# Daylight saving time: 23- and 25-hour gaming days
# ---------------------------------------------------------------------------

DST_CASES = [
    # zone, venue, the day spanning the change, its length, the instant
    # (UTC) it ends at 06:00 local after the change
    pytest.param("Europe/Helsinki", VENUE, D(2026, 3, 28), 23,
                 dt.datetime(2026, 3, 29, 3, 0, tzinfo=UTC), id="helsinki_spring_23h"),
    pytest.param("Europe/Helsinki", VENUE, D(2026, 10, 24), 25,
                 dt.datetime(2026, 10, 25, 4, 0, tzinfo=UTC), id="helsinki_autumn_25h"),
    pytest.param("Europe/Tallinn", "olympic-tallinn", D(2026, 3, 28), 23,
                 dt.datetime(2026, 3, 29, 3, 0, tzinfo=UTC), id="tallinn_spring_23h"),
    pytest.param("Europe/Tallinn", "olympic-tallinn", D(2026, 10, 24), 25,
                 dt.datetime(2026, 10, 25, 4, 0, tzinfo=UTC), id="tallinn_autumn_25h"),
]


@pytest.mark.parametrize("zone, venue, day, hours, end", DST_CASES)
def test_dst_day_has_its_length_and_rolls_up_exactly_its_hands(venues, zone, venue, day,
                                                               hours, end):
    """Hands a minute before and at the day's true end fall on either side
    (poker dates them with venue_day); the roll-up of the long or short day
    sums exactly its own, and is refused until its true end plus 5 minutes,
    though a fixed-offset clock would put the end an hour off."""
    place = Venue.objects.get(code=venue)
    assert day_length(day, zone, place.gaming_day_start) == dt.timedelta(hours=hours)
    start = dt.datetime.combine(day, dt.time(6), tzinfo=ZoneInfo(zone))
    last_minute, first_of_next = end - dt.timedelta(minutes=1), end
    assert venue_day(place, start) == day
    assert venue_day(place, last_minute) == day
    assert venue_day(place, first_of_next) == day + dt.timedelta(days=1)
    pool_at(venue, day, zone)
    contribute(venue, venue_day(place, start), [100], at=start)
    contribute(venue, venue_day(place, last_minute), [200], at=last_minute)
    contribute(venue, venue_day(place, first_of_next), [400], at=first_of_next)

    with pytest.raises(JackpotError):
        rollup_day(venue=venue, gaming_day=day, now=end + dt.timedelta(minutes=4))
    result = rollup_day(venue=venue, gaming_day=day, now=end + dt.timedelta(minutes=5))
    assert (result.contributions, result.amount_minor) == (2, 300)
    assert balance(pending_account(venue, "bad_beat")) == 400
    assert Event.objects.get(position=result.position).occurred_at == end


def test_catch_up_across_both_dst_changes_rolls_every_day_once(venues):
    """From 27 March to 26 October 2026 in Helsinki: 213 days, one roll-up
    each, none lost in the short day and none doubled in the long one."""
    pool_at(VENUE, D(2026, 3, 27))
    contribute(VENUE, D(2026, 3, 28), [100])
    contribute(VENUE, D(2026, 10, 24), [100, 100])
    results = rollup_closed_days(
        venue=VENUE, now=dt.datetime(2026, 10, 27, 6, 5, tzinfo=HELSINKI))
    days = [r.gaming_day for r in results]
    assert days[0] == D(2026, 3, 27) and days[-1] == D(2026, 10, 26)
    assert len(days) == len(set(days)) == (D(2026, 10, 26) - D(2026, 3, 27)).days + 1
    by_day = {r.gaming_day: r.amount_minor for r in results}
    assert (by_day[D(2026, 3, 28)], by_day[D(2026, 10, 24)]) == (100, 200)


def test_rebuild_reproduces_pools_and_rollups_and_the_chain_verifies(venues):
    pool_at(VENUE, D(2026, 6, 13))
    contribute(VENUE, D(2026, 6, 13), [100, 100])
    contribute(VENUE, D(2026, 6, 15), [100])
    rollup_closed_days(venue=VENUE)
    before = (list(JackpotPool.objects.values()), list(JackpotRollup.objects.values(
        "pool_id", "gaming_day", "contributions", "amount_minor", "position")))
    rebuild_projections()
    after = (list(JackpotPool.objects.values()), list(JackpotRollup.objects.values(
        "pool_id", "gaming_day", "contributions", "amount_minor", "position")))
    assert before == after
    assert verify_chain().ok


def test_the_jackpot_fee_by_time_rolls_up_with_the_drops(venues):
    """A table paying the jackpot fee by time (EUR 40 per started hour, every
    player agreeing, 000:L2876-2878) feeds the same pending account; the
    period stays paid when players leave (000:L2878-2879) and the day's
    roll-up counts it with the drops."""
    from casino.poker import commands as poker
    from tests.casino.poker.conftest import key, seat_players

    ensure_pool(venue=VENUE)
    table = poker.open_table(
        venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        jackpot=True, jackpot_fee="time_60", actor="floor", idempotency_key=key())
    players = seat_players(table.table_id, {1: 20_000, 2: 20_000, 3: 20_000})
    poker.charge_time(table_id=table.table_id, consenting_players=list(players.values()),
                      actor="floor", idempotency_key=key())
    poker.cash_out(table_id=table.table_id, seat=3, player_id=players[3], actor="floor",
                   idempotency_key=key())
    day = D(2026, 6, 16)
    result = rollup_day(venue=VENUE, gaming_day=day,
                        now=dt.datetime(2026, 6, 17, 7, 0, tzinfo=HELSINKI))
    # EUR 40 shared by three: EUR 13.33 each, the odd cent forgone (decision
    # time_rake.basis rounding); one contribution posting.
    assert (result.amount_minor, result.contributions) == (3_999, 1)
    assert balance(pool_account(VENUE, "bad_beat")) == 3_999
    assert balance(pending_account(VENUE, "bad_beat")) == 0


@pytest.mark.django_db(transaction=True)
def test_a_rollup_holds_the_writer_lock_of_the_book_its_pool_is_on(venues, settings,
                                                                   monkeypatch):
    """No contribution can commit into the day while it is summed: the roll-up holds the
    writer lock of the pool's book (here the venue's own, casino.books), not the main's."""
    settings.CASINO_VENUE_BOOKS = {VENUE: "poker_hel"}
    pool_at(VENUE, D(2026, 6, 15))
    contribute(VENUE, D(2026, 6, 15), [100] * 3)
    book = Account.objects.get(code=pending_account(VENUE, "bad_beat")).book
    assert book == venue_book(VENUE) != 1
    locked: dict[int, bool] = {}
    real_append = runner.append_across

    def probe(target: int) -> None:
        # Another connection asks for the book's writer lock without waiting.
        try:
            with connection.cursor() as cursor, transaction.atomic():
                cursor.execute("SELECT id FROM ledger_head WHERE id = %s FOR UPDATE NOWAIT",
                               [target])
            locked[target] = False
        except Exception:  # noqa: BLE001 - psycopg's LockNotAvailable, wrapped by Django
            locked[target] = True
        finally:
            connection.close()

    def appending(events, **kwargs):
        if events[0].type == CONTRIBUTIONS_ROLLED_UP:
            for target in (book, 1):
                thread = threading.Thread(target=probe, args=(target,))
                thread.start()
                thread.join()
        return real_append(events, **kwargs)

    monkeypatch.setattr(runner, "append_across", appending)
    assert rollup_day(venue=VENUE, gaming_day=D(2026, 6, 15)).amount_minor == 300
    assert locked == {book: True, 1: False}
