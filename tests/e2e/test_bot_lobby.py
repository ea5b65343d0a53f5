"""End to end through the loopback Discord: a lobby filled and started, the first table."""

from __future__ import annotations

import pytest

from loopback.fixtures import LoopbackTest
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
