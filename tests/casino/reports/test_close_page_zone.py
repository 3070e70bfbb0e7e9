"""Issue 17 item 5: the day close page names the venue's time zone.

The close is computed per gaming day in the venue's zone; the page says
which zone and when the day ran in it (admin only: the close computation,
casino/reports/close.py, is unchanged).
"""

from __future__ import annotations

import datetime as dt

from django.contrib.admin.utils import quote
from django.urls import reverse

from casino.cage import commands as cage
from casino.reports.admin import day_span
from casino.reports.commands import close_day
from casino.reports.models import DayClose
from casino.roles import Role
from casino.rules.models import Venue
from tests.casino.conftest import NOON, make_player
from tests.casino.officers.conftest import signed_in, staff

VENUE = "casino-helsinki"
DAY = dt.date(2026, 6, 16)


def test_the_close_page_shows_the_zone_and_the_days_span(venues):
    player = make_player()
    cage.deposit(player_id=player.id, venue=VENUE, amount_minor=50_000, currency="EUR",
                 method="cash", actor="cage", idempotency_key="zone-deposit", at=NOON)
    close_day(venue=VENUE, gaming_day=DAY, actor="anna", at=NOON + dt.timedelta(days=1))
    close = DayClose.objects.get(venue=VENUE, gaming_day=DAY)
    start = Venue.objects.get(code=VENUE).gaming_day_start
    staff("anna", Role.ACCOUNTANT)
    html = signed_in("anna").get(
        reverse("admin:reports_dayclose_change", args=[quote(close.pk)])).content.decode()
    assert 'id="day-close-zone"' in html
    assert "Europe/Helsinki" in html
    assert f"2026-06-16 {start:%H:%M} EEST to 2026-06-17 {start:%H:%M} EEST" in html
    assert "(24 hours)" in html


def test_the_day_the_clocks_go_back_has_25_hours(venues):
    """Europe/Helsinki leaves summer time on 2026-10-25 at 04:00 EEST."""
    start = Venue.objects.get(code=VENUE).gaming_day_start
    day = dt.date(2026, 10, 25) if start < dt.time(4) else dt.date(2026, 10, 24)
    span = day_span(DayClose(venue=VENUE, gaming_day=day))
    assert span["name"] == "Europe/Helsinki"
    assert span["start"].endswith("EEST") and span["end"].endswith("EET")
    assert span["hours"] == "25"


def test_a_venue_in_another_zone_shows_its_own(venues):
    from casino.rules.commands import register_venue

    register_venue(code="olympic-test", name="olympic-test", rulebook_id="olympic-tallinn")
    span = day_span(DayClose(venue="olympic-test", gaming_day=DAY))
    assert span["name"] == "Europe/Tallinn"
    assert "EEST" in span["start"]
    assert day_span(DayClose(venue="nowhere", gaming_day=DAY)) is None
