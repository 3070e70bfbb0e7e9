"""Progressive side-bet jackpots: THB and UTH hits from real house-game rounds.

Rounds are played through casino.games commands at casino-helsinki (ray-casino):
15 % of every progressive stake goes to the pool's pending account (002:L2297,
decision games.progressive.paid_from_pool), rolled up at the end of the gaming
day; a winning progressive bet is signalled after the settlement commits and
becomes a jackpot hit once per bet (decision jackpots.progressive.hit), approved
by a compliance officer and paid to the gaming account: a share of the posted
pool (jackpots.progressive.payout_base) or pays x stake with the casino funding
a shortfall (jackpots.progressive.shortfall), hits in recorded order
(jackpots.progressive.order).
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db.models import Sum

from casino.accounts import gaming_account, payouts_due
from casino.games import commands as games
from casino.games import signals
from casino.games.events import HOLDEM_BONUS_PROGRESSIVE, ULTIMATE_HOLDEM_PROGRESSIVE
from casino.games.models import Bet
from casino.jackpots import commands, queries
from casino.jackpots.accounts import funding_account, pending_account, pool_account
from casino.jackpots.errors import JackpotError
from casino.jackpots.events import BASE_TOPPED_UP, HIT_PAID, HIT_RECORDED
from casino.jackpots.models import HitState, HitTrigger, JackpotHit, JackpotPool, JackpotRollup
from ledger import rebuild_projections, verify_chain
from ledger.models import Event, Posting
from ledger.store import load_events
from tests.casino.conftest import HELSINKI
from tests.casino.games.conftest import balance, funded_player, key, officer

from .conftest import contribute

VENUE = "casino-helsinki"
THB = "texas_holdem_bonus_progressive"
THB_CONFIG = {"ante_rule": "b", "bonus_table": "i"}
YESTERDAY = dt.datetime(2026, 6, 15, 12, 0, tzinfo=HELSINKI)
# Hole cards + flop: a royal flush, a flush, four of a kind (decision games.progressive.hand).
ROYAL = {"dealer": "Qs 7d", "board": "Qh Jh Th 2c 3d", "boxes": {"1": "Ah Kh"}}
ROYAL_AND_FLUSH = {"dealer": "Qs 7d", "board": "Qh Jh Th 2c 3d",
                   "boxes": {"1": "Ah Kh", "2": "2h 3h"}}
QUADS = {"dealer": "Ks 7d", "board": "9h 9s 2c 5d Kh", "boxes": {"1": "9c 9d"}}
MISS = {"dealer": "Qs 7d", "board": "9h 5s 2c Jd Kh", "boxes": {"1": "4c 3h"}}


def open_table(game=THB, config=THB_CONFIG):
    return games.open_table(venue=VENUE, game=game, config=config, stake_minor_min=100,
                            stake_minor_max=1_000_00, actor="floor",
                            idempotency_key=key("table")).table_id


def play(table_id, boxes, outcome, *, at=None, settle_key=None):
    """One THB round: per box (player, progressive stake) an ante of EUR 10, the
    progressive, and the flop bet; returns (round id, {box: progressive bet id})."""
    round_id = games.open_round(table_id=table_id, actor="floor", idempotency_key=key("round"),
                                at=at).round_id
    progressive = {}
    for box, (player, stake) in boxes.items():
        games.place_bet(round_id=round_id, player_id=player.id, kind="ante", spec={"box": box},
                        stake_minor=10_00, actor="floor", idempotency_key=key("bet"), at=at)
        progressive[box] = games.place_bet(
            round_id=round_id, player_id=player.id, kind="progressive", spec={"box": box},
            stake_minor=stake, actor="floor", idempotency_key=key("bet"), at=at).bet_id
    games.close_betting(round_id=round_id, actor="floor", idempotency_key=key("close"), at=at)
    for box, (player, _) in boxes.items():
        games.place_bet(round_id=round_id, player_id=player.id, kind="flop", spec={"box": box},
                        stake_minor=20_00, actor="floor", idempotency_key=key("bet"), at=at)
    games.record_outcome(round_id=round_id, outcome=outcome, actor="floor",
                         idempotency_key=key("outcome"), at=at)
    games.settle_round(round_id=round_id, actor="floor",
                       idempotency_key=settle_key or key("settle"), at=at)
    return round_id, progressive


def fund_pool(table_id, amount_minor, kind=HOLDEM_BONUS_PROGRESSIVE):
    """Yesterday: one real round (a EUR 10 progressive: EUR 1.50 to the pool) and
    `amount_minor` more contributions; then the pools open and yesterday rolls up."""
    feeder = funded_player()
    play(table_id, {1: (feeder, 10_00)}, MISS, at=YESTERDAY)
    if amount_minor:
        contribute(VENUE, YESTERDAY.date(), amount_minor, kind=kind, at=YESTERDAY)
    commands.ensure_progressive_pools(venue=VENUE)
    commands.rollup_closed_days(venue=VENUE, kind=kind)
    return balance(pool_account(VENUE, kind))


def test_the_casino_has_one_pool_per_progressive_and_the_beat_rolls_them_up(venues):
    """002:L2297, L2478 (decision jackpots.progressive.pool_terms): no guaranteed
    base; the beat schedule has an entry per pool, progressives included."""
    from casino.jackpots.beat import pool_entries

    results = commands.ensure_progressive_pools(venue=VENUE)
    assert sorted(r.kind for r in results) == [HOLDEM_BONUS_PROGRESSIVE, "oasis_progressive",
                                               ULTIMATE_HOLDEM_PROGRESSIVE]   # 002:L2041
    for kind in (HOLDEM_BONUS_PROGRESSIVE, ULTIMATE_HOLDEM_PROGRESSIVE):
        pool = JackpotPool.objects.get(key=f"{VENUE}/{kind}")
        assert (pool.hits_enabled, pool.base_guarantee_minor, pool.players_min) == (
            True, 0, None)
        assert f"jackpots.rollup.{VENUE}.{kind}" in pool_entries()
    # Venues whose rulebook lists no progressive get none.
    assert commands.ensure_progressive_pools(venue="poker-helsinki") == []


def test_a_thb_royal_flush_is_a_hit_approved_and_paid_from_the_posted_pool(
        venues, django_capture_on_commit_callbacks):
    """002:L2297: the royal flush takes 100 % of the pool. Posted yesterday:
    EUR 1.50 from a round + EUR 2,000 of contributions; today's EUR 0.75 from
    the royal round itself stays pending (jackpots.progressive.payout_base)."""
    table_id = open_table()
    posted = fund_pool(table_id, 2_000_00)
    assert posted == 2_000_00 + 1_50
    alice = funded_player()
    with django_capture_on_commit_callbacks(execute=True):
        round_id, bets = play(table_id, {1: (alice, 5_00)}, ROYAL)
    bet_id = bets[1]
    hit = JackpotHit.objects.get(id=bet_id)
    assert (hit.trigger, hit.state, hit.row, hit.pool_basis_points, hit.pays) == (
        HitTrigger.PROGRESSIVE, HitState.HIT, "royal_flush", 10000, None)
    assert (hit.hand_id, hit.table_id, hit.variant, hit.players) == (
        round_id, table_id, THB, {"1": alice.id})
    assert hit.hands[0]["cards"] == ["Ah", "Kh", "Qh", "Jh", "Th"]
    assert Event.objects.get(type=HIT_RECORDED).idempotency_key == (
        f"jackpots/progressive-hit/{bet_id}")
    assert JackpotPool.objects.get(key=f"{VENUE}/{HOLDEM_BONUS_PROGRESSIVE}").status == "hit"
    before = balance(gaming_account(alice.id))

    with pytest.raises(JackpotError) as early:
        commands.pay_hit(hit_id=bet_id, actor="officer", idempotency_key=key("pay"))
    assert early.value.code == "jackpots.hit_not_approved"
    approver = officer()
    approved = commands.approve_hit(hit_id=bet_id, actor=approver, idempotency_key=key("ok"))
    assert (approved.state, approved.balance_minor, approved.amount_minor) == (
        "approved", 2_001_50, 2_001_50)
    assert approved.shares[0]["fraction"] == "10000/10000"
    paid = commands.pay_hit(hit_id=bet_id, actor="officer-2", idempotency_key=key("pay"))
    assert paid.state == "paid" and paid.top_up_minor == 0

    assert balance(pool_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)) == 0
    assert balance(pending_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)) == 75
    assert balance(gaming_account(alice.id)) == before + 2_001_50
    history = queries.pool_history(VENUE, HOLDEM_BONUS_PROGRESSIVE)
    assert history.reconciles and history.paid_minor == 2_001_50
    assert Posting.objects.aggregate(total=Sum("amount_minor"))["total"] == 0
    assert verify_chain().ok
    assert JackpotHit.objects.get(id=bet_id).approved_by == approver


def test_a_fixed_multiple_row_pays_pays_times_the_stake_from_the_pool(
        venues, django_capture_on_commit_callbacks):
    """Four of a kind pays 300 x the EUR 5 progressive stake = EUR 1,500 from a
    pool of EUR 2,000.75 (decision games.progressive.posted_table)."""
    table_id = open_table()
    posted = fund_pool(table_id, 1_999_25)
    assert posted == 2_000_75
    bob = funded_player()
    with django_capture_on_commit_callbacks(execute=True):
        _, bets = play(table_id, {1: (bob, 5_00)}, QUADS)
    hit = JackpotHit.objects.get(id=bets[1])
    assert (hit.row, hit.pays, hit.stake_minor, hit.pool_basis_points) == (
        "four_of_a_kind", 300, 5_00, None)
    before = balance(gaming_account(bob.id))
    approved = commands.approve_hit(hit_id=hit.id, actor=officer(), idempotency_key=key())
    assert approved.amount_minor == 300 * 5_00
    assert approved.shares[0]["fraction"] == "300x500"
    commands.pay_hit(hit_id=hit.id, actor="officer-2", idempotency_key=key())
    assert balance(pool_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)) == 2_000_75 - 1_500_00
    assert balance(gaming_account(bob.id)) == before + 1_500_00
    assert not Event.objects.filter(type=BASE_TOPPED_UP).exists()
    assert queries.pool_history(VENUE, HOLDEM_BONUS_PROGRESSIVE).reconciles
    assert verify_chain().ok


def test_two_hits_in_one_round_go_in_recorded_order_and_a_short_pool_is_funded(
        venues, django_capture_on_commit_callbacks):
    """A royal flush (box 1) and a flush (box 2) in one round: the later-recorded
    hit waits (jackpots.progressive.order); the royal empties the pool, so the
    flush's 40 x EUR 5 = EUR 200 is funded by the casino first
    (jackpots.progressive.shortfall) and the pool never goes negative."""
    table_id = open_table()
    fund_pool(table_id, 500_00)
    # Players settle (and their hits are signalled) in the order of their ids:
    # the royal flush's player goes first.
    alice, bob = sorted([funded_player(), funded_player()], key=lambda p: p.id)
    with django_capture_on_commit_callbacks(execute=True):
        _, bets = play(table_id, {1: (alice, 5_00), 2: (bob, 5_00)}, ROYAL_AND_FLUSH)
    first, second = JackpotHit.objects.filter(
        trigger=HitTrigger.PROGRESSIVE).order_by("recorded_position")
    assert {first.id, second.id} == set(bets.values())
    with pytest.raises(JackpotError) as waiting:
        commands.approve_hit(hit_id=second.id, actor="officer", idempotency_key=key())
    assert waiting.value.code == "jackpots.earlier_hit_open"
    for hit in (first, second):
        commands.approve_hit(hit_id=hit.id, actor="officer", idempotency_key=key())
        commands.pay_hit(hit_id=hit.id, actor="officer-2", idempotency_key=key())
    flush = JackpotHit.objects.get(id=bets[2])
    royal = JackpotHit.objects.get(id=bets[1])
    assert (royal.state, flush.state) == ("paid", "paid")
    # The royal took the whole posted pool; the flush is funded in full.
    assert flush.amount_minor == 40 * 5_00 and flush.top_up_minor == 40 * 5_00
    topped = Event.objects.get(type=BASE_TOPPED_UP)
    assert topped.payload["reason"] == "shortfall"
    paid = Event.objects.get(type=HIT_PAID, payload__hit_id=flush.id)
    assert topped.position < paid.position
    assert balance(pool_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)) == 0
    assert balance(funding_account(VENUE)) == 200_00
    assert queries.pool_history(VENUE, HOLDEM_BONUS_PROGRESSIVE).reconciles
    assert verify_chain().ok


def test_replaying_the_signal_or_the_settlement_writes_no_second_hit(
        venues, django_capture_on_commit_callbacks):
    table_id = open_table()
    fund_pool(table_id, 100_00)
    alice = funded_player()
    settle_key = key("settle")
    with django_capture_on_commit_callbacks(execute=True):
        round_id, bets = play(table_id, {1: (alice, 5_00)}, ROYAL, settle_key=settle_key)
    settled = Event.objects.get(type="games.player_settled", payload__round_id=round_id)
    hit = load_events(settled.position, settled.position)[0].payload["bets"][1]["detail"][
        "jackpot_hit"]
    count = Event.objects.count()
    for _ in range(2):
        signals.progressive_hit.send(sender=None, round_id=round_id, bet_id=bets[1],
                                     player_id=alice.id, venue=VENUE, hit=hit,
                                     position=settled.position)
    with django_capture_on_commit_callbacks(execute=True):
        games.settle_round(round_id=round_id, actor="floor", idempotency_key=settle_key)
    assert Event.objects.count() == count
    assert Event.objects.filter(type=HIT_RECORDED).count() == 1
    again = commands.record_progressive_hit(round_id=round_id, bet_id=bets[1],
                                            player_id=alice.id, venue=VENUE,
                                            position=settled.position, hit=hit)
    assert again.replayed and again.hit_id == bets[1]


def test_a_hit_the_settled_event_does_not_show_is_refused(venues):
    """The prize is read from the ledger, not taken from the caller."""
    table_id = open_table()
    alice = funded_player()
    round_id, bets = play(table_id, {1: (alice, 5_00)}, MISS)
    settled = Event.objects.get(type="games.player_settled", payload__round_id=round_id)
    forged = {"row": "royal_flush", "cite": "002:L2297", "kind": HOLDEM_BONUS_PROGRESSIVE,
              "pool_basis_points": 10000, "pays": None, "stake_minor": 5_00}
    with pytest.raises(JackpotError) as refused:
        commands.record_progressive_hit(round_id=round_id, bet_id=bets[1], player_id=alice.id,
                                        venue=VENUE, position=settled.position, hit=forged)
    assert refused.value.code == "jackpots.hit_not_verified"
    assert not JackpotHit.objects.exists()
    assert Bet.objects.get(id=bets[1]).result == "lose"


def test_an_officer_rejects_a_progressive_hit(venues, django_capture_on_commit_callbacks):
    """002:L1561-1563: the posted guide governs; a refused hit pays nothing."""
    table_id = open_table()
    posted = fund_pool(table_id, 100_00)
    alice = funded_player()
    with django_capture_on_commit_callbacks(execute=True):
        _, bets = play(table_id, {1: (alice, 5_00)}, ROYAL)
    rejected = commands.reject_hit(hit_id=bets[1], actor="officer", reason="misdeal found",
                                   idempotency_key=key())
    assert rejected.state == "rejected"
    assert balance(pool_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)) == posted
    assert JackpotPool.objects.get(key=f"{VENUE}/{HOLDEM_BONUS_PROGRESSIVE}").status == (
        "accumulating")


def test_a_royal_flush_above_the_account_ceiling_overflows_to_payouts_due(
        venues, django_capture_on_commit_callbacks):
    """002:L3070 (EUR 5,000 ceiling), ray-online decision online.account.balance_overflow:
    the jackpot is credited up to the ceiling to the cent, the rest is owed to the
    player's bank account on bank/<venue>/payouts_due."""
    table_id = open_table()
    posted = fund_pool(table_id, 8_000_00)
    alice = funded_player(4_000_37)
    with django_capture_on_commit_callbacks(execute=True):
        _, bets = play(table_id, {1: (alice, 5_00)}, ROYAL)
    before = balance(gaming_account(alice.id))
    commands.approve_hit(hit_id=bets[1], actor="officer", idempotency_key=key())
    commands.pay_hit(hit_id=bets[1], actor="officer-2", idempotency_key=key())
    assert balance(gaming_account(alice.id)) == 5_000_00
    assert balance(payouts_due(VENUE)) == posted - (5_000_00 - before)
    paid = Event.objects.get(type=HIT_PAID)
    (block,) = paid.payload["overflow"]
    assert (block["player_id"], block["credited_minor"], block["overflow_minor"]) == (
        alice.id, 5_000_00 - before, posted - (5_000_00 - before))
    assert block["decision"] == "online.account.balance_overflow"
    assert balance(pool_account(VENUE, HOLDEM_BONUS_PROGRESSIVE)) == 0
    assert Posting.objects.aggregate(total=Sum("amount_minor"))["total"] == 0
    assert verify_chain().ok


def test_rebuild_reproduces_the_jackpot_tables(venues, django_capture_on_commit_callbacks):
    table_id = open_table()
    fund_pool(table_id, 300_00)
    alice, bob = funded_player(), funded_player()
    with django_capture_on_commit_callbacks(execute=True):
        _, bets = play(table_id, {1: (alice, 5_00), 2: (bob, 5_00)}, ROYAL_AND_FLUSH)
    first = JackpotHit.objects.order_by("recorded_position").first()
    commands.approve_hit(hit_id=first.id, actor="officer", idempotency_key=key())
    commands.pay_hit(hit_id=first.id, actor="officer-2", idempotency_key=key())

    def snapshot():
        return (list(JackpotPool.objects.order_by("key").values()),
                list(JackpotRollup.objects.order_by("pool_id", "gaming_day").values(
                    "pool_id", "gaming_day", "contributions", "amount_minor", "position")),
                list(JackpotHit.objects.order_by("id").values()))

    live = snapshot()
    assert len(live[2]) == 2
    rebuild_projections()
    assert snapshot() == live


def test_officers_approve_and_pay_a_progressive_hit_over_the_api(
        venues, django_capture_on_commit_callbacks):
    """Only a compliance officer decides; the hit shows its bet, row and prize rule."""
    from casino.roles import Role
    from tests.casino.api.conftest import client_for, post

    table_id = open_table()
    posted = fund_pool(table_id, 100_00)
    alice = funded_player()
    with django_capture_on_commit_callbacks(execute=True):
        _, bets = play(table_id, {1: (alice, 5_00)}, ROYAL)
    listed = client_for(Role.AUDITOR).get("/api/v1/jackpots/hits?state=hit").json()
    assert [(h["hit_id"], h["trigger"], h["row"], h["pool_basis_points"], h["bet_id"])
            for h in listed["results"]] == [(bets[1], "progressive", "royal_flush", 10000, bets[1])]
    refused = post(client_for(Role.TABLE_CONTROLLER),
                   f"/api/v1/jackpots/hits/{bets[1]}/approve", {}, key="a0")
    assert refused.status_code == 403
    officer_client = client_for(Role.COMPLIANCE_OFFICER)
    approved = post(officer_client, f"/api/v1/jackpots/hits/{bets[1]}/approve", {}, key="a1")
    assert approved.status_code == 201 and approved.json()["amount_minor"] == posted
    paid = post(client_for(Role.COMPLIANCE_OFFICER), f"/api/v1/jackpots/hits/{bets[1]}/pay", {},
                key="p1")
    assert paid.status_code == 201 and paid.json()["state"] == "paid"
    history = client_for(Role.AUDITOR).get(
        f"/api/v1/jackpots/pools/{VENUE}/{HOLDEM_BONUS_PROGRESSIVE}").json()
    assert (history["pool_minor"], history["paid_minor"], history["reconciles"]) == (
        0, posted, True)
