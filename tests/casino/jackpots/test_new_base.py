"""The next jackpot is the base plus the drops after the hit, whenever it is paid.

000:L3185-3186: what the hit leaves is the new base, at least EUR 1,000.
000:L2872-2873: the day's drops join the jackpot at the end of the gaming
day. Drops that arrive between a hit and its payment therefore join on top
of the new base; they are never counted towards it, so an officer paying
before or after the roll-ups leaves the same pool (decision
jackpots.payout.top_up, issue 14 item 10).

One scenario, three cases: EUR 2,000 posted; a bad beat at noon on
2026-06-16 (its own EUR 1 drop pending); approved at once (shares EUR 1,600,
so EUR 400 is left and the casino tops it up by EUR 600); EUR 5 more drops
that day and EUR 7 the next; the officer pays before any roll-up, between
the two roll-ups, or after both.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from casino.jackpots import commands
from casino.jackpots.accounts import funding_account, pending_account, pool_account
from casino.jackpots.models import JackpotPool
from tests.casino.jackpots.conftest import balance, contribute, play_hand

VENUE = "poker-helsinki"
HELSINKI = ZoneInfo("Europe/Helsinki")
HIT_DAY = dt.date(2026, 6, 16)
NEXT_DAY = dt.date(2026, 6, 17)
# The roll-up of a day runs five minutes after it ends at 06:00 the next morning.
AFTER_HIT_DAY = dt.datetime(2026, 6, 17, 7, 0, tzinfo=HELSINKI)
AFTER_NEXT_DAY = dt.datetime(2026, 6, 18, 7, 0, tzinfo=HELSINKI)

BASE_MINOR = 100_000
SHARES_MINOR = 160_000          # loser 40 %, winner 20 %, four others 5 % of 2,000
HAND_DROP_MINOR = 100           # the hit hand's own drop, pending at the hit
SAME_DAY_DROPS = [200, 300]     # after the hit, on the hit's gaming day
NEXT_DAY_DROPS = [300, 400]
DROPS_AFTER_HIT = HAND_DROP_MINOR + sum(SAME_DAY_DROPS) + sum(NEXT_DAY_DROPS)

# (case, when the officer pays: after how many of the two roll-ups)
CASES = [
    ("paid_before_the_rollups_case", 0),
    ("paid_between_the_rollups_case", 1),
    ("paid_after_both_rollups_case", 2),
]


def _roll_up(now: dt.datetime) -> None:
    commands.rollup_closed_days(venue=VENUE, now=now)


@pytest.mark.parametrize(("case", "rollups_before_payment"), CASES,
                         ids=[case for case, _ in CASES])
def test_drops_after_a_hit_join_on_top_of_the_base_whenever_it_is_paid_000_L3185(
        table, monkeypatch, case, rollups_before_payment):
    """000:L3185-3186, L2872-2873: the pool ends at EUR 1,000 + EUR 13 in every
    case, the casino tops up EUR 600 in every case, and nothing stays pending."""
    hand_id, _ = play_hand(table)
    commands.approve_hit(hit_id=hand_id, actor="officer-1", idempotency_key=f"a-{case}")
    contribute(VENUE, HIT_DAY, SAME_DAY_DROPS)
    contribute(VENUE, NEXT_DAY, NEXT_DAY_DROPS)
    rollup_times = [AFTER_HIT_DAY, AFTER_NEXT_DAY]

    for now in rollup_times[:rollups_before_payment]:
        _roll_up(now)
    if rollups_before_payment:
        monkeypatch.setattr("casino.clock.now", lambda: rollup_times[rollups_before_payment - 1])
    paid = commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key=f"p-{case}")
    for now in rollup_times[rollups_before_payment:]:
        _roll_up(now)

    assert paid.top_up_minor == BASE_MINOR - (200_000 - SHARES_MINOR) == 60_000
    assert balance(pool_account(VENUE, "bad_beat")) == BASE_MINOR + DROPS_AFTER_HIT == 101_300
    assert balance(pending_account(VENUE, "bad_beat")) == 0
    assert balance(funding_account(VENUE)) == 60_000
    pool = JackpotPool.objects.get(key=f"{VENUE}/bad_beat")
    assert (pool.paid_minor, pool.topped_up_minor, pool.last_rolled_day) == (
        SHARES_MINOR, 60_000, NEXT_DAY)


def test_drops_rolled_up_before_the_payment_do_not_pay_for_the_base_000_L3185(
        table, monkeypatch):
    """000:L3185-3186: the hit leaves EUR 400 and EUR 2,000 of drops roll up
    before the officer pays; the casino still tops the base up by EUR 600,
    and the drops stay on top of it (counted towards the base, they would
    have left the casino nothing to add)."""
    hand_id, _ = play_hand(table)
    commands.approve_hit(hit_id=hand_id, actor="officer-1", idempotency_key="a-big")
    contribute(VENUE, HIT_DAY, [100_000, 100_000])
    _roll_up(AFTER_HIT_DAY)
    monkeypatch.setattr("casino.clock.now", lambda: AFTER_HIT_DAY)
    paid = commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key="p-big")
    assert paid.top_up_minor == 60_000
    assert balance(pool_account(VENUE, "bad_beat")) == BASE_MINOR + HAND_DROP_MINOR + 200_000
