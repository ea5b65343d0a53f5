"""The playground's page in a real browser (Debian's chromium + chromedriver, driven by
Selenium): what the browser tests share. The loopback Discord with its web page runs in a
thread of the test's process (``Loop``, the ``playground`` fixture); the bot is a real
subprocess pointed at it. A test module sets ``pytestmark = NEEDS_BROWSER`` (skipped, saying
why, without selenium, chromium or chromedriver) and imports the fixture."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from loopback.playground import Playground

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def _chromium() -> tuple[str | None, str | None]:
    browser = next((p for p in (shutil.which(n) for n in
                                ("chromium", "chromium-browser", "google-chrome")) if p), None)
    return browser, shutil.which("chromedriver")


CHROMIUM, CHROMEDRIVER = _chromium()
try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement
    from selenium.webdriver.support.ui import WebDriverWait
    SELENIUM = True
except ImportError:  # pragma: no cover - requirements-dev.txt pins it
    SELENIUM = False

NEEDS_BROWSER = [
    pytest.mark.skipif(not SELENIUM, reason="selenium is not installed (requirements-dev.txt)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium browser found (Debian package "
                       "chromium; .ci/run installs it with apt-get)"),
    pytest.mark.skipif(CHROMEDRIVER is None, reason="no chromedriver found (Debian package "
                       "chromium-driver; .ci/run installs it with apt-get)"),
]


class Loop:
    """An event loop in a thread, for the loopback server and the bot process."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn: Callable[[], T]) -> T:
        async def wrapped() -> T:
            return fn()
        return self.run(wrapped())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def browser(user_data: str) -> WebDriver:
    opts = webdriver.ChromeOptions()
    assert CHROMIUM is not None
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={user_data}", "--window-size=1200,900"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))


def wait(driver: WebDriver, cond: Callable[[WebDriver], Any], what: str,
         timeout: float = 15) -> Any:
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,)).until(cond)
    except Exception as exc:
        text = driver.find_element(By.ID, "messages").text[-1500:]
        raise AssertionError(f"timed out waiting for {what}; the page shows:\n{text}") from exc


def last_button(driver: WebDriver, label: str, within: str | None = None
                ) -> WebElement | None:
    scope = f"//div[@id='m{within}']" if within else ""
    found = driver.find_elements(
        By.XPATH, f"{scope}//button[contains(@class,'btn') and not(@disabled) and "
                  f"contains(normalize-space(.), '{label}')]")
    return found[-1] if found else None


def click(driver: WebDriver, label: str, within: str | None = None) -> str:
    """Click the newest enabled button with this label (in message ``within`` if given)
    and return the id of the message it is on (the page re-renders a message when the bot
    edits it, so a button found a moment ago may be gone: find it again)."""
    for _ in range(20):
        button = wait(driver, lambda d: last_button(d, label, within), f"a button {label!r}")
        try:
            mid = str(button.find_element(
                By.XPATH, "ancestor::div[contains(@class,'msg-wrap')]").get_attribute("data-id"))
            button.click()
            return mid
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"the button {label!r} kept changing under the click")


def message(driver: WebDriver, mid: str) -> WebElement | None:
    """The message with this id as the page shows it now (re-rendered on every edit)."""
    found = driver.find_elements(By.CSS_SELECTOR, f"#m{mid} .msg")
    return found[0] if found else None


def failure(driver: WebDriver, mid: str) -> str:
    """The "interaction failed" note the page shows under message ``mid``, if any."""
    found = driver.find_elements(By.CSS_SELECTOR, f"#m{mid} .failed")
    return found[0].text if found else ""


def answered(driver: WebDriver, mid: str, question: str, what: str) -> WebElement:
    """Wait until message ``mid`` (a private menu the bot edits in place) asks ``question``;
    a click on it that failed fails here at once, with the page's note."""
    found = wait(driver, lambda d: failure(d, mid) or ((m := message(d, mid)) and
                                                       question in m.text and m), what)
    if isinstance(found, str):
        raise AssertionError(f"waiting for {what}, the click failed: {found}")
    return cast(WebElement, found)


def newest_ephemeral(driver: WebDriver) -> WebElement | None:
    found = driver.find_elements(By.CSS_SELECTOR, ".msg.ephemeral")
    return found[-1] if found else None


def newest_ephemeral_id(driver: WebDriver) -> str | None:
    """The id of the newest private message (read at once: the element may be re-rendered
    by an edit a moment later, and the wait that calls this retries a stale read)."""
    newest = newest_ephemeral(driver)
    return str(newest.get_attribute("data-id")) if newest else None


def ephemeral_count(driver: WebDriver) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, ".msg.ephemeral"))


def with_picture(driver: WebDriver, mid: str) -> WebElement:
    """The hand menu ``mid`` once its picture came and loaded (the bot adds it by an edit
    after answering, and the page draws the edited message anew): the fresh element."""

    def fresh(d: WebDriver) -> WebElement | None:
        for m in d.find_elements(By.CSS_SELECTOR, f'.msg[data-id="{mid}"]'):
            pictures = m.find_elements(By.CSS_SELECTOR, ".attachment img")
            # loaded too: a picture still loading moves what is below it as it comes
            if pictures and all(d.execute_script(
                    "return arguments[0].complete && arguments[0].naturalWidth > 0", p)
                    for p in pictures):
                return m
        return None
    found: WebElement = wait(driver, fresh, "the hand's picture")
    return found


def open_hand_on_my_turn(driver: WebDriver) -> WebElement:
    """Click the table's My hand until the private menu says it is Alice's turn."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        before = ephemeral_count(driver)
        table = click(driver, "My hand")
        failed, mid = wait(driver, lambda d, n=before, t=table: (
            (True, "") if failure(d, t) else
            (ephemeral_count(d) > n and (mid := newest_ephemeral_id(d)) and (False, mid))),
            "the private hand menu")
        if failed:
            # The computer players moved: the bot posted a new table and took the buttons off
            # this one just before the click reached it (Discord refuses such a click too).
            time.sleep(0.3)
            continue
        menu = with_picture(driver, mid)
        if "Your turn: pick a card" in menu.text:
            return menu
        time.sleep(0.3)
    raise AssertionError("it never became Alice's turn")


def pick(driver: WebDriver, menu: WebElement, *values: str) -> None:
    """Open the select in ``menu`` and pick these option values (Done for several)."""
    menu.find_element(By.CSS_SELECTOR, ".select .select-bar").click()
    for value in values:
        wait(driver, lambda d, v=value: menu.find_element(
            By.CSS_SELECTOR, f".select-option[data-value='{v}']"), f"option {value}").click()
    if len(values) > 1:
        menu.find_element(By.CSS_SELECTOR, ".select-done").click()


def all_options(menu: WebElement) -> list[str]:
    """The values a menu's select offers (opens and closes it)."""
    bar = menu.find_element(By.CSS_SELECTOR, ".select .select-bar")
    bar.click()
    values = [str(o.get_attribute("data-value"))
              for o in menu.find_elements(By.CSS_SELECTOR, ".select-option")]
    bar.click()
    return values


def first_option(menu: WebElement) -> str:
    return all_options(menu)[0]


def run_slash(driver: WebDriver, typed: str, command: str) -> None:
    box = driver.find_element(By.ID, "composer-input")
    box.click()
    box.send_keys(typed)
    wait(driver, lambda d: d.find_element(
        By.CSS_SELECTOR, f"#popup .pop-item[data-command='{command}']"), f"/{command} listed"
    ).click()
    wait(driver, lambda d: d.find_element(By.ID, "command-chip").text == f"/{command}",
         "the command chosen")
    # Enter sends the command from wherever the focus went: the composer, or the first
    # option's box (whose True/False suggestions must not swallow it)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait(driver, lambda d: not d.find_element(By.ID, "command-chip").is_displayed(),
         f"/{command} sent")


def table_picture(driver: WebDriver) -> dict[str, Any]:
    """The newest table's picture (a media gallery showing attachment://table-N.png) as the
    page shows it, once loaded: its URL, natural and shown width, and how many pictures
    its message shows beside it."""
    script = """
        const imgs = [...document.querySelectorAll('.c-gallery img')];
        const img = imgs[imgs.length - 1];
        if (!img || !img.complete || !img.naturalWidth) return null;
        const msg = img.closest('.msg');
        return {src: img.src, natural: img.naturalWidth,
                shown: img.getBoundingClientRect().width,
                beside: msg.querySelectorAll('.attachment img').length};
    """
    found: dict[str, Any] = wait(driver, lambda d: d.execute_script(script),
                                 "the table's picture loaded")
    return found


def loopback_report(server: Any, channels: tuple[Any, ...]) -> str:
    """The loopback's side of things: problems, interactions (when sent and answered) and
    the newest messages as the server holds them (to compare with what the page shows)."""
    lines = ["--- loopback problems ---", *map(str, server.problems),
             "--- loopback interactions (seconds after the first) ---"]
    states = sorted(server.interactions.values(), key=lambda s: s.sent_at)
    t0 = states[0].sent_at if states else 0.0
    for s in states:
        acked = f"{s.acked_at - t0:.2f}" if s.acked_at is not None else "-"
        lines.append(f"{s.sent_at - t0:7.2f} {s.label}: ack type {s.ack_type} at {acked}, "
                     f"{len(s.followups)} followup(s)")
    for channel in channels:
        lines.append(f"--- #{channel.name}: newest messages on the server ---")
        lines += [f"{m!r} seq {m.change_seq}: {m.text()[:300]!r}"
                  for m in list(channel.all_messages)[-8:]]
    return "\n".join(lines)


@pytest.fixture(name="playground")
def playground_fixture(tmp_path: Path) -> Iterator[tuple[Loop, Playground]]:
    """The playground (loopback Discord and page) on a free port, in a thread; no bot yet.
    A test module imports this to use the fixture ``playground``."""
    loop = Loop()
    pg = Playground(port=0, database_path=tmp_path / "playground.db")
    loop.run(pg.start())
    try:
        yield loop, pg
    finally:
        with contextlib.suppress(Exception):
            loop.run(pg.close(), timeout=30)
        loop.stop()
