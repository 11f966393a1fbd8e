"""The system Chromium driven by Selenium (no browser download), and the explorer page's test hooks.

Chromium and chromedriver come from Debian (`apt-get install chromium chromium-driver`, done by
`scripts/test.sh` where apt is available). Used by the browser test and `scripts/bench_explorer.py`.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

#: Where the page keeps the bearer token (sessionStorage key of explorer.js).
TOKEN_KEY = "pathrag_gds.token"
#: Debian's names first; other distributions ship `chromium-browser`.
BROWSERS = ("chromium", "chromium-browser")
DRIVERS = ("chromedriver",)


def find_chromium() -> tuple[str, str] | None:
    """Paths of the system Chromium and its driver, or None when either is missing."""
    browser = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver = next((p for p in map(shutil.which, DRIVERS) if p), None)
    return (browser, driver) if browser and driver else None


MISSING = (
    "Chromium and its driver are not installed: run `apt-get install -y chromium chromium-driver` "
    "(scripts/test.sh does it where apt is available)"
)


@contextmanager
def chromium(width: int = 1400, height: int = 950) -> Iterator[WebDriver]:
    """A headless system Chromium that keeps the console log (raises RuntimeError when missing)."""
    found = find_chromium()
    if found is None:
        raise RuntimeError(MISSING)
    browser, driver_path = found
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    size = f"--window-size={width},{height}"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", size):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def open_page(driver: WebDriver, base_url: str, token: str | None = None) -> None:
    """Open `/ui` with `token` in the tab's session storage (None: none), and drop old console lines."""
    driver.get(base_url + "/ui")
    if token is None:
        driver.execute_script("sessionStorage.clear()")
    else:
        driver.execute_script("sessionStorage.setItem(arguments[0], arguments[1])", TOKEN_KEY, token)
    driver.get_log("browser")
    driver.refresh()
    wait_for(driver, lambda: driver.execute_script("return document.readyState") == "complete", 30)


def wait_for(driver: WebDriver, check: Any, timeout: float) -> None:
    """Wait until `check()` is truthy."""
    WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda _: check())


def text_of(driver: WebDriver, element_id: str) -> str:
    """The visible text of an element (empty when hidden)."""
    text: str = driver.find_element(By.ID, element_id).text
    return text


def ask(driver: WebDriver, question: str, hop_depth: int | None = None, top_n: int | None = None) -> float:
    """Type a question (and options), press ask; returns time.monotonic() of the click."""
    for element_id, value in (("question", question), ("hop-depth", hop_depth), ("top-n", top_n)):
        if value is not None:
            box = driver.find_element(By.ID, element_id)
            box.clear()
            box.send_keys(str(value))
    t0 = time.monotonic()
    driver.find_element(By.ID, "ask").click()
    return t0


def wait_answered(driver: WebDriver, timeout: float = 180) -> str:
    """Wait until the page shows a result or an error; returns the status state (`done` / `error`)."""
    status = driver.find_element(By.ID, "status")
    wait_for(driver, lambda: status.get_attribute("data-state") in ("done", "error"), timeout)
    state: str = status.get_attribute("data-state") or ""
    return state


def console_errors(driver: WebDriver, allowed_statuses: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    """SEVERE console lines, except network lines of the HTTP statuses a test provokes on purpose."""
    out = []
    for entry in driver.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        message = entry["message"]
        if entry["source"] == "network" and any(
            f"status of {status} " in message for status in allowed_statuses
        ):
            continue
        out.append(entry)
    return out
