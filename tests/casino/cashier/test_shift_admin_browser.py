"""Issue 17 item 2 in a real browser: a cashier opens a shift from the admin
with a counted bank, then closes it EUR 60 short with a reason (headless
Chromium against the live server, as tests/casino/officers/test_browser.py
sets it up). With SCREENSHOTS_DIR set, the close form is saved as a PNG.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import Select, WebDriverWait

from casino.cashier.models import Shift, ShiftState
from casino.compliance.models import Alert
from casino.roles import Role
from tests.casino.officers.conftest import PASSWORD, staff
from tests.casino.officers.test_browser import WAIT_SECONDS, browser  # noqa: F401 (fixture)


def _wait_for(driver, element_id: str):
    return WebDriverWait(driver, WAIT_SECONDS).until(
        ready.presence_of_element_located((By.ID, element_id)))


def _type(driver, field_id: str, value) -> None:
    field = driver.find_element(By.ID, field_id)
    field.clear()
    field.send_keys(str(value))


@pytest.mark.slow
def test_a_cashier_opens_and_closes_a_shift_short_in_the_admin(live_server, browser, venues):
    staff("cara", Role.CAGE)
    server = live_server.url
    browser.get(f"{server}/admin/login/")
    browser.find_element(By.ID, "id_username").send_keys("cara")
    browser.find_element(By.ID, "id_password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    _wait_for(browser, "user-tools")
    browser.get(f"{server}/admin/cashier/shift/")
    _wait_for(browser, "shift-open-link").click()
    _wait_for(browser, "shift-form-form")
    Select(browser.find_element(By.ID, "id_venue")).select_by_value("casino-helsinki")
    _type(browser, "id_window", "w1")
    for denomination, pieces in ((5000, 20), (2000, 25), (1000, 50)):
        _type(browser, f"id_bank_{denomination}", pieces)
    browser.find_element(By.ID, "shift-form-submit").click()
    _wait_for(browser, "shift-close-link")
    assert "with a bank of EUR 2,000.00" in browser.find_element(By.CLASS_NAME,
                                                                  "messagelist").text

    browser.find_element(By.ID, "shift-close-link").click()
    _wait_for(browser, "shift-form-form")
    for denomination, pieces in ((5000, 20), (2000, 25), (1000, 44)):
        _type(browser, f"id_count_{denomination}", pieces)
    browser.find_element(By.ID, "shift-form-submit").click()
    _wait_for(browser, "shift-form-form")
    refused = browser.find_element(By.CLASS_NAME, "messagelist").text
    assert "cashier.reason_required" in refused and "short by EUR 60.00" in refused
    assert Shift.objects.get().state == ShiftState.OPEN
    _type(browser, "id_reason", "EUR 10 notes paid out twice")
    folder = os.environ.get("SCREENSHOTS_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        browser.set_window_size(1400, 1500)
        browser.save_screenshot(str(Path(folder) / "cashier-shift-close-form.png"))
    browser.find_element(By.ID, "shift-form-submit").click()
    _wait_for(browser, "content-main")
    WebDriverWait(browser, WAIT_SECONDS).until(
        lambda driver: "closed:" in driver.find_element(By.CLASS_NAME, "messagelist").text)
    message = browser.find_element(By.CLASS_NAME, "messagelist").text
    assert "expected EUR 2,000.00: short by EUR 60.00" in message
    shift = Shift.objects.get()
    assert (shift.state, shift.over_short_minor, shift.cashier) == (
        ShiftState.CLOSED, -60_00, "cara")
    assert Alert.objects.filter(kind="cash_short").count() == 1
