"""End to end through the loopback Discord: a lobby filled and started, the first table."""

from __future__ import annotations

import asyncio

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Message
from loopback.rest import Request
from support.driver import PLAYER_ROW

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_new_join_cpu_start_shows_table_and_private_hand(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    bob = loopback.member("bob")
    await alice.slash("uno new")
    await bob.click("Join")
    await alice.click("Add computer player")
    lobby = alice.sees()[-1]
    assert "Alice" in lobby.text() and "Bob" in lobby.text() and "CPU 1" in lobby.text()
    assert lobby.button_labels() == ["Join", "Leave", "Add computer player", "Start", "Cancel",
                                     "Add easy computer player", "Add hard computer player",
                                     "Remove computer player"]
    await alice.click("Add computer player")
    refused = await bob.click("Remove computer player")
    assert refused.ephemeral and "Only the host" in refused.text
    await alice.click("Remove computer player")
    assert "CPU 2" not in alice.sees()[-1].text() and "CPU 1" in alice.sees()[-1].text()
    await alice.click("Start")
    table = await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels(), timeout=10)
    assert "round 1" in table.text().lower()
    assert "7 cards" in table.text()
    result = await alice.click("My hand")
    assert result.ephemeral
    # 7 cards, or more if the first card turned up was a Draw One or Two and Alice plays
    # first: the hand says what the newest table says.
    newest = next(m for m in reversed(loopback.channel.messages) if "My hand" in
                  m.button_labels())
    counts = {m.group("name"): int(m.group("n")) for m in PLAYER_ROW.finditer(newest.text())}
    assert counts["Alice"] in (7, 8, 9), counts
    assert f"Your hand** ({counts['Alice']} cards)" in result.text
    assert result.message is not None
    assert result.message in alice.sees()
    assert result.message not in bob.sees(), "a hand is visible to its owner only"


async def lobby_with_its_edit_held(loopback: LoopbackTest) -> tuple[Message, Request]:
    """Alice's new lobby, whose edit for ``/uno addcpu level:hard`` Discord holds 1 s:
    returned with that edit once it is on its way, held (a click now races it)."""
    alice = loopback.member("alice")
    await alice.slash("uno new")
    lobby = await loopback.channel.wait_for(lambda m: "Join" in m.button_labels())
    held = loopback.discord.delay_next(
        "PATCH", lambda req: req.path.endswith(f"/messages/{lobby.id}"), 1.0)
    r = await alice.slash("uno addcpu", level="hard")
    assert "CPU 1 takes a seat" in r.text, r.text
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not held.hits:
        assert loop.time() < deadline, "the lobby was never edited after /uno addcpu"
        await asyncio.sleep(0.02)
    return lobby, held.hits[0]


async def test_a_lobby_click_while_the_lobby_is_being_edited_is_not_undone(
        loopback: LoopbackTest) -> None:
    """A click on the lobby answers in place (type 7) while the outbox is still sending
    the lobby's edit for the change before it (here: ``/uno addcpu``, held 1 s by Discord):
    that edit, composed before the click, lands over the click's answer with the lobby as
    it was. The bot edits the lobby once more after it, so the computer player the click
    added shows (a full test run saw it missing, and a host would add another)."""
    lobby, _held = await lobby_with_its_edit_held(loopback)
    clicked = await loopback.member("alice").click("Add easy computer player", message=lobby)
    assert clicked.response_type == 7 and "CPU 2 🤖 easy" in clicked.text, clicked.text
    await asyncio.sleep(1.5)  # the held edit has landed
    await loopback.channel.wait_for(lambda m: m.id == lobby.id and "CPU 2 🤖 easy" in m.text())
    assert "CPU 1 🤖 hard" in lobby.text(), lobby.text()


async def test_a_lobby_cancelled_while_the_lobby_is_being_edited_stays_cancelled(
        loopback: LoopbackTest) -> None:
    """The same race with Cancel: the lobby's older edit would bring the lobby back (its
    players; no buttons once closed) under "cancelled". The bot edits the message once
    more: the answer's text alone."""
    lobby, _held = await lobby_with_its_edit_held(loopback)
    clicked = await loopback.member("alice").click("Cancel", message=lobby)
    assert clicked.response_type == 7 and "cancelled by Alice" in clicked.text, clicked.text
    await asyncio.sleep(1.5)  # the held edit has landed
    await loopback.channel.wait_for(lambda m: m.id == lobby.id and not m.embeds, timeout=5)
    assert "cancelled by Alice" in lobby.text(), lobby.text()
    assert "CPU 1" not in lobby.text() and lobby.button_labels() == [], lobby.text()


async def test_a_lobby_started_while_the_lobby_is_being_edited_loses_its_buttons(
        loopback: LoopbackTest) -> None:
    """The same race with Start: the older edit brings the lobby's buttons back for a
    moment, but not its text ("started" stays), and the closed lobby's own edit follows it:
    the message ends with the answer's text and no buttons, and the table comes."""
    lobby, held = await lobby_with_its_edit_held(loopback)
    assert held.body.get("components"), "the held edit brings the lobby's buttons back"
    clicked = await loopback.member("alice").click("Start", message=lobby)
    assert clicked.response_type == 7 and "has started" in clicked.text, clicked.text
    await asyncio.sleep(1.5)  # the held edit has landed
    await loopback.channel.wait_for(
        lambda m: m.id == lobby.id and not m.button_labels(), timeout=5)
    assert "has started" in lobby.text(), lobby.text()
    await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels(), timeout=10)
