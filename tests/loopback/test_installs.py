"""Installs, contexts and group DMs in the loopback Discord (loopback/installs.py): which
commands a person is offered where, what an interaction says of it, and Discord's 403 50001
to a bot that reads or writes a channel it is not a member of (driven through the demo bot,
a real discord.py process, and straight REST calls)."""

from __future__ import annotations

import sys

import pytest

from loopback import installs
from loopback.fixtures import LoopbackTest
from loopback.records import Identity
from support.e2e import rest

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOTH = {"integration_types": [0, 1], "contexts": [0, 1, 2]}


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "loopback/demo_bot.py"]


def test_who_is_offered_a_command_where(loopback: LoopbackTest) -> None:
    bot = loopback.discord.bot_identity
    guild = loopback.guild
    alice, bob = loopback.member("alice"), loopback.member("bob")
    group = loopback.discord.group_dm(alice, bob)
    other = loopback.discord.add_guild("Elsewhere", bot=False)
    room = other.default_channel
    guild_only = {"name": "g", "integration_types": [0]}
    both = {"name": "b", **BOTH}
    # a server that added the bot: its guild install (and alice's own, once she has one)
    assert installs.command_owners(guild_only, loopback.channel, alice.identity, bot) == {
        0: guild.id}
    assert installs.command_owners(both, group, alice.identity, bot) == {}
    assert installs.command_owners(both, room, alice.identity, bot) == {}
    alice.install_app()
    assert installs.command_owners(both, loopback.channel, alice.identity, bot) == {
        0: guild.id, 1: alice.id}
    assert installs.command_owners(both, group, alice.identity, bot) == {1: alice.id}
    assert installs.command_owners(both, room, alice.identity, bot) == {1: alice.id}
    # a group DM shows only commands whose contexts name it
    assert installs.command_owners({"name": "n", "integration_types": [1]}, group,
                                   alice.identity, bot) == {}
    assert installs.context_of(group, bot) == 2 and installs.context_of(room, bot) == 0
    assert installs.app_permissions(group, bot) == installs.PRIVATE_APP_PERMISSIONS
    assert not installs.bot_is_member(group, bot) and not installs.bot_is_member(room, bot)
    assert group.payload()["type"] == 3 and len(group.payload()["recipients"]) == 2


def test_a_click_is_authorized_by_the_install_that_made_its_message(
        loopback: LoopbackTest) -> None:
    bot = loopback.discord.bot_identity
    carol, dan = loopback.member("carol"), loopback.member("dan")
    group = loopback.discord.group_dm(carol, dan)
    made_by_carol = {"authorizing_integration_owners": {"1": str(carol.id)}}
    assert installs.component_owners(made_by_carol, group, dan.identity, bot) == {
        1: carol.id}
    assert installs.component_owners(None, group, Identity(1, "x"), bot) == {}


async def test_the_bot_is_refused_where_it_is_not_a_member(loopback: LoopbackTest) -> None:
    erin, fay = loopback.member("erin"), loopback.member("fay")
    group = loopback.discord.group_dm(erin, fay)
    other = loopback.discord.add_guild("Nowhere", bot=False)
    before = loopback.discord.refusal_counts["not_a_member"]
    for channel in (group, other.default_channel):
        said = erin.at(group).say("hello") if channel is group else None
        status, body = await rest(loopback, "POST", f"/channels/{channel.id}/messages",
                                  {"content": "hi"})
        assert (status, body["code"]) == (403, 50001), body
        assert body["message"] == "Missing Access"
        if said is not None:
            status, body = await rest(loopback, "PATCH",
                                      f"/channels/{channel.id}/messages/{said.id}",
                                      {"content": "edited"})
            assert (status, body["code"]) == (403, 50001), body
        status, body = await rest(loopback, "GET", f"/channels/{channel.id}")
        assert status == 403
    refused = loopback.discord.take_refused(reason="not_a_member")
    assert len(refused) == 5 and all(r.code == 50001 for r in refused), refused
    assert loopback.discord.refusal_counts["not_a_member"] == before + 5
    # nothing of them reaches the bot on the gateway
    session = loopback.discord.current_session
    assert session is not None
    seen = [f["d"] for f in session.buffer if f["t"] == "MESSAGE_CREATE"]
    assert not any(str(group.id) == e.get("channel_id") for e in seen)
