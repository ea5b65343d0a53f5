"""The playground's page in a real browser, beside a round (test_playground_browser.py): a
thread game on a phone-sized page (a refused ``?as=``, the player switcher, Enter, the
channel drawer, the hand panel's buttons), and a private Components V2 panel that the bot
edits through its interaction's webhook and by its buttons' UPDATE_MESSAGE (and a menu near
the composer)."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import pytest

from loopback.playground import Playground
from support.browser import (  # noqa: F401  (playground_fixture: the fixture playground)
    NEEDS_BROWSER,
    ROOT,
    Loop,
    answered,
    asks,
    browser,
    click,
    ephemeral_count,
    loopback_report,
    newest_ephemeral_id,
    open_panel,
    playground_fixture,
    run_slash,
    table_picture,
    take_turn,
    wait,
)

try:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
except ImportError:  # pragma: no cover - NEEDS_BROWSER skips the tests
    pass

pytestmark = NEEDS_BROWSER


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


def panel_places(driver: WebDriver, mid: str) -> list[dict[str, Any]]:
    """Where the buttons of message ``mid`` lie, beside the page's width."""
    found: list[dict[str, Any]] = driver.execute_script(
        "return [...document.querySelectorAll(`.msg[data-id='${arguments[0]}'] button.btn`)]"
        ".map(b => { const r = b.getBoundingClientRect(); return {label: b.textContent,"
        " left: r.left, right: r.right, width: document.documentElement.clientWidth}; })",
        mid)
    return found


def bot_online(driver: WebDriver) -> bool:
    return "online" in (driver.find_element(By.ID, "bot-status").get_attribute("class") or "")


def phone(driver: WebDriver) -> None:
    """Show the page as a phone does: 375 CSS pixels wide, touch."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
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
        # (read even once hidden: the note shows for 4 s)
        assert "playing as Bob" in str(a.find_element(By.ID, "toast").get_attribute("textContent"))
        a.get(pg.url)  # no ?as=: the last valid name, not the refused one
        wait(a, lambda d: "as=bob" in d.current_url, "the remembered player")
        a.get(f"{pg.url}/?as=owner&channel={uno1.id}")  # the guild owner's account
        wait(a, lambda d: "as=bob" in d.current_url, "the URL corrected again")

        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        wait(a, bot_online, "the bot online")
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

        # --- the game in its thread, played from the hand panel; its buttons fit --------
        click(a, "Add computer player")
        wait(a, lambda d: "cpu" in d.find_element(By.ID, "messages").text.lower(), "a cpu seat")
        click(a, "Start")
        table_picture(a)
        panel = open_panel(a)
        opened = ephemeral_count(a)
        wait(a, lambda d: asks(d, panel), "the panel to ask Alice", timeout=30)
        a.execute_script("document.getElementById('messages').scrollTop = 1e9")
        buttons = panel_places(a, panel)
        assert buttons, "the panel shows no button"
        assert all(b["left"] >= 0 and b["right"] <= b["width"] for b in buttons), buttons
        take_turn(a, panel)               # a card in one click (and what it asks), or a draw
        assert table_picture(a)["natural"] > 0
        assert ephemeral_count(a) == opened and newest_ephemeral_id(a) == panel
        a.save_screenshot(str(tmp_path / "phone.png"))
        assert not server.problems, server.problems
        assert not bot.take_tracebacks()
    except BaseException:
        print(loop.call(lambda: loopback_report(server, (uno1,))))
        with contextlib.suppress(Exception):
            print("--- the page: console ---",
                  *a.get_log("browser"), sep="\n")
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
        wait(a, bot_online, "the bot online")
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
