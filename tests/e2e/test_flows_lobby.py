"""End to end through the loopback Discord: the lobby, settings and server defaults.

Every refusal is checked twice: the sentence the person reads, and the saved game (the
bot's database) being exactly what it was before.
"""

from __future__ import annotations

from typing import Any

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Message
from loopback.users import Member
from support.e2e import FAST_ENV, db_of, lobby_saved, saved_game
from support.games import rows, saved_state
from support.tables import refused

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


async def new_lobby(t: LoopbackTest, host: Member) -> Message:
    r = await host.slash("uno new")
    assert r.message is not None and not r.ephemeral
    assert r.message.button_labels() == ["Join", "Leave", "Add computer player", "Start",
                                         "Cancel", "Add easy computer player",
                                         "Add hard computer player", "Remove computer player"]
    return await lobby_saved(db_of(t), host.channel, r)


def seats_of(s: dict[str, Any] | None) -> list[str]:
    assert s is not None
    return [seat[0] for seat in s["seats"]]


async def test_join_leave_and_host_passes(loopback: LoopbackTest) -> None:
    alice, bob, carol = (loopback.member(n) for n in ("alice", "bob", "carol"))
    lobby = await new_lobby(loopback, alice)
    assert "1. Alice (host)" in lobby.text()
    assert seats_of(saved_game(loopback)) == [str(alice.id)]

    r = await bob.click("Join")
    assert r.message is lobby and r.response_type == 7
    assert "2. Bob" in lobby.text()
    r = await carol.slash("uno join")
    assert "Carol joined the game." in r.text and not r.ephemeral
    assert seats_of(saved_game(loopback)) == [str(alice.id), str(bob.id), str(carol.id)]

    before = saved_game(loopback)
    refused(await bob.click("Join", message=lobby), "You're already in this game.")
    assert saved_game(loopback) == before

    # the host leaves: the next human becomes host
    r = await alice.click("Leave", message=lobby)
    assert "1. Bob (host)" in lobby.text() and "Alice" not in lobby.text()
    s = saved_game(loopback)
    assert s is not None and s["host_id"] == str(bob.id)
    assert seats_of(s) == [str(bob.id), str(carol.id)]

    refused(await alice.click("Leave", message=lobby), "You're not in this game.")
    r = await carol.slash("uno leave")
    refused(r, "You left the lobby.")
    r = await bob.click("Leave", message=lobby)
    assert "The lobby closed: everyone left." in lobby.text()
    assert lobby.buttons() == []
    assert saved_game(loopback) is None
    # the channel is free again
    await new_lobby(loopback, carol)


async def test_computer_players_and_limits(loopback: LoopbackTest) -> None:
    alice, bob, carol = (loopback.member(n) for n in ("alice", "bob", "carol"))
    outsider = loopback.member("dave")
    lobby = await new_lobby(loopback, alice)
    refused(await outsider.click("Add computer player", message=lobby),
            "Join the game first to add computer players.")
    await bob.click("Join", message=lobby)
    for _ in range(4):
        await alice.click("Add computer player", message=lobby)
    s = saved_game(loopback)
    assert seats_of(s)[2:] == ["cpu1", "cpu2", "cpu3", "cpu4"]
    assert "6. CPU 4 🤖" in lobby.text()
    # Power Grab seats six
    refused(await alice.click("Add computer player", message=lobby), "The table is full.")
    refused(await carol.click("Join", message=lobby), "The table is full.")
    assert saved_game(loopback) == s

    # classic seats ten, but one human gets at most five computer players
    r = await alice.slash("uno settings", edition="classic")
    assert "Settings for this game" in r.text
    await bob.click("Leave", message=lobby)
    await alice.click("Add computer player", message=lobby)
    assert seats_of(saved_game(loopback))[1:] == [f"cpu{i}" for i in range(1, 6)]
    before = saved_game(loopback)
    refused(await alice.click("Add computer player", message=lobby),
            "A game can have at most 5 computer players.")
    assert saved_game(loopback) == before
    # seven seats do not fit Power Grab
    await carol.click("Join", message=lobby)
    before = saved_game(loopback)
    refused(await alice.slash("uno settings", edition="power-grab"),
            "Too many seats for that edition.")
    assert saved_game(loopback) == before
    assert (before or {})["options"]["edition"] == "classic"


async def test_start_refusals_then_start(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    lobby = await new_lobby(loopback, alice)
    before = saved_game(loopback)
    refused(await alice.click("Start", message=lobby), "At least 2 players are needed")
    refused(await alice.slash("uno start"), "At least 2 players are needed")
    assert saved_game(loopback) == before
    await bob.click("Join", message=lobby)
    before = saved_game(loopback)
    refused(await bob.click("Start", message=lobby),
            "Only the host or a member with Manage Server can do that.")
    refused(await bob.slash("uno start"),
            "Only the host or a member with Manage Server can do that.")
    assert saved_game(loopback) == before and (before or {})["game"] is None

    await alice.click("Start", message=lobby)
    assert "The game has started! Seats: Alice, Bob." in lobby.text()
    assert lobby.buttons() == []
    s = saved_game(loopback)
    assert s is not None and s["game"] is not None
    assert sorted(s["game"]["players"]) == sorted([str(alice.id), str(bob.id)])
    table = await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels())
    # Whoever acts first is mentioned: their turn, or naming the colour of a wild first card.
    assert "Round 1" in table.text()
    assert "it's your turn" in table.text() or "name the starting colour" in table.text()
    # the lobby is gone: joining asks for a seat at the next round (R-BOT-JOIN); adding
    # computer players is refused
    r = await loopback.member("carol").slash("uno join")
    assert "Carol asks for a seat at the next round." in r.text, r
    s = saved_game(loopback)
    assert s is not None and s["game"]["waiting"] == [str(loopback.member("carol").id)]
    refused(await alice.slash("uno addcpu"), "The game has already started.")
    refused(await alice.slash("uno start"), "The game has already started.")


async def test_cancel_by_host_or_manage_server_only(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    mod = loopback.member("mod", manage_guild=True)
    lobby = await new_lobby(loopback, alice)
    await bob.click("Join", message=lobby)
    before = saved_game(loopback)
    refused(await bob.click("Cancel", message=lobby),
            "Only the host or a member with Manage Server can do that.")
    assert saved_game(loopback) == before
    await mod.click("Cancel", message=lobby)
    assert "The game was cancelled by Mod." in lobby.text()
    assert lobby.buttons() == []
    assert saved_game(loopback) is None

    lobby = await new_lobby(loopback, bob)
    await bob.click("Cancel", message=lobby)
    assert "The game was cancelled by Bob." in lobby.text()
    assert saved_game(loopback) is None


async def test_second_lobby_in_channel_refused(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await new_lobby(loopback, alice)
    before = saved_game(loopback)
    refused(await bob.slash("uno new"), "A game is already open in this channel")
    assert saved_game(loopback) == before and (before or {})["host_id"] == str(alice.id)
    # another channel is independent
    other = loopback.guild.new_channel()
    r = await bob.at(other).slash("uno new")
    assert r.message is not None and "1. Bob (host)" in r.message.text()


async def test_settings_host_only_and_frozen_after_start(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    lobby = await new_lobby(loopback, alice)
    await bob.click("Join", message=lobby)
    r = await alice.slash("uno settings", target=200, scoring="alternative", grab2_points=50,
                          turn_timer=30, mention_turn=False, shuffle_seats=True)
    refused(r, "Settings for this game: Target 200 · scoring alternative · "
               "Grab-2-Towers 50 pts · turn timer 30s · seats shuffled · turn mentions off")
    s = saved_game(loopback)
    assert s is not None and s["options"] == {
        "edition": "power-grab", "target": 200, "scoring": "alternative", "grab2_points": 50,
        "turn_timer": 30, "mention_turn": False, "shuffle_seats": True, "mode": "solo",
        "hands_per_pairing": 4, "language": "en", "missed_turns": 2}
    # anyone may look; only the host may change
    refused(await bob.slash("uno settings"), "Target 200")
    refused(await bob.slash("uno settings", target=300),
            "Only the host or a member with Manage Server can do that.")
    refused(await bob.slash("uno settings", target=300, server_default=True),
            "Only members with Manage Server can change the server's defaults.")
    assert saved_game(loopback) == s
    # Discord itself refuses values outside the declared ranges
    with pytest.raises(AssertionError, match="min_value"):
        await alice.slash("uno settings", target=50)
    with pytest.raises(AssertionError, match="max_value"):
        await alice.slash("uno settings", turn_timer=601)

    await alice.click("Start", message=lobby)
    s = saved_game(loopback)
    assert s is not None and s["game"]["settings"]["target"] == 200
    refused(await alice.slash("uno settings", target=900),
            "Settings can't change once the game has started.")
    assert (saved_game(loopback) or {})["options"]["target"] == 200


async def test_server_defaults_need_manage_server(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    mod = loopback.member("mod", manage_guild=True)
    # no game here: changing settings means changing the server's defaults
    refused(await alice.slash("uno settings", target=300),
            "Only members with Manage Server can change the server's defaults.")
    refused(await alice.slash("uno settings"), "This server's defaults: Target 500")
    r = await mod.slash("uno settings", target=300, turn_timer=45)
    refused(r, "This server's defaults: Target 300")
    assert "turn timer 45s" in r.text
    try:
        # the next lobby, in any channel of the server, starts from them
        other = loopback.guild.new_channel()
        lobby = await new_lobby(loopback, alice.at(other))
        assert "Target 300" in lobby.text() and "turn timer 45s" in lobby.text()
        s = saved_state(db_of(loopback), other)
        assert s is not None and s["options"]["target"] == 300
        assert s["options"]["turn_timer"] == 45
        # a host's change with server_default=True needs Manage Server too
        refused(await alice.at(other).slash("uno settings", target=250, server_default=True),
                "Only members with Manage Server can change the server's defaults.")
        assert (saved_state(db_of(loopback), other) or {})["options"]["target"] == 300
    finally:
        await mod.slash("uno settings", target=500, turn_timer=90)
    refused(await alice.slash("uno settings"), "This server's defaults: Target 500")


def guild_defaults(t: LoopbackTest) -> list[tuple[Any, ...]]:
    return rows(db_of(t), "SELECT * FROM guild_settings WHERE guild_id = ?", t.guild.id)


TIMER = "The option turn_timer must be a whole number from 10 to 600; nothing was changed."


async def test_options_outside_their_declared_range_are_refused(loopback: LoopbackTest) -> None:
    """Discord's clients keep options to their declared ranges and choices; an interaction
    sent by other means (``slash_raw``) may not: the bot refuses it with one sentence
    naming the option and what it takes, and the lobby and the server's defaults stay as
    they were."""
    alice = loopback.member("alice", manage_guild=True)
    await new_lobby(loopback, alice)
    lobby, defaults = saved_game(loopback), guild_defaults(loopback)
    for seconds in (0, -1, 9, 601, 10**9):
        refused(await alice.slash_raw("uno settings", turn_timer=seconds), TIMER)
        # with server_default the refused value changes neither the lobby nor the server,
        # nor does the valid change beside it
        refused(await alice.slash_raw("uno settings", target=300, turn_timer=seconds,
                                      server_default=True), TIMER)
    for target in (99, 5001):
        refused(await alice.slash_raw("uno settings", target=target),
                "The option target must be a whole number from 100 to 5000; nothing was "
                "changed.")
    refused(await alice.slash_raw("uno settings", edition="uno-zero"),
            "The option edition must be one of: UNO Power Grab, Classic UNO, UNO Victory Lap; "
            "nothing was changed.")
    refused(await alice.slash_raw("uno settings", grab2_points=30, server_default=True),
            "The option grab2_points must be one of: 20, 50; nothing was changed.")
    refused(await alice.slash_raw("uno settings", scoring="lowest"),
            "The option scoring must be one of: standard, alternative;")
    refused(await alice.slash_raw("uno settings", mode="chaos"),
            "The option mode must be one of: everyone for themselves, partners, rotating "
            "partners match;")
    refused(await alice.slash_raw("uno settings", language="de"),
            "The option language must be one of: English, Français;")
    # a value of another type than the option's
    refused(await alice.slash_raw("uno settings", turn_timer="30"), TIMER)
    refused(await alice.slash_raw("uno settings", mention_turn="no"),
            "The option mention_turn doesn't take the value sent")
    assert saved_game(loopback) == lobby
    assert guild_defaults(loopback) == defaults

    # the same in another language: the option's and the choices' names as it shows them
    alice.identity.locale = "fr"
    try:
        r = await alice.slash_raw("uno settings", edition="uno-zero")
    finally:
        alice.identity.locale = "en-US"
    assert r.ephemeral and r.text.startswith("L'option édition doit être "), r.text
    assert saved_game(loopback) == lobby

    # without a lobby the settings are the server's defaults: unchanged as well
    await alice.slash("uno leave")
    assert saved_game(loopback) is None
    refused(await alice.slash_raw("uno settings", turn_timer=601), TIMER)
    assert guild_defaults(loopback) == defaults

    # the other commands with declared ranges or choices
    refused(await alice.slash_raw("uno tournament", hands_per_pairing=99),
            "The option hands_per_pairing must be a whole number from 1 to 4; nothing was "
            "changed.")
    refused(await alice.slash_raw("uno tournament", hands_per_pairing=0), "from 1 to 4")
    assert saved_game(loopback) is None
    refused(await alice.slash_raw("uno leaderboard", order="best"),
            "The option order must be one of: wins, points;")
    refused(await alice.slash_raw("uno color", color="X"),
            "The option color must be one of: red, blue, green, yellow;")
