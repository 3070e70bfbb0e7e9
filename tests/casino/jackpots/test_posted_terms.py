"""Posted terms: the pools whose rules the venue posts become payable (issue 14 item 11).

002:L1792: the RAY casino's bad-beat criteria are announced in the gaming
area; 002:L1808: so are the shares and the guaranteed minimum. 003:L141-142:
Tallinn takes EUR 1 a pot for its jackpot and gives no award rule. Without
posted terms such a pool detects no hit; a compliance officer's record of
the posted notice (decision jackpots.posted_terms) makes it payable, saying
who posted what and when. The Veikkaus room's terms are the seed's
(000:L2880-3186) and cannot be replaced by a posting.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.jackpots import commands
from casino.jackpots.accounts import funding_account, pool_account
from casino.jackpots.errors import JackpotError
from casino.jackpots.events import HIT_RECORDED, TERMS_POSTED
from casino.jackpots.models import JackpotHit, JackpotPool, JackpotTerms
from casino.poker import commands as poker
from ledger import rebuild_projections
from ledger.models import Event
from tests.casino.jackpots.conftest import contribute, balance, play_hand, pool_at
from tests.casino.poker.conftest import key, seat_players

VENUE = "casino-helsinki"
POSTED = dict(
    notice="Gaming-area notice BB-1, poker room entrance",
    criteria={"1": {"texas_holdem": "full_house:aces_over_kings"}},
    shares={"1": {"loser_share": 4000, "winner_share": 2000, "others_share": 2000}},
    base_guarantee_minor=50_000,
)


def _open_ray_table():
    return poker.open_table(
        venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        rake="house_fee", rake_percent_basis_points=500, jackpot=True, jackpot_drop_minor=100,
        actor="floor", idempotency_key=key("table"))


@pytest.fixture
def ray_pool(venues):
    """The RAY casino's bad-beat pool holding EUR 2,000.00 posted."""
    pool_at(VENUE, dt.date(2026, 6, 15))
    contribute(VENUE, dt.date(2026, 6, 15), [100_000, 100_000])
    commands.rollup_closed_days(venue=VENUE)
    return VENUE


def test_without_posted_terms_a_ray_casino_table_takes_no_drop_002_L1792(ray_pool):
    """002:L1792, L1808 (decision jackpots.posted_terms.before_drops): the
    criteria and shares are the casino's posting; before it is recorded no
    jackpot table opens, so no drop is taken that no rule could pay out. The
    refusal is recorded on the venue's stream, and the pool pays nothing."""
    from casino.poker.errors import PokerError
    from casino.poker.models import Table

    with pytest.raises(PokerError) as refused:
        _open_ray_table()
    assert (refused.value.code, refused.value.status) == (
        "poker.jackpot_terms_not_posted", 409)
    assert not Table.objects.exists()
    [recorded] = Event.objects.filter(stream=f"venue/{VENUE}", type="poker.table_rejected")
    assert recorded.payload["code"] == "poker.jackpot_terms_not_posted"
    assert JackpotPool.objects.get(key=f"{VENUE}/bad_beat").hits_enabled is False
    # A table without the jackpot opens as before.
    assert poker.open_table(
        venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=100,
        big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000, buy_in_minor_max=40_000,
        rake="house_fee", rake_percent_basis_points=500, actor="floor",
        idempotency_key=key("table")).drop is None


def test_tallinn_takes_no_drop_before_its_award_rules_are_posted_003_L141(venues):
    """003:L141-142: Tallinn's EUR 1 a pot funds a jackpot whose award rules
    the casino posts; before they are recorded no jackpot table opens."""
    from casino.poker.errors import PokerError

    with pytest.raises(PokerError) as refused:
        poker.open_table(venue="olympic-tallinn", variant="holdem", structure="no_limit",
                         small_blind_minor=100, big_blind_minor=200, seats_max=9,
                         buy_in_minor_min=10_000, buy_in_minor_max=40_000, rake="standard",
                         jackpot=True, actor="floor", idempotency_key=key("table"))
    assert refused.value.code == "poker.jackpot_terms_not_posted"
    commands.post_terms(venue="olympic-tallinn", actor="officer-3", **POSTED)
    opened = poker.open_table(venue="olympic-tallinn", variant="holdem", structure="no_limit",
                              small_blind_minor=100, big_blind_minor=200, seats_max=9,
                              buy_in_minor_min=10_000, buy_in_minor_max=40_000,
                              rake="standard", jackpot=True, actor="floor",
                              idempotency_key=key("table"))
    assert opened.drop is not None


def test_posted_terms_make_the_pool_payable_and_say_who_posted_them_002_L1808(ray_pool):
    """002:L1792, L1808: the officer records the posted notice; the next
    hand's bad beat is a hit under it, approved with its shares (40 %, 20 %,
    20 % over four others) of the EUR 2,000 posted, and the base topped up to
    the posted EUR 500."""
    posted = commands.post_terms(venue=VENUE, actor="officer-7", idempotency_key="terms-1",
                                 **POSTED)
    terms = JackpotTerms.objects.get(position=posted.position)
    assert (terms.posted_by, terms.effective_day, terms.notice) == (
        "officer-7", dt.date(2026, 6, 16), POSTED["notice"])
    event = Event.objects.get(type=TERMS_POSTED)
    assert event.metadata["actor"] == "officer-7"
    assert JackpotPool.objects.get(key=f"{VENUE}/bad_beat").base_guarantee_minor == 50_000

    table_id = _open_ray_table().table_id
    seat_players(table_id, {seat: 20_000 for seat in range(1, 7)})
    hand_id, _ = play_hand(table_id)
    hit = JackpotHit.objects.get(id=hand_id)
    assert (hit.category, hit.threshold) == (1, "full_house:aces_over_kings")
    recorded = Event.objects.get(type=HIT_RECORDED).payload
    assert recorded["terms_position"] == posted.position
    approved = commands.approve_hit(hit_id=hand_id, actor="officer-1", idempotency_key="ap")
    amounts = {s["seat"]: s["amount_minor"] for s in approved.shares}
    assert amounts == {1: 80_000, 2: 40_000, 3: 10_000, 4: 10_000, 5: 10_000, 6: 10_000}
    paid = commands.pay_hit(hit_id=hand_id, actor="officer-2", idempotency_key="pay")
    assert paid.top_up_minor == 50_000 - 40_000
    assert balance(pool_account(VENUE, "bad_beat")) == 50_000
    assert balance(funding_account(VENUE)) == 10_000

    again = commands.post_terms(venue=VENUE, actor="officer-7", idempotency_key="terms-1",
                                **POSTED)
    assert again.replayed and JackpotTerms.objects.count() == 1
    live = list(JackpotTerms.objects.values())
    rebuild_projections()
    assert list(JackpotTerms.objects.values()) == live


def test_tallinn_takes_posted_award_rules_003_L141(venues):
    """003:L141-142: the seed funds the Olympic Poker Jackpot only; the award
    rules the casino posts are recorded and make its pool payable."""
    posted = commands.post_terms(venue="olympic-tallinn", actor="officer-3", **POSTED)
    pool = JackpotPool.objects.get(key="olympic-tallinn/bad_beat")
    assert (pool.hits_enabled, pool.base_guarantee_minor) == (True, 50_000)
    assert JackpotTerms.objects.get(position=posted.position).posted_by == "officer-3"


def test_the_veikkaus_room_refuses_posted_terms_000_L3185(venues):
    """000:L2880-3186: the room's criteria, shares and EUR 1,000 base are the
    seed's; a posting cannot replace them, and nothing is written."""
    pool_at("poker-helsinki", dt.date(2026, 6, 16))
    with pytest.raises(JackpotError) as refused:
        commands.post_terms(venue="poker-helsinki", actor="officer-7", **POSTED)
    assert (refused.value.code, refused.value.status) == ("jackpots.terms_fixed_by_rulebook", 409)
    assert not Event.objects.filter(type=TERMS_POSTED).exists()


@pytest.mark.parametrize(("case", "change"), [
    ("unknown_threshold_case", {"criteria": {"1": {"texas_holdem": "two_pair:any"}}}),
    ("unknown_family_case", {"criteria": {"1": {"pineapple": "four_of_a_kind:aces"}}}),
    ("shares_over_the_pool_case", {"shares": {"1": {"loser_share": 6000,
                                                   "winner_share": 3000,
                                                   "others_share": 2000}}}),
    ("shares_missing_case", {"shares": {"1": {"loser_share": 4000, "winner_share": 2000}}}),
    ("no_notice_case", {"notice": " "}),
    ("negative_base_case", {"base_guarantee_minor": -1}),
], ids=lambda value: value if isinstance(value, str) else "")
def test_invalid_posted_terms_are_refused_and_nothing_written(venues, case, change):
    """002:L1792-1808: terms the hit check could not apply are refused (400)."""
    with pytest.raises(JackpotError) as refused:
        commands.post_terms(venue=VENUE, actor="officer-7", **{**POSTED, **change})
    assert (refused.value.code, refused.value.status) == ("jackpots.invalid_terms", 400)
    assert not Event.objects.filter(type=TERMS_POSTED).exists()
    assert not JackpotTerms.objects.exists()


def test_posted_terms_are_posted_and_read_over_the_api(ray_pool):
    """002:L1792, L1808: an officer POSTs the casino's posted terms to the
    pool; readers GET them with who posted them and when; others may not
    post, a replay under the key writes nothing, unknown fields are a 400."""
    from tests.casino.api.conftest import client_for, post
    from casino.roles import Role

    url = f"/api/v1/jackpots/pools/{VENUE}/bad_beat/terms"
    body = {"notice": POSTED["notice"], "criteria": POSTED["criteria"],
            "shares": POSTED["shares"], "base_guarantee": "500.00"}
    assert post(client_for(Role.ACCOUNTANT), url, body, key="t0").status_code == 403
    officer = client_for(Role.COMPLIANCE_OFFICER, "officer-kaisa")
    assert post(officer, url, {**body, "drop": "1.00"}, key="t1").status_code == 400
    posted = post(officer, url, body, key="t2")
    assert posted.status_code == 201
    assert (posted.json()["posted_by"], posted.json()["base_guarantee_minor"]) == (
        "officer-kaisa", 50_000)
    again = post(officer, url, body, key="t2")
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    listed = client_for(Role.AUDITOR).get(url)
    assert listed.status_code == 200
    assert [(t["posted_by"], t["criteria"]) for t in listed.json()["results"]] == [
        ("officer-kaisa", POSTED["criteria"])]
    assert _open_ray_table().drop is not None
