"""Every admin page reads as an officer would read it (issue 17 item 1).

After a small demo-like day (cash in over the AML threshold, a refused
stake, a self-excluded player's refusal, a poker hand that hits the
bad-beat jackpot, the day's close and its journal export), an officer and
an accountant walk every change list and the first change page of every
registered model. No page may answer an error, show a JSON object, or show a
field named `*_minor` (or its label "... minor"); money is shown as
`EUR 1,234.50`.
"""

from __future__ import annotations

import datetime as dt
import re
from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.urls import reverse

from casino.reports.commands import close_day
from casino.roles import Role
from tests.casino.conftest import NOON
from tests.casino.jackpots.conftest import play_hand, table  # noqa: F401 (fixture)

from .conftest import signed_in, staff, traffic  # noqa: F401 (fixture)

DAY = dt.date(2026, 6, 16)
JSON_OBJECT = re.compile(r"""[\{\[]\s*["'][^"']+["']\s*:""")
MINOR = re.compile(r"_minor\b|\bminor\b", re.IGNORECASE)
MONEY = re.compile(r"\bEUR \d{1,3}(,\d{3})*\.\d{2}\b")
FRAMEWORK_APPS = {"auth", "authtoken", "otp_totp", "otp_static", "axes"}


class _Text(HTMLParser):
    """The text a person sees: no scripts, styles or attribute values."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs) -> None:
        if tag in ("script", "style", "template"):
            self._hidden += 1

    def handle_endtag(self, tag) -> None:
        if tag in ("script", "style", "template") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def pages() -> list[tuple[str, str]]:
    """(label, url) of every change list and its first row's change page."""
    found = []
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        if meta.app_label in FRAMEWORK_APPS:
            continue
        found.append((f"{meta.label} list",
                      reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")))
        first = model._default_manager.first()
        if first is not None:
            found.append((f"{meta.label} #{first.pk}",
                          reverse(f"admin:{meta.app_label}_{meta.model_name}_change",
                                  args=[quote(first.pk)])))
    return found


@pytest.fixture
def day(traffic, table):  # noqa: F811 (fixtures)
    play_hand(table)
    later = dt.datetime(2026, 6, 17, 12, 0, tzinfo=NOON.tzinfo)
    for venue in ("casino-helsinki", "poker-helsinki"):
        close_day(venue=venue, gaming_day=DAY, actor="acc", at=later)
    staff("exporter", Role.ACCOUNTANT)
    exported = signed_in("exporter").get(reverse("admin:reports_journalexport_export"), {
        "first_day": DAY.isoformat(), "last_day": DAY.isoformat(), "format": "csv",
        "part": "journal"})
    assert exported.status_code == 200
    return traffic


@pytest.mark.parametrize("role", [Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT])
def test_no_admin_page_shows_json_or_minor_units(day, role):
    """Every page answers 200 or 403, and none shows JSON or a *_minor field."""
    staff("reader", role)
    client = signed_in("reader")
    problems, read, money_seen = [], 0, 0
    for label, url in pages():
        response = client.get(url)
        if response.status_code == 403:
            continue
        if response.status_code != 200:
            problems.append(f"{label}: HTTP {response.status_code}")
            continue
        read += 1
        text = visible_text(response.content.decode())
        if JSON_OBJECT.search(text):
            problems.append(f"{label}: JSON {JSON_OBJECT.search(text).group(0)!r}")
        if MINOR.search(text):
            start = max(0, MINOR.search(text).start() - 40)
            problems.append(f"{label}: minor {text[start:start + 80]!r}")
        money_seen += len(MONEY.findall(text))
    assert problems == [], "\n".join(problems)
    assert read >= 20
    assert money_seen > 0


def test_the_officer_reads_every_page(day):
    """The officer (not only the accountant) may read every listed page."""
    staff("olli-reader", Role.COMPLIANCE_OFFICER)
    client = signed_in("olli-reader")
    refused = [label for label, url in pages() if client.get(url).status_code == 403]
    assert refused == []


def test_money_time_and_player_on_the_alert_page(day):
    """The AML alert: amount as EUR, time in Helsinki's zone, the player's
    name and id, and a link to the event that raised it."""
    staff("olli-reader", Role.COMPLIANCE_OFFICER)
    client = signed_in("olli-reader")
    alert = day.aml_alert
    html = client.get(reverse("admin:compliance_alert_change",
                              args=[quote(alert.id)])).content.decode()
    text = visible_text(html)
    assert "EUR 2,500.00" in text
    assert "EEST (Europe/Helsinki)" in text
    assert f"({day.player_id})" in text
    assert reverse("admin:ledger_event_change", args=[alert.raised_position]) in html


def _admin_links(html: str) -> list[str]:
    links = re.findall(r'href="(/admin/[^"#]*)"', html)
    return sorted({link.replace("&amp;", "&") for link in links
                   if "logout" not in link and "password_change" not in link})


@pytest.mark.parametrize("role", [Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT])
def test_every_link_of_a_roles_landing_page_works_for_it(day, role):
    """The index a role lands on links only to pages that role may open."""
    staff("lander", role)
    client = signed_in("lander")
    landing = client.get(reverse("admin:index"))
    assert landing.status_code == 200
    links = _admin_links(landing.content.decode())
    assert len(links) >= 10
    broken = [(link, client.get(link).status_code) for link in links]
    assert [pair for pair in broken if pair[1] != 200] == []


def test_the_day_close_is_a_table_of_sections(day):
    """Cage, tables, poker, jackpots, tournaments, player liabilities, house
    result and reconciliation, each a table of labelled amounts in EUR."""
    from casino.reports.models import DayClose

    staff("anna", Role.ACCOUNTANT)
    close = DayClose.objects.get(venue="poker-helsinki")
    response = signed_in("anna").get(reverse("admin:reports_dayclose_change",
                                             args=[quote(close.pk)]))
    html = response.content.decode()
    for key in ("cage", "tables", "poker", "jackpots", "tournaments", "players", "house",
                "reconciliation"):
        assert f'id="close-section-{key}"' in html, key
    text = visible_text(html)
    assert "Rake" in text and "Fills (chips to the tables)" in text
    assert "reconciled" in text
    assert MONEY.search(text)
    assert not JSON_OBJECT.search(text)
