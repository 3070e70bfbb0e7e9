"""Hits from real poker hands, officer approval (django-fsm) and payouts.

A hand at the Veikkaus room's jackpot table settles through the poker
commands; its `hand_settled` signal runs the hit check. Shares by the
closed forms (000:L2939-3182), rounded down with the rest kept in the pool
(decision jackpot.payout_formula), paid from the posted balance (decision
jackpot.payout_base), base topped up to EUR 1,000 (000:L3185-3186).
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.accounts import gaming_account
from casino.jackpots import commands
from casino.jackpots.accounts import funding_account, pending_account, pool_account
from casino.jackpots.errors import JackpotError
from casino.jackpots.events import BASE_TOPPED_UP, HIT_PAID, HIT_RECORDED
from casino.jackpots.models import HitState, JackpotHit, JackpotPool
from casino.poker import commands as poker
from ledger import rebuild_projections, verify_chain
from ledger.models import Event, Posting
from tests.casino.jackpots.conftest import BOARD, CARDS, balance, play_hand, settle_showdown
from tests.casino.poker.conftest import check_down, key, open_helsinki_table, seat_players

VENUE = "poker-helsinki"


def test_a_settled_bad_beat_hand_records_a_category_1_hit_once(table):
    """Aces full of kings (both hole cards) lose to four kings: category 1;
    the pool awaits approval. Replaying the settling request runs the check
    again and records nothing more."""
    hand_id, settled = play_hand(table)
    assert settled.state == "settled"
    hit = JackpotHit.objects.get(id=hand_id)
    assert (hit.state, hit.category, hit.threshold) == (
        HitState.HIT, 1, "full_house:aces_over_kings")
    assert hit.roles == {"1": "loser", "2": "winner", "3": "other", "4": "other",
                         "5": "other", "6": "other"}
    assert len(hit.players) == 6
    assert JackpotPool.objects.get(key=f"{VENUE}/bad_beat").status == "hit"
    event = Event.objects.get(type=HIT_RECORDED)
    assert event.idempotency_key == f"jackpots/hit-check/{hand_id}"
    from casino.poker.signals import hand_settled
    settled_event = Event.objects.get(stream=f"hand/{table}/1", type="poker.hand_settled")
    from ledger.store import load_events
    recorded = load_events(settled_event.position, settled_event.position)[0]
    hand_settled.send(sender=None, hand_id=hand_id, event=recorded)
    assert Event.objects.filter(type=HIT_RECORDED).count() == 1


def test_the_loser_playing_the_board_records_no_hit(table):
    """The board holds AAA-KK; seat 1 plays it, seat 2's Ah makes four aces."""
    cards = {**CARDS, 1: "3h 2d", 2: "Ah 5c", 3: "Qc Jd"}
    hand_id, settled = play_hand(table, "As Ac Ad Kc Kd", cards)
    assert settled.state == "settled"
    assert not JackpotHit.objects.exists()
    assert not Event.objects.filter(type=HIT_RECORDED).exists()


def test_approval_fixes_shares_of_the_posted_balance_and_payment_posts_them(table):
    """EUR 2,000 posted, six players: loser 40 % = 800, winner 20 % = 400,
    others 5 % = 100 each; the day's pending EUR 1 drop stays pending. The
    remainder EUR 400 is below the EUR 1,000 base: the casino adds 600."""
    hand_id, _ = play_hand(table)
    pending = balance(pending_account(VENUE, "bad_beat"))
    assert pending == 100   # today's drop of the hand itself
    with pytest.raises(JackpotError) as early:
        commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key="pay-early")
    assert early.value.code == "jackpots.hit_not_approved"

    approved = commands.approve_hit(hit_id=hand_id, actor="officer-1",
                                    idempotency_key="approve-1")
    assert approved.state == "approved" and approved.balance_minor == 200_000
    amounts = {s["seat"]: s["amount_minor"] for s in approved.shares}
    assert amounts == {1: 80_000, 2: 40_000, 3: 10_000, 4: 10_000, 5: 10_000, 6: 10_000}
    assert approved.amount_minor == sum(amounts.values()) == 160_000
    assert approved.remainder_minor == 0
    assert JackpotHit.objects.get(id=hand_id).approved_by == "officer-1"
    with pytest.raises(JackpotError) as twice:
        commands.approve_hit(hit_id=hand_id, actor="officer-2", idempotency_key="approve-2")
    assert twice.value.code == "jackpots.hit_not_pending"

    hit = JackpotHit.objects.get(id=hand_id)
    accounts_before = {seat: balance(gaming_account(pid)) for seat, pid in hit.players.items()}
    paid = commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key="pay-1")
    assert paid.state == "paid" and paid.top_up_minor == 60_000
    for seat, pid in hit.players.items():
        assert balance(gaming_account(pid)) - accounts_before[seat] == amounts[int(seat)]
    assert balance(pool_account(VENUE, "bad_beat")) == 100_000
    assert balance(funding_account(VENUE)) == 60_000
    assert balance(pending_account(VENUE, "bad_beat")) == pending
    paid_event = Event.objects.get(type=HIT_PAID)
    postings = {p.account_id: p.amount_minor for p in Posting.objects.filter(event=paid_event)}
    assert postings[pool_account(VENUE, "bad_beat")] == 160_000
    assert sum(postings.values()) == 0
    top_up = Event.objects.get(type=BASE_TOPPED_UP)
    assert top_up.payload["balance_before_minor"] == 40_000
    again = commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key="pay-1")
    assert again.replayed and Event.objects.filter(type=HIT_PAID).count() == 1
    pool = JackpotPool.objects.get(key=f"{VENUE}/bad_beat")
    assert (pool.status, pool.paid_minor, pool.topped_up_minor) == ("accumulating", 160_000,
                                                                    60_000)


def test_a_rejected_hit_pays_nothing_and_cannot_be_approved(table):
    hand_id, _ = play_hand(table)
    rejected = commands.reject_hit(hit_id=hand_id, actor="officer-1",
                                   reason="cards disclosed during the deal (002:L1810)",
                                   idempotency_key="reject-1")
    assert rejected.state == "rejected"
    with pytest.raises(JackpotError) as refused:
        commands.approve_hit(hit_id=hand_id, actor="officer-1", idempotency_key="a")
    assert refused.value.code == "jackpots.hit_not_pending"
    assert balance(pool_account(VENUE, "bad_beat")) == 200_000
    assert JackpotPool.objects.get(key=f"{VENUE}/bad_beat").status == "accumulating"


def test_the_hit_whose_hand_started_first_is_settled_first_000_L2854(table, venues):
    """Two tables hit close together: the later-started hand waits; after the
    first is paid its shares are of what is left (000:L2854-2861)."""
    second = open_helsinki_table()
    seat_players(second.table_id, {seat: 20_000 for seat in range(1, 7)})
    first_start = dt.datetime(2026, 6, 16, 12, 0, tzinfo=dt.timezone.utc)
    hand_a = poker.start_hand(table_id=table, button=6, actor="dealer",
                              idempotency_key=key(), at=first_start)
    hand_b = poker.start_hand(table_id=second.table_id, button=6, actor="dealer",
                              idempotency_key=key(), at=first_start + dt.timedelta(seconds=40))
    for hand in (hand_b, hand_a):   # the later hand settles first
        ctx = check_down(hand.hand_id)
        settle_showdown(hand.hand_id, BOARD, {s: CARDS[s] for s in ctx.state.live_seats})
    with pytest.raises(JackpotError) as waits:
        commands.approve_hit(hit_id=hand_b.hand_id, actor="officer-1", idempotency_key="b1")
    assert waits.value.code == "jackpots.earlier_hit_open"
    assert waits.value.details["earlier_hit_id"] == hand_a.hand_id
    commands.approve_hit(hit_id=hand_a.hand_id, actor="officer-1", idempotency_key="a1")
    commands.pay_hit(hit_id=hand_a.hand_id, actor="officer-2", idempotency_key="a2")
    later = commands.approve_hit(hit_id=hand_b.hand_id, actor="officer-1",
                                 idempotency_key="b2")
    assert later.balance_minor == 100_000   # the remainder plus the top-up


def test_rebuild_reproduces_hits_and_pools(table):
    hand_id, _ = play_hand(table)
    commands.approve_hit(hit_id=hand_id, actor="officer-1", idempotency_key="approve-1")
    commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key="pay-1")
    before = (list(JackpotHit.objects.values()), list(JackpotPool.objects.values()))
    rebuild_projections()
    assert (list(JackpotHit.objects.values()), list(JackpotPool.objects.values())) == before
    assert verify_chain().ok
