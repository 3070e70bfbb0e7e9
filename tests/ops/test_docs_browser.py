"""The API docs render in a real browser with the network cut off: Swagger UI
and Redoc from this server only, under the production CSP (issue 18 item 3).

Chromium blocks every host but the live server (--host-resolver-rules), so
a CDN reference would leave the page blank, as the issue found; the browser's
console must show no CSP violation either.
"""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait

from tests.casino.officers.test_browser import _binary

WAIT_SECONDS = 30


@pytest.fixture
def offline_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = _binary("CHROMIUM_BIN", "chromium", "chromium-browser",
                                      "google-chrome")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1400,1000",
                     # Offline: every name but localhost resolves nowhere.
                     "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=_binary(
        "CHROMEDRIVER_BIN", "chromedriver")), options=options)
    yield driver
    driver.quit()


def _csp_violations(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser")
            if "Content Security Policy" in entry["message"]]


@pytest.mark.django_db
def test_swagger_ui_renders_offline_under_the_csp(live_server, offline_browser):
    server = live_server.url.replace("127.0.0.1", "localhost")
    offline_browser.get(f"{server}/api/docs/")
    WebDriverWait(offline_browser, WAIT_SECONDS).until(ready.text_to_be_present_in_element(
        (By.CSS_SELECTOR, ".swagger-ui .info .title"), "casino-ledger API"))
    # The operations of the schema are listed.
    WebDriverWait(offline_browser, WAIT_SECONDS).until(ready.presence_of_element_located(
        (By.CSS_SELECTOR, ".swagger-ui .opblock")))
    assert _csp_violations(offline_browser) == []


@pytest.mark.django_db
def test_redoc_renders_offline(live_server, offline_browser):
    server = live_server.url.replace("127.0.0.1", "localhost")
    offline_browser.get(f"{server}/api/redoc/")
    WebDriverWait(offline_browser, WAIT_SECONDS).until(ready.text_to_be_present_in_element(
        (By.CSS_SELECTOR, "h1"), "casino-ledger API"))
