"""What the playground's page shows, in a real browser: the card buttons' custom emojis drawn
as their pictures; a player switched with "As" twenty times, each page loaded at once and
its messages live."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import time
from typing import Any

import pytest

from cogs.uno.art import all_cards
from loopback.playground import Playground
from support.browser import (  # noqa: F401  (playground_fixture: the fixture playground)
    NEEDS_BROWSER,
    ROOT,
    Loop,
    asks,
    browser,
    click,
    loopback_report,
    open_panel,
    playground_fixture,
    run_slash,
    table_picture,
    take_turn,
    wait,
)

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import Select
except ImportError:  # pragma: no cover - NEEDS_BROWSER skips the tests
    pass

pytestmark = NEEDS_BROWSER


def start_bot(loop: Loop, pg: Playground) -> Any:
    """The real bot against the playground, once it has every card's emoji (as in the
    playground, not as in the other tests: it uploads them at start-up, ten a second)."""
    assert pg.server is not None
    server = pg.server
    bot = loop.run(server.start_bot([sys.executable, "bot.py"], cwd=ROOT,
                                    env={"DATABASE_PATH": pg.database_path,
                                         "UNO_CPU_DELAY": "0.2",
                                         "UNO_CARD_EMOJIS": "1"}))
    faces = len(all_cards())
    deadline = time.monotonic() + 60
    while loop.call(lambda: len(server.emojis.names())) < faces:
        assert time.monotonic() < deadline, "the bot did not upload its card emojis"
        time.sleep(0.2)
    return bot


def new_game(driver: WebDriver) -> None:
    """``/uno new`` in the page's channel, a computer player, Start: the table shown."""
    wait(driver, lambda d: "online" in str(d.find_element(By.ID, "bot-status")
                                          .get_attribute("class")), "the bot online")
    run_slash(driver, "/uno ne", "uno new")
    click(driver, "Add computer player")
    wait(driver, lambda d: "cpu" in d.find_element(By.ID, "messages").text.lower(), "a cpu seat")
    click(driver, "Start")
    table_picture(driver)


def card_faces(driver: WebDriver, mid: str) -> list[dict[str, Any]]:
    """The card buttons of message ``mid`` as drawn: their text, and their pictures (loaded:
    complete with a natural width)."""
    found: list[dict[str, Any]] = driver.execute_script("""
        return [...document.querySelectorAll(
                `.msg[data-id='${arguments[0]}'] button.btn[data-custom-id^='uno:pc:']`)]
            .map(b => ({id: b.dataset.customId, text: b.textContent,
                        pictures: [...b.querySelectorAll('img')].map(i => ({
                            src: i.getAttribute('src'), alt: i.alt,
                            loaded: i.complete && i.naturalWidth > 0}))}));""", mid)
    return found


@pytest.mark.slow
def test_card_buttons_show_their_emoji_pictures(playground: tuple[Loop, Playground]) -> None:
    """A card button's custom emoji (``uno_R7``) is drawn as its picture, served by the
    playground as Discord's CDN serves ``/emojis/{id}.png``, never as ``:uno_R7:`` text; and
    no message text shows an emoji's name either."""
    loop, pg = playground
    assert pg.server is not None
    server = pg.server
    bot = start_bot(loop, pg)
    uno1 = next(c for c in pg.guild.channels if c.name == "uno-1")
    profile = tempfile.mkdtemp(prefix="chromium-")
    a = browser(profile)
    try:
        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        new_game(a)
        panel = open_panel(a)
        # the deal may open on a question without cards (a Wild Draw Four to accept, a
        # starting colour to name): answer it as a player would, until cards are offered
        for _ in range(6):
            wait(a, lambda d: asks(d, panel), "the panel to ask Alice", timeout=30)
            if card_faces(a, panel):
                break
            take_turn(a, panel)
        faces = wait(a, lambda d: (f := card_faces(d, panel)) and all(
            p["loaded"] for b in f for p in b["pictures"]) and f, "the card buttons drawn")
        for face in faces:
            assert ":uno_" not in face["text"], face
            assert len(face["pictures"]) == 1, face
            picture = face["pictures"][0]
            assert picture["src"].startswith("/emojis/") and picture["src"].endswith(".png")
            assert picture["alt"].startswith(":uno_"), face
        assert ":uno_" not in a.find_element(By.ID, "messages").text
        assert not server.problems, server.problems
        assert not bot.take_tracebacks()
    except BaseException:
        print(loop.call(lambda: loopback_report(server, (uno1,))))
        with contextlib.suppress(Exception):
            print("--- the page: console ---", *a.get_log("browser"), sep="\n")
        print(f"--- bot log ({bot.log_path}) ---\n{bot.log_tail(80)}")
        raise
    finally:
        a.quit()
        shutil.rmtree(profile, ignore_errors=True)


def shows(driver: WebDriver, text: str) -> bool:
    """Whether the page's messages show ``text`` now."""
    return text in str(driver.execute_script(
        "return document.getElementById('messages').innerText"))


def test_switching_player_keeps_the_page_prompt(playground: tuple[Loop, Playground]) -> None:
    """Twenty switches with "As" (alice, bob, carol, dave, alice...): each page has its
    player and channel in a few seconds (the pages left behind closed their event streams;
    before, the browser's back/forward cache kept them open, and once its six connections
    to the host were taken a load waited about a minute); the page shows a new message
    live; and a page brought back with Back reopens its stream (a message posted then
    shows)."""
    loop, pg = playground
    uno1 = next(c for c in pg.guild.channels if c.name == "uno-1")
    profile = tempfile.mkdtemp(prefix="chromium-")
    a = browser(profile)
    try:
        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        names = ("bob", "carol", "dave", "alice")
        for i in range(20):
            name = names[i % len(names)]
            wait(a, lambda d, n=name: d.find_elements(
                By.CSS_SELECTOR, f"#user-switch option[value='{n}']"), "the player list")
            started = time.monotonic()
            Select(a.find_element(By.ID, "user-switch")).select_by_value(name)
            wait(a, lambda d, n=name: d.find_element(By.ID, "me-name").text.lower() == n
                 and d.find_element(By.ID, "channel-name").text == "uno-1",
                 f"switch {i + 1}: the page as {name}", timeout=10)
            took = time.monotonic() - started
            assert took < 10, f"switch {i + 1}, to {name}, took {took:.1f} s"
        loop.call(lambda: uno1.member("carol").say("still live after twenty switches"))
        wait(a, lambda d: shows(d, "still live after twenty switches"), "the new message",
             timeout=10)
        a.back()  # dave's page again, from the back/forward cache: its stream reopened
        wait(a, lambda d: d.find_element(By.ID, "me-name").text.lower() == "dave",
             "the page as dave again", timeout=10)
        loop.call(lambda: uno1.member("bob").say("live again after Back"))
        wait(a, lambda d: shows(d, "live again after Back"), "a message after Back",
             timeout=10)
    except BaseException:
        with contextlib.suppress(Exception):
            print("--- the page: console ---", *a.get_log("browser"), sep="\n")
        raise
    finally:
        a.quit()
        shutil.rmtree(profile, ignore_errors=True)
