"""The playground in a real browser (Debian's chromium + chromedriver, driven by Selenium).

The loopback Discord with its web page runs in a thread of this process; the bot is the real
``python bot.py`` as a subprocess pointed at it. Alice plays through the page only: in
#uno-2 she opens a lobby with the slash command (typed, picked from the list), adds two
computer players and starts, and Bob (another tab, ``?as=bob``) looks at his hand; in #uno-1
a prepared position lets her finish a round in a few clicks: the hand menu, a grab card's
towers, UNO!, a wild's colour, the last card. Bob's private answers never reach Alice's page.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

from engine import Color
from loopback.playground import Playground
from support.games import install, scenario_session

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
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement
    from selenium.webdriver.support.ui import WebDriverWait
    SELENIUM = True
except ImportError:  # pragma: no cover - requirements-dev.txt pins it
    SELENIUM = False

pytestmark = [
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


@pytest.fixture
def playground(tmp_path: Path) -> Iterator[tuple[Loop, Playground]]:
    loop = Loop()
    pg = Playground(port=0, database_path=tmp_path / "playground.db")
    loop.run(pg.start())
    try:
        yield loop, pg
    finally:
        with contextlib.suppress(Exception):
            loop.run(pg.close(), timeout=30)
        loop.stop()


@pytest.mark.slow
def test_play_a_round_in_the_browser(playground: tuple[Loop, Playground], tmp_path: Path) -> None:
    loop, pg = playground
    guild = pg.guild
    uno1 = next(c for c in guild.channels if c.name == "uno-1")
    uno2 = next(c for c in guild.channels if c.name == "uno-2")
    alice = loop.call(lambda: guild.member("alice").at(uno1))
    bob = loop.call(lambda: guild.member("bob").at(uno2))
    # a position where Alice goes out in three turns; the computer players hold only yellows
    session = scenario_session(
        uno1, [alice, "cpu1", "cpu2"],
        hands={alice: "YG WG Y5", "cpu1": "Y1 Y2 Y4 Y6 Y7 Y8", "cpu2": "Y9 Y8 Y1 Y2 Y4 Y6"},
        discard="Y3", draw="R1 R2 G3 G4 B5 B6 R7 G8 B9 R6", turn=alice, color=Color.YELLOW)
    asyncio.run(install(pg.database_path, session))
    assert pg.server is not None
    server = pg.server
    bot = loop.run(server.start_bot(
        [sys.executable, "bot.py"], cwd=ROOT,
        env={"DATABASE_PATH": pg.database_path, "UNO_CPU_DELAY": "0.2"}))

    profiles = [tempfile.mkdtemp(prefix="chromium-"), tempfile.mkdtemp(prefix="chromium-")]
    a = browser(profiles[0])
    b = browser(profiles[1])
    try:
        # --- #uno-2: a new game with two computer players, started by clicks --------------
        a.get(f"{pg.url}/?as=alice&channel={uno2.id}")
        wait(a, lambda d: d.find_element(By.ID, "channel-name").text == "uno-2", "#uno-2")
        wait(a, lambda d: "online" in d.find_element(By.ID, "bot-status").get_attribute("class"),
             "the bot online")
        run_slash(a, "/uno ne", "uno new")
        click(a, "Add computer player")
        wait(a, lambda d: "cpu" in d.find_element(By.ID, "messages").text.lower(), "a cpu seat")
        click(a, "Add computer player")
        b.get(f"{pg.url}/?as=bob&channel={uno2.id}")
        click(b, "Join")
        wait(a, lambda d: "Bob" in d.find_element(By.ID, "messages").text, "Bob in the lobby")
        click(a, "Start")
        wait(a, lambda d: last_button(d, "My hand"), "the table")
        # the table's picture loads from a real URL, at a readable size, shown once
        pic = table_picture(a)
        assert "/files/" in pic["src"] and "table-" in pic["src"], pic
        assert pic["natural"] >= 800 and pic["shown"] >= 600, pic
        assert pic["beside"] == 0, "the gallery's file is shown a second time beside it"
        a.find_elements(By.CSS_SELECTOR, ".c-gallery img")[-1].click()  # click to enlarge
        big = wait(a, lambda d: d.find_element(By.ID, "lightbox").is_displayed() and
                   d.execute_script("return document.querySelector('#lightbox img')"
                                    ".naturalWidth"), "the picture enlarged")
        assert big == pic["natural"]
        a.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait(a, lambda d: not d.find_element(By.ID, "lightbox").is_displayed(),
             "the enlarged picture closed")
        before = ephemeral_count(b)
        click(b, "My hand")
        bob_menu = with_picture(b, wait(
            b, lambda d: ephemeral_count(d) > before and newest_ephemeral_id(d), "Bob's hand"))
        assert "Only you can see this" in bob_menu.text
        assert "Your hand" in bob_menu.text
        before = ephemeral_count(a)
        click(a, "My hand")
        with_picture(a, wait(a, lambda d: ephemeral_count(d) > before and newest_ephemeral_id(d),
                             "Alice's hand"))
        a.save_screenshot(str(tmp_path / "game-in-progress.png"))
        if os.environ.get("PLAYGROUND_DOCS_SCREENSHOT"):  # README's: the table and a hand
            a.set_window_size(1200, 1500)
            a.execute_script("document.getElementById('messages').scrollTop = 1e9")
            time.sleep(0.5)
            a.save_screenshot(str(ROOT / "docs" / "playground.png"))
            a.set_window_size(1200, 900)

        # --- #uno-1: the prepared position, played to the end of the round -----------------
        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        wait(a, lambda d: last_button(d, "My hand"), "the restored table in #uno-1")
        # (the bot edits a private menu in place: each answer is awaited on that message)
        menu = open_hand_on_my_turn(a)
        mid = str(menu.get_attribute("data-id"))
        pick(a, menu, "YG")                                  # a grab card...
        towers = answered(a, mid, "to grab", "the towers question")
        pick(a, towers, *all_options(towers)[:2])            # ...and its two towers
        answered(a, mid, "Your towers", "towers grabbed")

        menu = open_hand_on_my_turn(a)
        uno = click(a, "UNO!", within=str(menu.get_attribute("data-id")))  # two cards left
        answered(a, uno, "You called UNO!", "UNO called")
        menu = open_hand_on_my_turn(a)
        mid = str(menu.get_attribute("data-id"))
        pick(a, menu, "WG")                                  # a wild grab card...
        answered(a, mid, "pick the colour", "the colour question")
        click(a, "Yellow", within=mid)                       # ...its colour...
        towers = answered(a, mid, "to grab", "the tower question")
        pick(a, towers, first_option(towers))               # ...and its tower
        menu = open_hand_on_my_turn(a)
        # live autocomplete: /uno play's card option offers her playable card as she types
        box = a.find_element(By.ID, "composer-input")
        box.click()
        box.send_keys("/uno pl")
        wait(a, lambda d: d.find_element(By.CSS_SELECTOR, "#popup .pop-item[data-command="
                                         "'uno play']"), "/uno play listed").click()
        card = wait(a, lambda d: d.find_element(By.CSS_SELECTOR, "input[data-option='card']"),
                    "the card option")
        card.send_keys("y")
        wait(a, lambda d: any("5" in i.text for i in d.find_elements(
            By.CSS_SELECTOR, "#popup .pop-item")), "the card offered by autocomplete")
        card.send_keys(Keys.ESCAPE)
        pick(a, menu, "Y5")                                  # the last card
        wait(a, lambda d: "wins round 1" in d.find_element(By.ID, "messages").text,
             "the end of the round", timeout=20)
        a.save_screenshot(str(tmp_path / "round-won.png"))

        # --- privacy: Bob's ephemerals never reach Alice's page ---------------------------
        def ids(who_id: int) -> set[str]:
            return {str(m.id) for c in (uno1, uno2) for m in c.all_messages
                    if m.ephemeral_for == who_id}

        bob_ids = loop.call(lambda: ids(bob.id))
        alice_ids = loop.call(lambda: ids(alice.id))
        assert bob_ids, "Bob got private answers"
        for page, channel in ((a, uno1), (a, uno2)):
            page.get(f"{pg.url}/?as=alice&channel={channel.id}")
            wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, ".msg"), "messages")
            time.sleep(0.3)
            # read in one go: the computer players play on in round 2, so the page keeps
            # re-rendering messages (an element found a moment ago may be gone)
            shown = set(page.execute_script(
                "return [...document.querySelectorAll('.msg.ephemeral')].map(e => e.dataset.id)"))
            assert shown <= alice_ids, "Alice's page shows someone else's private message"
            everything = set(page.execute_script(
                "return [...document.querySelectorAll('.msg')].map(e => e.dataset.id)"))
            assert not everything & bob_ids
            assert "Only you can see this" in page.find_element(By.ID, "messages").text
        assert not server.problems, server.problems
        assert not bot.take_tracebacks()
    except BaseException:
        # what the bot and the loopback saw, printed for pytest to show with the failure
        print(loop.call(lambda: loopback_report(server, (uno1, uno2))))
        with contextlib.suppress(Exception):
            print("--- Alice's page: console ---",
                  *a.get_log("browser"), sep="\n")  # type: ignore[attr-defined]
            newest = newest_ephemeral(a)
            print("--- Alice's page: newest private message ---",
                  str(newest.get_attribute("outerHTML") if newest else "")[-3000:], sep="\n")
        print(f"--- bot log ({bot.log_path}) ---\n{bot.log_tail(150)}")
        raise
    finally:
        a.quit()
        b.quit()
        for p in profiles:
            shutil.rmtree(p, ignore_errors=True)


def open_menu_place(driver: WebDriver) -> dict[str, Any]:
    """Where the open select's list lies, beside its bar and the messages' area (above
    the composer)."""
    found: dict[str, Any] = wait(driver, lambda d: d.execute_script("""
        const list = document.querySelector('.select-list');
        if (!list) return null;
        const r = list.getBoundingClientRect();
        const bar = list.parentNode.querySelector('.select-bar').getBoundingClientRect();
        const area = document.getElementById('messages').getBoundingClientRect();
        return {up: list.classList.contains('up'), top: r.top, bottom: r.bottom,
                bar_top: bar.top, bar_bottom: bar.bottom, area_top: area.top,
                area_bottom: Math.min(area.bottom, document.getElementById('composer-area')
                                      .getBoundingClientRect().top)};"""), "a menu open")
    return found


def phone(driver: WebDriver) -> None:
    """Show the page as a phone does: 375 CSS pixels wide, touch."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # type: ignore[attr-defined]
                           {"width": 375, "height": 740, "deviceScaleFactor": 2,
                            "mobile": True})


def drawer_open(driver: WebDriver) -> bool:
    """Whether the channel drawer covers the page (it slides in from the left)."""
    return bool(driver.execute_script(
        "return document.getElementById('sidebar').getBoundingClientRect().right > 10"))


def channel_list(driver: WebDriver) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], driver.execute_script(
        "return [...document.querySelectorAll('#channels li')].map(li => ({id: li.dataset.id,"
        " name: li.textContent, thread: li.classList.contains('thread')}))"))


@pytest.mark.slow
def test_a_thread_game_on_a_phone(playground: tuple[Loop, Playground], tmp_path: Path) -> None:
    """On a phone-sized page: a name the server refuses in ``?as=`` falls back to a valid
    player (URL and memory corrected), the player switcher keeps its width, Enter sends
    ``/uno new thread:True`` (True picked from the suggestions), the game's thread is listed
    with the channels, the drawer closes once it is picked (and on a tap beside it), and
    the hand's menu, near the composer, opens upward."""
    loop, pg = playground
    assert pg.server is not None
    server = pg.server
    bot = loop.run(server.start_bot([sys.executable, "bot.py"], cwd=ROOT,
                                    env={"DATABASE_PATH": pg.database_path,
                                         "UNO_CPU_DELAY": "0.2"}))
    uno1 = next(c for c in pg.guild.channels if c.name == "uno-1")
    profile = tempfile.mkdtemp(prefix="chromium-")
    a = browser(profile)
    try:
        phone(a)
        # --- a name the server refuses does not stick ---------------------------------
        a.get(f"{pg.url}/?as=bob")
        wait(a, lambda d: "as=bob" in d.current_url, "Bob's page")
        a.get(f"{pg.url}/?as=Not%20a%20name!&channel={uno1.id}")
        wait(a, lambda d: "as=bob" in d.current_url, "the URL corrected to a valid player")
        assert a.execute_script("return localStorage.getItem('playground-as')") == "bob"
        assert "playing as Bob" in a.find_element(By.ID, "toast").text
        a.get(pg.url)  # no ?as=: the last valid name, not the refused one
        wait(a, lambda d: "as=bob" in d.current_url, "the remembered player")
        a.get(f"{pg.url}/?as=owner&channel={uno1.id}")  # the guild owner's account
        wait(a, lambda d: "as=bob" in d.current_url, "the URL corrected again")

        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        wait(a, lambda d: "online" in d.find_element(By.ID, "bot-status").get_attribute("class"),
             "the bot online")
        switch = a.find_element(By.ID, "user-switch")
        assert switch.rect["width"] >= 80, f"the player switcher shrank to {switch.rect}"
        assert switch.text.startswith("Alice")

        # --- /uno new thread:True, sent with Enter ---------------------------------------
        box = a.find_element(By.ID, "composer-input")
        box.click()
        box.send_keys("/uno ne")
        wait(a, lambda d: d.find_element(
            By.CSS_SELECTOR, "#popup .pop-item[data-command='uno new']"), "/uno new").click()
        option = wait(a, lambda d: d.find_element(By.CSS_SELECTOR, "input[data-option='thread']"),
                      "the thread option")
        option.send_keys("t")
        option.send_keys(Keys.ENTER)  # typed: Enter takes the suggestion...
        assert option.get_attribute("value") == "True"
        a.switch_to.active_element.send_keys(Keys.ENTER)  # ...and then sends
        thread = wait(a, lambda d: next((c for c in channel_list(d) if c["thread"]), None),
                      "the game's thread in the channel list")
        assert "alice" in thread["name"].lower(), thread
        names = [c["name"] for c in channel_list(a)]
        assert names.index(thread["name"]) == names.index("uno-1") + 1  # under its channel

        # --- the drawer: opened, a pick closes it; a tap beside it closes it too ----------
        assert not drawer_open(a)
        a.find_element(By.ID, "menu-toggle").click()
        wait(a, drawer_open, "the drawer open")
        a.find_element(By.CSS_SELECTOR, f"#channels li[data-id='{thread['id']}']").click()
        wait(a, lambda d: not drawer_open(d), "the drawer closed after the pick")
        assert f"channel={thread['id']}" in a.current_url
        wait(a, lambda d: d.find_element(By.ID, "channel-name").text == thread["name"],
             "the thread shown")
        a.find_element(By.ID, "menu-toggle").click()
        wait(a, drawer_open, "the drawer open again")
        ActionChains(a).move_to_element_with_offset(  # right of the drawer (240 px wide)
            a.find_element(By.ID, "messages"), 140, 0).click().perform()
        wait(a, lambda d: not drawer_open(d), "the drawer closed by a tap beside it")

        # --- the game in its thread; the hand's menu opens upward -------------------------
        click(a, "Add computer player")
        wait(a, lambda d: "cpu" in d.find_element(By.ID, "messages").text.lower(), "a cpu seat")
        click(a, "Start")
        table_picture(a)
        menu = open_hand_on_my_turn(a)
        a.execute_script("document.getElementById('messages').scrollTop = 1e9")
        menu.find_element(By.CSS_SELECTOR, ".select .select-bar").click()
        where = open_menu_place(a)
        assert where["top"] >= where["area_top"] - 1, where
        assert where["bottom"] <= where["area_bottom"] + 1, where  # all of it in view
        a.save_screenshot(str(tmp_path / "phone.png"))
        assert not server.problems, server.problems
        assert not bot.take_tracebacks()
    except BaseException:
        print(loop.call(lambda: loopback_report(server, (uno1,))))
        with contextlib.suppress(Exception):
            print("--- the page: console ---", *a.get_log("browser"), sep="\n")
        print(f"--- bot log ({bot.log_path}) ---\n{bot.log_tail(150)}")
        raise
    finally:
        a.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.slow
def test_a_private_v2_panel_follows_its_edits(playground: tuple[Loop, Playground]) -> None:
    """A private Components V2 message (a container, a text display, buttons in an action
    row) is drawn, and drawn again when the bot edits it through the interaction's webhook
    (PATCH .../messages/@original) and when a click on it answers with UPDATE_MESSAGE
    (type 7): the way the UNO bot keeps a live hand. The demo bot's ``/demo panel``."""
    loop, pg = playground
    assert pg.server is not None
    server = pg.server
    bot = loop.run(server.start_bot([sys.executable, "loopback/demo_bot.py"], cwd=ROOT))
    uno1 = next(c for c in pg.guild.channels if c.name == "uno-1")
    profiles = [tempfile.mkdtemp(prefix="chromium-"), tempfile.mkdtemp(prefix="chromium-")]
    a, b = browser(profiles[0]), browser(profiles[1])
    try:
        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        b.get(f"{pg.url}/?as=bob&channel={uno1.id}")
        wait(a, lambda d: "online" in d.find_element(By.ID, "bot-status").get_attribute("class"),
             "the bot online")
        run_slash(a, "/demo pa", "demo panel")
        mid = wait(a, newest_ephemeral_id, "the panel")
        shown = answered(a, mid, "edited through the webhook", "the webhook's edit")
        assert "Panel at step 0" in shown.text and "Only you can see this" in shown.text
        assert shown.find_elements(By.CSS_SELECTOR, ".c-container .row .btn")
        click(a, "Step 1", within=mid)
        shown = answered(a, mid, "updated by the click", "the click's UPDATE_MESSAGE")
        assert "Panel at step 1" in shown.text
        assert [e.text for e in shown.find_elements(By.CSS_SELECTOR, ".btn")] \
            == ["Step 2", "Step 3"]
        click(a, "Step 3", within=mid)
        answered(a, mid, "Panel at step 3", "a second click")
        assert ephemeral_count(a) == 1  # one panel, edited in place
        time.sleep(0.3)
        assert not b.find_elements(By.CSS_SELECTOR, ".msg")  # Bob never sees it

        # a select menu at the bottom, right above the composer, opens upward, in view
        run_slash(a, "/demo pi", "demo pick")
        wait(a, lambda d: d.find_elements(By.CSS_SELECTOR, ".msg .select .select-bar"),
             "the menu")[-1].click()
        where = open_menu_place(a)
        assert where["up"] and where["bottom"] <= where["bar_top"] + 1, where
        assert where["top"] >= where["area_top"] - 1, where
        assert not server.problems, server.problems
    except BaseException:
        print(loop.call(lambda: loopback_report(server, (uno1,))))
        print(f"--- bot log ({bot.log_path}) ---\n{bot.log_tail(80)}")
        raise
    finally:
        a.quit()
        b.quit()
        for p in profiles:
            shutil.rmtree(p, ignore_errors=True)
