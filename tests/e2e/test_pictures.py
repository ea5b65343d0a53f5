"""End to end through the loopback Discord: the hand as a picture (issue 11, "Pictures").

My hand carries a PNG of the cards the text lists, drawn by `cogs.uno.art` after the answer
(so drawing never delays the acknowledgement; the answer to a move is text only: cheaper);
public messages never carry a picture of a hand.
"""

from __future__ import annotations

import asyncio
import io
import pathlib
from typing import Any

import pytest
from PIL import Image

from cogs.uno._pictures import HAND_CARD_WIDTH, picture_name
from engine import Card
from loopback.fixtures import LoopbackTest
from loopback.models import Message
from loopback.users import Member
from support.driver import HAND_LINES, button_codes, label_codes
from support.e2e import FAST_ENV, FRESH_DIR, saved_game

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_ART_CACHE=FRESH_DIR)]


async def pictured(m: Message | None) -> Message:
    """The menu once its picture arrived (it follows the answer, drawn in the background)."""
    assert m is not None
    for _ in range(100):
        if m.attachments:
            return m
        await asyncio.sleep(0.05)
    raise AssertionError(f"no picture came on {m!r}")


def shown_hand(version: dict[str, Any]) -> list[Card] | None:
    """The cards one version of a hand menu shows: its hand's line names them ("**Your
    hand** (3 cards): 🟥 red 7, ..."; a question's "Your hand: ...") or counts them, its
    buttons showing them ("**Your hand** (7 cards)"); None when it shows no hand."""
    for line in str(version.get("content") or "").splitlines():
        if line.startswith(HAND_LINES):
            codes = label_codes(line) if ": " in line else button_codes(version)
            return [Card.parse(code) for code in codes]
    return None


def picture_matches_text(version: dict[str, Any]) -> str | None:
    """What is wrong with one version of a menu (its current payload or one of its
    history's): a picture of a hand other than the one it shows, or a picture over a
    message that shows none; None when nothing is."""
    names = [a["filename"] for a in version.get("attachments") or []]
    if not names:
        return None
    hand = shown_hand(version)
    if hand is None:
        return f"a picture {names} on a message that shows no hand: {version.get('content')!r}"
    if names != [picture_name(hand)]:
        return (f"the picture {names} is not of the hand the text lists "
                f"({picture_name(hand)}): {version.get('content')!r}")
    return None


def picture(m: Message) -> Image.Image:
    problem = picture_matches_text(m.payload())
    assert problem is None, problem
    names = [a["filename"] for a in m.attachments]
    assert len(names) == 1 and names[0].startswith("hand-"), names
    data = m.files[names[0]]
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data))


async def test_my_hand_shows_the_hand_as_a_picture_privately(
        loopback: LoopbackTest, loopback_bot_env: dict[str, str]) -> None:
    alice, bob, table = await two_at_a_table(loopback)
    state = saved_game(loopback)
    assert state is not None
    for member in (alice, bob):
        r = await member.click("My hand", message=table)
        assert r.ephemeral and r.message is not None
        held = state["game"]["hands"][str(member.id)]
        image = picture(await pictured(r.message))
        assert r.message.history, "the picture was added by an edit of the answer"
        assert not r.message.history[0].get("attachments"), "the answer came first"
        # one card per column up to ten a row: the picture is as wide as the hand
        assert image.width >= min(len(held), 10) * HAND_CARD_WIDTH
        assert image.width < (min(len(held), 10) + 1) * HAND_CARD_WIDTH + 200
    assert all(a["filename"].startswith("table-") for m in loopback.channel.messages
               for a in m.attachments), "no public message carries a hand's picture"

    # The same hand looked at again: its picture, drawn already, comes with the answer
    # itself (one write, no edit after it).
    again = (await alice.click("My hand", message=table)).message
    assert again is not None and not again.history, "no edit after the answer"
    assert [a["filename"] for a in again.attachments] == [picture_name(
        [Card.parse(c) for c in state["game"]["hands"][str(alice.id)]])]
    # A person's own look: high contrast, for them only, remembered.
    normal = await pictured(again)
    # (read now: the next My hand opens a new panel, and this one then says it moved)
    normal_size, normal_name = picture(normal).size, normal.attachments[0]["filename"]
    normal_file = normal.files[normal_name]
    r = await alice.slash("uno appearance", high_contrast=True)
    assert r.ephemeral and "high contrast" in r.text
    bold = await pictured((await alice.click("My hand", message=table)).message)
    assert picture(bold).size == normal_size
    name = bold.attachments[0]["filename"]
    assert name == normal_name, "the same hand"
    assert bold.files[name] != normal_file, "drawn in the other look"
    await pictured((await bob.click("My hand", message=table)).message)
    r = await bob.slash("uno appearance")
    assert "normal look" in r.text, "bob's look is his own"
    r = await alice.slash("uno appearance", high_contrast=False)
    assert "normal look" in r.text
    # The drawn cards are kept on disk for the next start.
    assert cached_pngs(loopback_bot_env["UNO_ART_CACHE"])


async def two_at_a_table(loopback: LoopbackTest) -> tuple[Member, Member, Message]:
    """Alice and Bob in a started game with a long turn timer, and its table."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await alice.slash("uno new")
    await alice.slash("uno settings", turn_timer=600)
    await bob.click("Join")
    await alice.click("Start")
    return alice, bob, await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels())


def cached_pngs(directory: str) -> list[pathlib.Path]:
    return list(pathlib.Path(directory).rglob("*.png"))


async def test_a_hand_answered_late_goes_without_its_picture(loopback: LoopbackTest) -> None:
    """A My hand click that reaches the bot 0.6 s after Discord created it (the bot is
    behind: a restart meeting every table's click at once) is answered with the text at
    once and no picture follows; a prompt click gets its picture."""
    alice, _bob, table = await two_at_a_table(loopback)
    button = next(b for b in table.buttons() if b.get("label") == "My hand")
    late = await loopback.discord.send_interaction(
        itype=3, user=alice.identity, channel=loopback.channel,
        data={"custom_id": button["custom_id"], "component_type": 2},
        label="alice: My hand 0.6 s late", source_message=table, delayed=0.6)
    assert late.ack is not None
    await asyncio.wait_for(asyncio.shield(late.ack), 3)
    menu = late.original
    assert menu is not None and menu.ephemeral and "Your hand" in menu.text(), menu
    prompt = await alice.click("My hand", message=table)
    await pictured(prompt.message)  # the prompt one's picture came...
    await asyncio.sleep(0.3)
    # ...the late one's never comes (its only edit: it says the newer panel replaced it)
    assert not menu.attachments and all(not v.get("attachments") for v in menu.history)
    assert menu.text() == "Your hand moved to a newer message below."


def newest_table(loopback: LoopbackTest) -> Message:
    return next(m for m in reversed(loopback.channel.messages) if "My hand" in m.button_labels())


async def test_a_move_made_at_once_never_shows_the_old_hands_picture(loopback: LoopbackTest
                                                                      ) -> None:
    """Issue 16, step 0, fault 3: the player to move opens My hand and draws from it at
    once (no think time), then keeps the card. The answer to the draw edits the menu (the
    hand with the drawn card, no picture) while the picture of the hand as it was may still
    be drawn: it must not land on the new text afterwards. Every version of every hand
    message (its history included) shows either no picture or the picture of the hand its
    text lists (the picture's file name names the hand drawn in it)."""
    alice, bob, _table = await two_at_a_table(loopback)
    menus: list[Message] = []
    moves = 0
    for _ in range(10):
        for member in (alice, bob):
            r = await member.click("My hand", message=newest_table(loopback))
            assert r.message is not None and r.ephemeral
            menu = r.message
            menus.append(menu)
            if "Red" in menu.button_labels():  # a wild opened the round: its colour first
                await member.click("Red", message=menu)
            if "Draw" not in menu.button_labels():
                continue  # not their turn
            drew = await member.click("Draw", message=menu)  # at once
            assert drew.message is menu, "the draw's answer edits the menu"
            moves += 1
            if "Keep it" in menu.button_labels():
                await member.click("Keep it", message=menu)
    assert moves >= 10
    # Menus nobody moves from get their picture (waited for: on a loaded machine a picture
    # takes a while; one drawn already comes with the answer); then any other picture on
    # its way has arrived.
    idle = []
    for member in (alice, bob):
        r = await member.click("My hand", message=newest_table(loopback))
        assert r.message is not None
        idle.append(r.message)
    menus += idle
    for _ in range(200):
        if all(m.attachments for m in idle):
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)
    problems = [f"{menu!r} version {i}: {problem}" for menu in menus
                for i, version in enumerate([*menu.history, menu.payload()])
                if (problem := picture_matches_text(version)) is not None]
    assert not problems, "\n".join(problems)
    assert all(m.attachments for m in idle), idle


async def test_the_panel_shows_the_hand_as_a_picture_whenever_it_is_your_turn(
        loopback: LoopbackTest) -> None:
    """Issue 29: the live panel carries the hand's picture whenever it is its player's
    turn, not only in the answer to My hand: the bot's edit that brings the turn brings the
    picture of the hand as it is now (its playable cards lit); out of turn the panel is
    text and buttons."""
    alice, bob, table = await two_at_a_table(loopback)
    panels = {}
    for member in (alice, bob):
        panel = (await member.click("My hand", message=table)).message
        assert panel is not None
        panels[member.id] = await pictured(panel)
    turns = 0
    for _ in range(40):
        state = saved_game(loopback)
        assert state is not None
        turn = int(state["game"]["turn"])
        member = alice if turn == alice.id else bob
        panel = panels[member.id]
        for _wait in range(100):
            if "Your turn" in panel.text() or "first card is wild" in panel.text():
                break
            await asyncio.sleep(0.05)
        held = [Card.parse(c) for c in state["game"]["hands"][str(member.id)]]
        await pictured(panel)
        assert [a["filename"] for a in panel.attachments] == [picture_name(held)], panel
        assert picture_matches_text(panel.payload()) is None
        turns += 1
        other = panels[bob.id if member is alice else alice.id]
        if turns > 2:  # (My hand showed the picture whatever the turn)
            assert not other.attachments, "out of turn: no picture"
        await take_turn(member, panel)
        if turns >= 8:
            break
    assert turns >= 8


async def take_turn(member: Member, panel: Message) -> None:
    """Play the turn from the panel: the first playable card (its colour red, its first
    towers) or Draw, then Keep it; accept a Wild Draw Four; keep the first card of an
    instant UNO."""
    if "Red" in panel.button_labels():  # a wild opened the round: its colour first
        await member.click("Red", message=panel)
    if "Accept +4" in panel.button_labels():
        await member.click("Accept +4", message=panel)
        return
    keep = [str(b["custom_id"]) for b in panel.buttons()
            if str(b.get("custom_id", "")).startswith("uno:kb:")]
    if keep:  # an instant UNO: the card to keep
        await member.click(custom_id=keep[0], message=panel)
        return
    cards = [b for b in panel.buttons() if str(b.get("custom_id", "")).startswith("uno:pc:")
             and not b.get("disabled") and not str(b["custom_id"]).endswith(":u")]
    if not cards:
        await member.click("Draw", message=panel)
        if "Keep it" in panel.button_labels():
            await member.click("Keep it", message=panel)
        return
    await member.click(custom_id=str(cards[0]["custom_id"]), message=panel)
    if "Red" in panel.button_labels():
        await member.click("Red", message=panel)
    towers = [str(b["custom_id"]) for b in panel.buttons()
              if str(b.get("custom_id", "")).startswith("uno:tb:")]
    if towers:
        await member.click(custom_id=towers[0], message=panel)
