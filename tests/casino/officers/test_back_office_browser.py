"""The floor's back office in a real browser (issue 17 item 6): headless
Chromium against the live server, as test_browser.py sets it up.

- an officer reads a day close (its sections), a jackpot hit (its amount in
  euros) and the daily exception report;
- a cashier shift closed short, with its reason, read on its page;
- a fill slip signed by two people, read on its page;
- an accountant downloads the summarised journal and it balances.

With SCREENSHOTS_DIR set, the day close, the cashier shift and the
threshold report are saved there as PNGs (the README's pictures:
`SCREENSHOTS_DIR=docs/screenshots pytest tests/casino/officers/test_back_office_browser.py`).
"""

from __future__ import annotations

import csv
import datetime as dt
import os
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.admin.utils import quote
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from casino.cage.commands import deposit, withdraw
from casino.cashier.commands import close_shift, open_shift, transfer
from casino.cashier.models import Shift
from casino.compliance.commands import propose_correction
from casino.jackpots.models import JackpotHit
from casino.officers.formatting import number_in_book
from casino.reports.commands import close_day
from casino.reports.models import DayClose
from casino.roles import Role
from casino.tablegames.commands import close_table, credit, fill, open_table, soft_count
from casino.tablegames.models import Slip
from tests.casino.conftest import NOON, make_player
from tests.casino.jackpots.conftest import play_hand, table  # noqa: F401 (fixture)
from tests.casino.officers.conftest import staff, traffic  # noqa: F401 (fixture)
from tests.casino.officers.test_browser import (  # noqa: F401 (fixture)
    WAIT_SECONDS,
    _downloaded,
    _sign_in,
    browser,
)

DAY = NOON.date()
VENUE = "casino-helsinki"


def _screenshot(driver, name: str) -> None:
    folder = os.environ.get("SCREENSHOTS_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(1400, min(max(height + 40, 700), 2400))
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))
        driver.set_window_size(1400, 1000)


def _wait_for(driver, element_id: str):
    return WebDriverWait(driver, WAIT_SECONDS).until(
        ready.presence_of_element_located((By.ID, element_id)))


@pytest.fixture
def floor_day(traffic, table):  # noqa: F811 (fixtures)
    """A small gaming day: cash, a jackpot hit, a shift closed short, a table
    session with a fill, a credit and a soft count, a correction, the close."""
    play_hand(table)
    players = [make_player() for _ in range(3)]
    for player, (cash_in, cash_out) in zip(players, ((1_900_00, 0), (1_500_00, 1_200_00),
                                                     (2_400_00, 0))):
        deposit(player_id=player.id, venue=VENUE, amount_minor=cash_in, currency="EUR",
                method="cash", actor="cage-carl", at=NOON)
        if cash_out:
            withdraw(player_id=player.id, venue=VENUE, amount_minor=cash_out,
                     currency="EUR", method="cash", actor="cage-carl", at=NOON)
    bank = {"5000": 20, "2000": 25, "1000": 50}
    open_shift(venue=VENUE, window="w1", bank=bank, actor="cara", at=NOON)
    transfer(venue=VENUE, source="vault", target="window:w1", count={"5000": 10},
             signed_by=["vera", "cara"], actor="cara", at=NOON)
    close_shift(venue=VENUE, window="w1", count={"5000": 28, "2000": 25, "1000": 54},
                actor="cara", reason="EUR 10 notes paid out twice on a withdrawal", at=NOON)
    open_table(venue=VENUE, table="bj-1", inventory={"10000": 20, "2500": 40, "500": 100},
               signed_by=["dora", "pia"], actor="dora", at=NOON)
    fill(venue=VENUE, table="bj-1", chips={"10000": 10}, signed_by=["cage-carl", "dora"],
         actor="cage-carl", at=NOON)
    credit(venue=VENUE, table="bj-1", chips={"2500": 20}, signed_by=["cage-carl", "dora"],
           actor="dora", at=NOON)
    close_table(venue=VENUE, table="bj-1", inventory={"10000": 15, "2500": 20},
                signed_by=["dora", "pia"], actor="dora", at=NOON)
    soft_count(venue=VENUE, table="bj-1", first_count={"5000": 79, "1000": 10},
               second_count={"5000": 80}, counted_by=["cnt-a", "cnt-b"], actor="cnt-a",
               at=NOON)
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("anna", Role.ACCOUNTANT)
    propose_correction(account=f"player/{players[0].id}/account",
                       counter_account=f"cage/{VENUE}/cash", amount_minor=-20_00,
                       reason="Deposit keyed EUR 20 too high, slip 4411", actor="olli")
    later = NOON + dt.timedelta(days=1)
    for venue in (VENUE, "poker-helsinki"):
        close_day(venue=venue, gaming_day=DAY, actor="anna", at=later)
    return players


@pytest.mark.slow
def test_an_officer_reads_a_close_a_jackpot_hit_and_the_exceptions(live_server, browser,
                                                                   floor_day):
    server = live_server.url
    _sign_in(browser, server, "olli")
    close = DayClose.objects.get(venue=VENUE)
    browser.get(f"{server}/admin/reports/dayclose/{quote(close.pk)}/change/")
    _wait_for(browser, "close-section-reconciliation")
    tables = browser.find_element(By.ID, "close-section-tables").text
    assert "Fills (chips to the tables) EUR 1,000.00" in tables
    assert "Credits (chips back to the cage) EUR 500.00" in tables
    assert "Soft count (drop boxes counted) EUR 4,000.00" in tables
    cage = browser.find_element(By.ID, "close-section-cage").text
    assert "Cashier over/short (short negative) EUR -60.00" in cage
    assert "reconciled" in browser.find_element(By.ID, "day-close-reconciled").text
    zone = browser.find_element(By.ID, "day-close-zone").text
    assert "Time zone Europe/Helsinki" in zone and "EEST" in zone
    _screenshot(browser, "day-close")

    hit = JackpotHit.objects.get()
    browser.get(f"{server}/admin/jackpots/jackpothit/{quote(hit.pk)}/change/")
    _wait_for(browser, "content-main")
    page = browser.find_element(By.ID, "content-main").text
    assert "EUR " in page and "minor" not in page.lower()
    _screenshot(browser, "jackpot-hit")

    from casino.compliance.models import Alert

    alert = Alert.objects.filter(kind="cash_short").get()
    browser.get(f"{server}/admin/compliance/alert/{quote(alert.pk)}/change/")
    page = _wait_for(browser, "content-main").text
    # Numbered in its own book (the cashier's shift is on the venue's): "#12 in ...".
    number = number_in_book(alert.raised_position)
    assert "EUR 60.00" in page and f"event {number}" in page
    _screenshot(browser, "alert")
    browser.find_element(By.LINK_TEXT, f"event {number}").click()
    page = _wait_for(browser, "content-main").text
    assert "Alert (cash short)" in page and "minor" not in page.lower()
    _screenshot(browser, "event")

    browser.get(f"{server}/admin/officers/reports/?report=exception_report"
                f"&first_day={DAY}&last_day={DAY}&format=html")
    result = _wait_for(browser, "report-result").text
    assert "correction proposed" in result and "olli" in result
    assert "Deposit keyed EUR 20 too high, slip 4411" in result

    browser.get(f"{server}/admin/officers/reports/?report=cash_by_player_day"
                f"&first_day={DAY}&last_day={DAY}&format=html")
    result = _wait_for(browser, "report-result").text
    assert "EUR 1,500.00" in result and "EUR 1,200.00" in result
    _screenshot(browser, "threshold-report")

    # June's charts, read in any month: a date range, units on the axis.
    browser.get(f"{server}/admin/officers/charts/?first=2026-06-10&last=2026-06-20")
    pools = _wait_for(browser, "chart-jackpot-pools")
    assert pools.find_element(By.CSS_SELECTOR, "text.axis-unit").text == "EUR"
    refusals = browser.find_element(By.ID, "chart-rejections")
    assert refusals.find_element(By.CSS_SELECTOR, "text.axis-unit").text == "refusals"
    _screenshot(browser, "charts")

    # Every book's events wait for verification; the screen lists each book.
    browser.get(f"{server}/admin/officers/verify/")
    books = _wait_for(browser, "verify-books").text
    assert "main" in books and "casino-helsinki" in books
    _screenshot(browser, "verify-books")


@pytest.mark.slow
def test_a_shift_closed_short_and_a_fill_signed_by_two(live_server, browser, floor_day):
    server = live_server.url
    _sign_in(browser, server, "olli")
    shift = Shift.objects.get()
    browser.get(f"{server}/admin/cashier/shift/{quote(shift.pk)}/change/")
    page = _wait_for(browser, "content-main").text
    assert "EUR -60.00" in page                                   # the over/short
    assert "EUR 2,500.00" in page                                 # expected
    assert "EUR 2,440.00" in page                                 # counted
    assert "EUR 10 notes paid out twice on a withdrawal" in page
    assert "EEST (Europe/Helsinki)" in page
    _screenshot(browser, "cashier-shift")

    slip = Slip.objects.get(kind="fill")
    browser.get(f"{server}/admin/tablegames/slip/{quote(slip.pk)}/change/")
    page = _wait_for(browser, "content-main").text
    assert "cage-carl" in page and "dora" in page and "EUR 1,000.00" in page


@pytest.mark.slow
def test_an_accountant_downloads_the_summarised_journal(live_server, browser, floor_day):
    server = live_server.url
    _sign_in_accountant(browser, server)
    browser.get(f"{server}/admin/reports/journalexport/export/")
    for field, value in (("id_first_day", DAY.isoformat()), ("id_last_day", DAY.isoformat())):
        browser.execute_script("arguments[0].value = arguments[1]",
                               browser.find_element(By.ID, field), value)
    browser.find_element(By.CSS_SELECTOR, "#id_format option[value=csv]").click()
    browser.find_element(By.CSS_SELECTOR, "#id_part option[value=summary]").click()
    browser.find_element(By.CSS_SELECTOR, "input[type=submit][value=Download]").click()
    exported = _downloaded(browser.download_dir, "journal-*-summary.csv")
    with exported.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["venue"] for row in rows} >= {VENUE, "poker-helsinki"}
    for entry in {row["entry"] for row in rows}:
        lines = [row for row in rows if row["entry"] == entry]
        assert sum(Decimal(r["debit"]) for r in lines) == sum(Decimal(r["credit"])
                                                              for r in lines)


def _sign_in_accountant(driver, server: str) -> None:
    from tests.casino.officers.conftest import PASSWORD

    driver.delete_all_cookies()
    driver.get(f"{server}/admin/login/")
    driver.find_element(By.ID, "id_username").send_keys("anna")
    driver.find_element(By.ID, "id_password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    _wait_for(driver, "accounting-entry")
