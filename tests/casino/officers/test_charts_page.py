"""The charts page: pool balance, rake and GGR per venue, refusals per day."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from django.urls import reverse

from casino.officers import queries
from casino.poker.commands import decide_dispute
from ledger import append, open_account
from tests.casino.poker.conftest import key, officer
from tests.casino.poker.test_disputes import _disputed_hand
from tests.ledger.factories import transfer_event
from tests.casino.jackpots.conftest import table  # noqa: F401 (fixture)

DAYS = [dt.date(2026, 6, 14), dt.date(2026, 6, 15), dt.date(2026, 6, 16)]


def test_the_pool_balance_per_gaming_day_follows_the_roll_up(venues, table):
    """EUR 2,000 rolled up for 06-15 (the fixture); nothing before."""
    series = queries.jackpot_pool_balances(DAYS)
    assert series == {"poker-helsinki/bad_beat": [0, 200_000, 200_000]}


def test_rake_and_ggr_per_venue_and_day(officers):
    """A hand's rake (EUR 1.00, settled by an officer) and a tournament fee
    (EUR 5.00) at the Veikkaus room: rake 1.00, GGR 6.00; the jackpot
    funding expense is no negative GGR."""
    _, hand = _disputed_hand()
    decide_dispute(hand_id=hand.hand_id, decision="settle_verified", note="cards checked",
                   actor=officer(), idempotency_key=key())
    open_account(code="house/poker-helsinki/tournament_fees", type="revenue", currency="EUR")
    open_account(code="house/poker-helsinki/jackpot_funding", type="expense", currency="EUR")
    open_account(code="cage/test/cash", type="asset", currency="EUR")
    for source, destination, amount in (
            ("house/poker-helsinki/tournament_fees", "cage/test/cash", 5_00),
            ("cage/test/cash", "house/poker-helsinki/jackpot_funding", 3_00)):
        event = transfer_event(source, destination, amount)
        append([dataclasses.replace(event, gaming_day=DAYS[2])])
    revenue = queries.venue_revenue(DAYS)
    assert revenue["poker-helsinki"] == {"rake": [0, 0, 1_00], "ggr": [0, 0, 6_00]}


def test_refusals_per_day_split_limit_hits(venues, traffic):
    assert queries.rejections_per_day(DAYS) == {"refused": [0, 0, 1],
                                                "limit hits": [0, 0, 1]}


def test_the_charts_page_renders_inline_svg_without_external_resources(officers, traffic,
                                                                       table):
    _, hand = _disputed_hand()
    decide_dispute(hand_id=hand.hand_id, decision="settle_verified", note="cards checked",
                   actor=officer(), idempotency_key=key())
    page = officers["aude"].get(reverse("admin:officers_charts"), {"days": "7"})
    html = page.content.decode()
    assert page.status_code == 200
    for chart_id in ("chart-jackpot-pools", "chart-revenue-poker-helsinki",
                     "chart-rejections"):
        assert f'<svg xmlns="http://www.w3.org/2000/svg" id="{chart_id}"' in html
    assert "<script" not in html.split('id="content"')[1]
    # No resource from another host: every src and href is local (a bare
    # "cdn" search failed once on a random CSRF token containing it).
    external = re.findall(r'(?:src|href)="(?:https?:)?//[^"]*"', html)
    assert not external, external
    assert "16.06. 2,000.00" in html   # the pool's end-of-day balance in the desc
