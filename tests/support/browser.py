"""The playground's page in a real browser (Debian's chromium + chromedriver, driven by
Selenium): what the browser tests share. The loopback Discord with its web page runs in a
thread of the test's process (``Loop``, the ``playground`` fixture); the bot is a real
subprocess pointed at it. A test module sets ``pytestmark = NEEDS_BROWSER`` (skipped, saying
why, without selenium, chromium or chromedriver) and imports the fixture."""

from __future__ import annotations

import asyncio
import contextlib
import re
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


def click_newest(driver: WebDriver, css: str, what: str) -> None:
    """Click the newest element matching ``css`` (found again when an edit of its message
    redraws it under the click: the computer players keep playing)."""
    for _ in range(20):
        found = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, css), what)
        try:
            found[-1].click()
            return
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"{what} kept changing under the click")


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
    """The id of the newest private message, read in the page in one go (an element handle
    would go stale when an edit re-renders the message between finding and reading it)."""
    found = driver.execute_script(
        "const m = [...document.querySelectorAll('.msg.ephemeral')].pop();"
        "return m ? m.dataset.id : null;")
    return str(found) if found is not None else None


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


def open_panel(driver: WebDriver) -> str:
    """Click the table's My hand once and return the id of the hand panel it opens (the
    private message the bot then keeps current by editing it). A click refused because the
    computer players moved just then (the bot posted a new table and took the buttons off
    this one as the click reached it; Discord refuses such a click too) is made again on
    the new table."""
    for _ in range(10):
        before = ephemeral_count(driver)
        table = click(driver, "My hand")
        failed, mid = wait(driver, lambda d, n=before, t=table: (
            (True, "") if failure(d, t) else
            (ephemeral_count(d) > n and (mid := newest_ephemeral_id(d)) and (False, mid))),
            "the hand panel")
        if not failed:
            return str(mid)
        time.sleep(0.3)
    raise AssertionError("every click on My hand was refused")


def panel_on_turn(driver: WebDriver, mid: str, timeout: float = 30) -> WebElement:
    """Wait, without a click, until the bot has edited panel ``mid`` to say it is its
    player's turn (the panel follows the game); a click on it that failed fails here."""
    found = wait(driver, lambda d: failure(d, mid) or (
        (m := message(d, mid)) and "Your turn: pick a card" in m.text and m),
        "the panel to say it is my turn", timeout=timeout)
    if isinstance(found, str):
        raise AssertionError(f"waiting for my turn in the panel, a click failed: {found}")
    return cast(WebElement, found)


def panel_buttons(driver: WebDriver, mid: str) -> list[dict[str, Any]]:
    """The buttons of message ``mid`` as the page draws them: custom_id (the page's
    ``data-custom-id``), label, enabled; read in one go (an edit redraws the message)."""
    found: list[dict[str, Any]] = driver.execute_script(
        "return [...document.querySelectorAll(`.msg[data-id='${arguments[0]}'] button.btn`)]"
        ".map(b => ({id: b.dataset.customId, label: b.textContent.trim(),"
        " enabled: !b.disabled}))", mid)
    return found


def card_buttons(driver: WebDriver, mid: str) -> dict[str, str]:
    """The cards panel ``mid`` lets its player play now (``uno:pc:<gid>:<serial>:<card>``,
    ``R7|u`` for "and call UNO!"): card code -> custom_id."""
    cards = {}
    for b in panel_buttons(driver, mid):
        parts = str(b["id"]).split(":")
        if parts[:2] == ["uno", "pc"] and b["enabled"]:
            cards[parts[4] + ("|u" if parts[5:] == ["u"] else "")] = str(b["id"])
    return cards


def tower_buttons(driver: WebDriver, mid: str) -> dict[str, str]:
    """The tower choices panel ``mid`` shows (``uno:tb:…:<towers>``, a Grab-2-Towers' pair
    as one choice such as ``UO``): towers -> label."""
    return {str(b["id"]).split(":")[-1]: str(b["label"]) for b in panel_buttons(driver, mid)
            if str(b["id"]).startswith("uno:tb:") and b["enabled"]}


def click_id(driver: WebDriver, mid: str, pick: Callable[[str], bool], what: str) -> str:
    """Click the enabled button of message ``mid`` whose custom_id ``pick`` accepts (found
    again if an edit redraws the message under the click); its custom_id."""
    for _ in range(20):
        def found(d: WebDriver) -> WebElement | None:
            for b in d.find_elements(By.CSS_SELECTOR, f".msg[data-id='{mid}'] button.btn"):
                if not b.get_attribute("disabled") and pick(str(b.get_attribute(
                        "data-custom-id"))):
                    return b
            return None
        button = wait(driver, found, what)
        try:
            cid = str(button.get_attribute("data-custom-id"))
            button.click()
            return cid
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"{what} kept changing under the click")


def play(driver: WebDriver, mid: str, card: str) -> str:
    """Click card ``card`` (``R7``, or ``R7|u``: and call UNO!) in panel ``mid``: one
    click."""
    code, uno = card.removesuffix("|u"), card.endswith("|u")

    def is_card(cid: str) -> bool:
        parts = cid.split(":")
        return parts[:2] == ["uno", "pc"] and parts[4:] == [code, *(["u"] if uno else [])]
    return click_id(driver, mid, is_card, f"the card button {card}")


def grab(driver: WebDriver, mid: str, towers: str) -> str:
    """Click the tower button grabbing ``towers`` (``N``, or a pair such as ``UO``)."""
    return click_id(driver, mid, lambda cid: cid.startswith("uno:tb:")
                    and cid.split(":")[-1] == towers, f"the tower button {towers}")


ASKS = ("Your turn:", "play it or keep it", "Draw Four on you", "Instant UNO",
        "name the starting colour")
"""What a panel says when its player has something to do. (Not "You drew" alone: a draw
whose card cannot be played says "You drew ..." above "Waiting for your turn", the turn
gone on.)"""


def text_of(driver: WebDriver, mid: str) -> str:
    """The text of message ``mid`` as the page shows it now, read in one go (an edit may
    redraw it at any moment, making an element found a moment ago stale)."""
    return str(driver.execute_script(
        "const m = document.querySelector(`.msg[data-id='${arguments[0]}']`);"
        " return m ? m.innerText : ''", mid))


def says(driver: WebDriver, mid: str, *texts: str) -> bool:
    """Whether message ``mid`` shows one of ``texts`` now."""
    shown = text_of(driver, mid)
    return any(t in shown for t in texts)


def asks(driver: WebDriver, mid: str) -> bool:
    """Whether panel ``mid`` asks its player to do something now."""
    return says(driver, mid, *ASKS)


PLAIN = re.compile(r"^[RGBY]\d")


def changed(driver: WebDriver, mid: str, before: str, what: str) -> str:
    """The text of message ``mid`` once it is not ``before`` any more (the answer to a
    click edits the panel: wait for it before the next click, which would be out of
    date); a click on it that failed fails here."""
    found = wait(driver, lambda d: failure(d, mid) or (
        (m := message(d, mid)) and m.text != before and ("", m.text)), what)
    if isinstance(found, str):
        raise AssertionError(f"waiting for {what}, the click failed: {found}")
    return str(found[1])


def take_turn(driver: WebDriver, mid: str) -> str:
    """Answer what panel ``mid`` asks of its player now, as a person would, from the panel
    only: play a card (a number card if there is one), its colour and its towers; draw when
    nothing matches, and keep the card drawn; accept a +4; keep a card of an instant UNO;
    name red when the first card is wild.
    Returns what was done, for the test's messages."""
    ids = [str(b["id"]) for b in panel_buttons(driver, mid) if b["enabled"]]
    cards = [c for c in card_buttons(driver, mid) if not c.endswith("|u")]
    if cards:
        card = next((c for c in cards if PLAIN.match(c)), cards[0])
        step = f"the answer to {card}"
        before = changed(driver, mid, "", step)
        play(driver, mid, card)
        while True:  # its colour and its towers, asked in the same panel
            before = changed(driver, mid, before, step)
            if "pick the colour" in before:
                click(driver, "Red", within=mid)
                step = "the answer to its colour"
            elif "to grab" in before:
                grab(driver, mid, next(iter(wait(driver, lambda d: tower_buttons(d, mid),
                                                 "the tower buttons"))))
                step = "the answer to its towers"
            else:
                return f"played {card}"
    before = changed(driver, mid, "", "the panel")
    done = next((label for label in ("Keep it", "Accept +4", "Draw", "Red")
                 if last_button(driver, label, mid)), "")
    if done:
        click(driver, done, within=mid)
    elif any(i.startswith("uno:kb:") for i in ids):
        click_id(driver, mid, lambda cid: cid.startswith("uno:kb:"), "a card to keep")
        done = "kept a card"
    else:
        raise AssertionError(f"the panel asks nothing I know: {before!r}")
    # the answer is the panel, edited: wait for it (a second click would be out of date)
    changed(driver, mid, before, f"the answer to {done}")
    return done


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
    page shows it, once loaded (``naturalWidth`` > 0): its URL, natural and shown width,
    and how many pictures its message shows beside it."""
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
