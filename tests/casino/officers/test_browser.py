"""The officers' admin in a real browser: headless Chromium driven by Selenium.

The live server (pytest-django's, on loopback, in this process, on the test
database) serves the admin; Chromium and chromedriver come from the system
(Debian's `chromium` and `chromium-driver`, installed by
scripts/browser_deps.sh, or CHROMIUM_BIN / CHROMEDRIVER_BIN). The test
never skips: without a browser it fails and says what to install.

One officer's afternoon, as the issue describes it: sign in, open an alert,
open a case from it, approve a pending jackpot payout and have a second
officer pay it, run the chain verification, download the journal export
and check that its debits and credits balance and match the ledger.
"""

from __future__ import annotations

import csv
import os
import shutil
import time
from decimal import Decimal
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from casino.jackpots.models import HitState, JackpotHit
from ledger.models import Event, Posting
from tests.casino.jackpots.conftest import play_hand, table  # noqa: F401 (fixture)
from tests.casino.officers.conftest import PASSWORD, staff, traffic  # noqa: F401 (fixture)
from casino.roles import Role

WAIT_SECONDS = 20


def _binary(variable: str, *names: str) -> str:
    path = os.environ.get(variable) or next(
        (found for name in names if (found := shutil.which(name))), None)
    if not path:
        pytest.fail(f"no {names[0]} found: run scripts/browser_deps.sh (Debian packages"
                    f" chromium and chromium-driver) or set {variable}")
    return path


@pytest.fixture
def browser(tmp_path):
    options = Options()
    options.binary_location = _binary("CHROMIUM_BIN", "chromium", "chromium-browser",
                                      "google-chrome")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(argument)
    service = Service(executable_path=_binary("CHROMEDRIVER_BIN", "chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(tmp_path)})
    driver.download_dir = tmp_path
    yield driver
    driver.quit()


def _sign_in(driver, server: str, username: str) -> None:
    driver.delete_all_cookies()
    driver.get(f"{server}/admin/login/")
    driver.find_element(By.ID, "id_username").send_keys(username)
    driver.find_element(By.ID, "id_password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    WebDriverWait(driver, WAIT_SECONDS).until(ready.presence_of_element_located(
        (By.ID, "officers-desk-link")))


def _desk(driver, server: str) -> None:
    driver.get(f"{server}/admin/officers/")
    WebDriverWait(driver, WAIT_SECONDS).until(ready.presence_of_element_located(
        (By.ID, "desk-figures")))


def _click(driver, by: str, value: str) -> None:
    WebDriverWait(driver, WAIT_SECONDS).until(
        ready.element_to_be_clickable((by, value))).click()


def _downloaded(folder: Path, pattern: str) -> Path:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        files = [f for f in folder.glob(pattern) if not f.name.endswith(".crdownload")]
        if files:
            return files[0]
        time.sleep(0.2)
    raise AssertionError(f"no {pattern} downloaded to {folder}")


@pytest.mark.slow
def test_an_officer_works_through_the_desk_in_a_browser(live_server, browser, traffic,
                                                        table):
    server = live_server.url
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("outi", Role.COMPLIANCE_OFFICER)
    hand_id, _ = play_hand(table)
    assert JackpotHit.objects.get(id=hand_id).state == HitState.HIT

    # Sign in; the desk lists the AML alert.
    _sign_in(browser, server, "olli")
    _click(browser, By.ID, "officers-desk-link")
    alert_link = browser.find_element(
        By.CSS_SELECTOR, f'tr[data-alert-id="{traffic.aml_alert.id}"] a.alert-link')
    alert_link.click()

    # Open a case from the alert's page.
    WebDriverWait(browser, WAIT_SECONDS).until(
        ready.presence_of_element_located((By.ID, "open-case-form")))
    browser.find_element(By.ID, "open-case-title").send_keys("Cash over EUR 2,000")
    browser.find_element(By.ID, "open-case-note").send_keys("CDD documents requested.")
    _click(browser, By.ID, "open-case-submit")
    state = WebDriverWait(browser, WAIT_SECONDS).until(
        ready.presence_of_element_located((By.ID, "case-state")))
    assert "open" in state.text.lower()
    assert Event.objects.filter(type="compliance.case_opened").count() == 1

    # Approve the jackpot hit; the approver may not pay it.
    _desk(browser, server)
    _click(browser, By.CSS_SELECTOR, f'tr[data-hit-id="{hand_id}"] input.jackpot-approve')
    WebDriverWait(browser, WAIT_SECONDS).until(
        lambda _: JackpotHit.objects.get(id=hand_id).state == HitState.APPROVED)
    # A second officer pays it.
    _sign_in(browser, server, "outi")
    _desk(browser, server)
    _click(browser, By.CSS_SELECTOR, f'tr[data-hit-id="{hand_id}"] input.jackpot-pay')
    WebDriverWait(browser, WAIT_SECONDS).until(
        lambda _: JackpotHit.objects.get(id=hand_id).state == HitState.PAID)
    hit = JackpotHit.objects.get(id=hand_id)
    assert (hit.approved_by, hit.paid_by) == ("olli", "outi")

    # Verify the chain, from the admin's front page.
    browser.get(f"{server}/admin/")
    _click(browser, By.ID, "officers-verify-link")
    _click(browser, By.ID, "verify-chain-submit")
    result = WebDriverWait(browser, WAIT_SECONDS).until(
        ready.presence_of_element_located((By.ID, "verify-head")))
    assert "ok" in browser.find_element(By.ID, "content-main").text.lower(), result.text
    assert Event.objects.filter(type="compliance.chain_verified").count() == 1

    # Download the day's journal as CSV and check its totals against the ledger.
    browser.get(f"{server}/admin/reports/journalexport/export/")
    for field, value in (("id_first_day", "2026-06-16"), ("id_last_day", "2026-06-16")):
        browser.execute_script("arguments[0].value = arguments[1]",
                               browser.find_element(By.ID, field), value)
    browser.find_element(By.CSS_SELECTOR, "#id_format option[value=csv]").click()
    _click(browser, By.CSS_SELECTOR, "input[type=submit][value=Download]")
    exported = _downloaded(browser.download_dir, "journal-2026-06-16-2026-06-16*.csv")
    with exported.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    debits = sum(Decimal(row["debit"] or "0") for row in rows)
    credits = sum(Decimal(row["credit"] or "0") for row in rows)
    assert debits == credits > 0
    day_postings = Posting.objects.filter(event__gaming_day="2026-06-16",
                                          event_id__lte=max(int(r["position"]) for r in rows))
    assert len(rows) == day_postings.count()
    assert debits * 100 == sum(p.amount_minor for p in day_postings if p.amount_minor > 0)
    assert Event.objects.filter(type="reports.journal_exported").count() == 1
