"""The playground in a real browser (Debian's chromium + chromedriver, driven by Selenium).

The loopback Discord with its web page runs in a thread of this process; the bot is the real
``python bot.py`` as a subprocess pointed at it. Alice plays through the page only: in
#uno-2 she opens a lobby with the slash command (typed, picked from the list), adds two
computer players and starts, and Bob (another tab, ``?as=bob``) joins; each opens My hand
once and plays from that panel whenever the bot, editing it, says it is their turn. In
#uno-1 a prepared position lets her finish a round from one panel: a grab card's button and
its two towers as one pair button, UNO!, a wild grab's button, its colour and its tower, the
last card (each table's picture loaded). Bob's private answers never reach Alice's page.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from engine import Color
from loopback.playground import Playground
from support.browser import (  # noqa: F401  (playground_fixture: the fixture playground)
    NEEDS_BROWSER,
    ROOT,
    Loop,
    answered,
    asks,
    browser,
    card_buttons,
    click,
    click_id,
    click_newest,
    ephemeral_count,
    grab,
    last_button,
    loopback_report,
    newest_ephemeral,
    newest_ephemeral_id,
    open_panel,
    panel_on_turn,
    play,
    playground_fixture,
    run_slash,
    says,
    table_picture,
    take_turn,
    text_of,
    tower_buttons,
    wait,
    with_picture,
)
from support.games import install, scenario_session

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:  # pragma: no cover - NEEDS_BROWSER skips the tests
    pass

pytestmark = NEEDS_BROWSER


def webhook_edits(server: Any, *shown: str) -> int:
    """How many edits the bot made through an interaction's token (``PATCH
    /webhooks/{app}/{token}/messages/@original``: a panel it keeps current, not a click's
    answer) of a message showing all of ``shown``."""
    return sum(1 for method, path, body in list(server.requests)
               if method == "PATCH" and path.startswith("/api/v10/webhooks/")
               and "/messages/@original" in path and all(t in str(body) for t in shown))


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
        assert pic["natural"] >= 600 and pic["shown"] == pic["natural"], pic
        assert pic["beside"] == 0, "the gallery's file is shown a second time beside it"
        click_newest(a, ".c-gallery img", "the table's picture")  # click to enlarge
        big = wait(a, lambda d: d.find_element(By.ID, "lightbox").is_displayed() and
                   d.execute_script("return document.querySelector('#lightbox img')"
                                    ".naturalWidth"), "the picture enlarged")
        assert big == pic["natural"]
        a.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait(a, lambda d: not d.find_element(By.ID, "lightbox").is_displayed(),
             "the enlarged picture closed")
        # --- each opens My hand once: the panel the bot keeps current from then on -------
        bob_panel = open_panel(b)
        with_picture(b, bob_panel)
        assert says(b, bob_panel, "Only you can see this")
        assert says(b, bob_panel, "Your hand")
        alice_panel = open_panel(a)
        with_picture(a, alice_panel)
        alices, bobs = ephemeral_count(a), ephemeral_count(b)
        # the computer players play, and Alice and Bob from their panels (a card one click,
        # its colour and towers in the same panel), each when their panel, edited by the
        # bot with no click of theirs, asks them; until Bob has played and Alice may play a card
        moves: dict[str, list[str]] = {"alice": [], "bob": []}
        while True:
            wait(a, lambda d: asks(d, alice_panel) or asks(b, bob_panel),
                 "Bob's or Alice's panel asking", timeout=30)
            mover, page, panel = (("alice", a, alice_panel) if asks(a, alice_panel)
                                  else ("bob", b, bob_panel))
            if mover == "alice" and moves["bob"] and says(a, alice_panel, "Your turn: pick"):
                break
            assert len(moves[mover]) < 10, moves
            moves[mover].append(take_turn(page, panel))
        assert table_picture(a)["natural"] > 0  # the table of these moves, its picture loaded
        assert (ephemeral_count(a), ephemeral_count(b)) == (alices, bobs), \
            "a new private message instead of the panel edited in place"
        assert (newest_ephemeral_id(a), newest_ephemeral_id(b)) == (alice_panel, bob_panel)
        a.save_screenshot(str(tmp_path / "game-in-progress.png"))
        if os.environ.get("PLAYGROUND_DOCS_SCREENSHOT"):  # README's: the table and a panel
            a.set_window_size(1200, 1500)
            a.execute_script("document.getElementById('messages').scrollTop = 1e9")
            time.sleep(0.5)
            a.save_screenshot(str(ROOT / "docs" / "playground.png"))
            a.set_window_size(1200, 900)

        # --- #uno-1: the prepared position, played to the end of the round from one panel --
        a.get(f"{pg.url}/?as=alice&channel={uno1.id}")
        wait(a, lambda d: last_button(d, "My hand"), "the restored table in #uno-1")
        panel = open_panel(a)                                # My hand, once for the round
        panel_on_turn(a, panel)
        assert set(card_buttons(a, panel)) == {"Y5", "YG", "WG"}  # each card lit, one click
        play(a, panel, "YG")                                 # a grab card: one click...
        answered(a, panel, "to grab", "the towers question")
        pairs = wait(a, lambda d: tower_buttons(d, panel), "the tower buttons")
        letters = set("".join(pairs))
        assert all(len(set(t)) == 2 for t in pairs), pairs  # both towers in one choice...
        assert len(pairs) == len(letters) * (len(letters) - 1) // 2, pairs  # ...every pair
        assert all(" + " in label for label in pairs.values()), pairs
        towers = next(iter(pairs))
        # (counted from before the click: under load the bot may edit the panel for her
        # next turn before the page has shown the click's answer)
        turn = ("(2 cards)", ":Y5'", ":WG'", "Your turn: pick a card")  # (its buttons' ids)
        edits = loop.call(lambda: webhook_edits(server, *turn))
        grab(a, panel, towers)                               # ...and its two towers: one more
        answered(a, panel, "Your towers", "towers grabbed")
        held = next(line for line in text_of(a, panel).splitlines() if "Your towers:" in line)
        assert set(held.split(":")[1].split()) == set(towers), held
        # the table shows her move, its picture loaded
        wait(a, lambda d: "alice plays" in d.find_element(By.ID, "messages").text.lower(),
             "her move on the table")
        table = table_picture(a)
        assert table["natural"] > 0, table
        # her turn comes back without a click of hers: the bot edits the panel through its
        # token (the click's answer said it was not her turn), the same message
        panel_on_turn(a, panel)
        assert loop.call(lambda: webhook_edits(server, *turn)) > edits
        assert ephemeral_count(a) == 1 and newest_ephemeral_id(a) == panel

        click_id(a, panel, lambda cid: cid.startswith("uno:t:uno:"),  # two cards left
                 "the panel's UNO! button")
        answered(a, panel, "You called UNO!", "UNO called")
        assert set(card_buttons(a, panel)) == {"Y5", "WG"}
        play(a, panel, "WG")                                 # a wild grab card...
        answered(a, panel, "pick the colour", "the colour question")
        click(a, "Yellow", within=panel)                     # ...its colour...
        answered(a, panel, "to grab", "the tower question")
        single = wait(a, lambda d: tower_buttons(d, panel), "the tower buttons")
        assert all(len(t) == 1 for t in single), single
        grab(a, panel, next(iter(single)))                   # ...and its tower
        panel_on_turn(a, panel)
        assert set(card_buttons(a, panel)) == {"Y5"}
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
        play(a, panel, "Y5")                                 # the last card
        wait(a, lambda d: "wins round 1" in d.find_element(By.ID, "messages").text,
             "the end of the round", timeout=20)
        a.save_screenshot(str(tmp_path / "round-won.png"))
        # the whole round from one private message: the panel, edited in place (counted
        # up to the round's end: in round 2, which the computer players start at once, the
        # panel may go down below the new round's table, a new message: R-BOT-REACH)
        def round_one() -> set[str]:
            won = next(m.id for m in uno1.all_messages if "wins round 1" in m.text())
            return {str(m.id) for m in uno1.all_messages
                    if m.ephemeral_for == alice.id and m.id < won}

        assert loop.call(round_one) == {panel}

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
            # (Alice's ephemerals as they are now: her panel may have been sent again
            # below in round 2, a new message of hers)
            alice_ids |= loop.call(lambda: ids(alice.id))
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
