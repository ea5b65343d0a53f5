"""End to end: play where people are (issue 31): the app installed to a user.

The bot syncs its commands globally (no DEV_GUILD_ID), with both installation contexts and
all three interaction contexts. In a group DM the bot is not in, and in a server that did
not add it, a game lives in interaction replies only: the loopback Discord answers the bot
403 50001 on every channel route there (and counts it), so these tests assert the bot never
tries one, and that what it shows came through the interactions' webhooks. Also the
invitation from a member's menu ("Play UNO with…"), and a restart in a group DM (the next
click of a player brings the table back).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.users import Member
from support.driver import PrivacyWatch
from support.e2e import FAST_ENV, card_buttons, db_of, play_card
from support.games import saved_state

SCALE = 0.02
pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, UNO_TIME_SCALE=str(SCALE), DEV_GUILD_ID="")]

DECISIONS = ("Play it", "Accept +4", "Keep", "Draw", "Pass")
COLOURS = ("Red", "Blue", "Green", "Yellow")


def channel_requests(t: LoopbackTest, channel: Channel) -> list[str]:
    """The bot's requests on ``channel``'s own routes (``/channels/{id}/...``)."""
    return [f"{method} {path}" for method, path, _body in t.discord.requests
            if f"/channels/{channel.id}" in path]


def enabled_labels(msg: Message) -> list[str]:
    return [str(b.get("label")) for b in msg.buttons() if not b.get("disabled")]


class Player:
    """A person who plays from their one hand panel (opened with My hand on the table)."""

    def __init__(self, member: Member, rng: random.Random) -> None:
        self.m = member
        self.rng = rng
        self.panel: Message | None = None

    async def open(self) -> None:
        r = await self.m.click("My hand")
        assert r.ephemeral and r.message is not None, r
        self.panel = r.message

    def decides(self) -> bool:
        assert self.panel is not None
        labels = enabled_labels(self.panel)
        return bool(card_buttons(self.panel)) or any(
            x in labels for x in (*DECISIONS, *COLOURS, "Challenge")) or any(
            x.startswith("Keep") for x in labels)

    async def act(self) -> None:
        panel = self.panel
        assert panel is not None
        if "stopped following the game" in panel.text():
            await self.m.click("Reopen", message=panel)
            return
        cards = card_buttons(panel)
        if cards:
            calls = [c for c in cards if c.endswith("|u")]
            await play_card(self.m, self.rng.choice(calls or cards), message=panel)
        else:
            labels = enabled_labels(panel)
            pick = next((x for x in DECISIONS if x in labels), None) or next(
                x for x in labels if x.startswith("Keep") or x in COLOURS)
            await self.m.click(pick, message=panel)
        for _ in range(3):  # what the card still asks: a colour, towers
            labels = enabled_labels(panel)
            towers = [str(b["custom_id"]) for b in panel.buttons() if not b.get("disabled")
                      and str(b.get("custom_id", "")).startswith("uno:tb:")]
            if "Red" in labels and "Back" in labels:
                await self.m.click(self.rng.choice(COLOURS), message=panel)
            elif towers:
                await self.m.click(custom_id=self.rng.choice(towers), message=panel)
            else:
                break


async def play_moves(t: LoopbackTest, channel: Channel, players: list[Player], *,
                     moves: int = 10_000) -> Message | None:
    """The players act from their panels when the saved game waits for them, until the game
    is won (its message returned) or ``moves`` were made (None)."""
    db = db_of(t)
    by_id = {str(p.m.id): p for p in players}
    made = 0
    for _ in range(3000):
        won = next((m for m in reversed(channel.messages) if "won the game" in m.text()), None)
        if won is not None:
            return won
        if made >= moves:
            return None
        state = saved_state(db, channel)
        game = (state or {}).get("game") or {}
        player = by_id.get(str(game.get("turn")))
        if player is not None and player.decides():
            await player.act()
            made += 1
            continue
        await t.discord.wait_change(0.3)
    raise AssertionError("the game did not end")


async def open_game(host: Member, guests: list[Member], channel: Channel, *,
                    cpus: int = 1) -> Message:
    """``host`` opens a classic game to 100 here, the guests join, ``cpus`` computer players
    sit in, it starts; the table."""
    r = await host.slash("uno new")
    assert not r.ephemeral and "no threads and no turn reminders" in r.text, r.text
    await host.slash("uno settings", turn_timer=600, target=100, edition="classic")
    for guest in guests:
        await guest.click("Join")
    for _ in range(cpus):
        await host.click("Add computer player")
    await host.click("Start")
    return await channel.wait_for(lambda m: "My hand" in m.button_labels(), timeout=10)


def group_of(t: LoopbackTest, *names: str, installer: str) -> tuple[Channel, list[Member]]:
    """A group DM of these people (the bot not in it); ``installer`` installed the app."""
    people = [t.member(n) for n in names]
    next(p for p in people if p.name == installer).install_app()
    group = t.discord.group_dm(*people, name="-".join(names))
    return group, [p.at(group) for p in people]


def assert_private_hands(t: LoopbackTest, channel: Channel) -> None:
    """No public message (nor any earlier version of one) shows or offers a card of a
    hand: hands only in ephemeral panels."""
    for msg in channel.messages:
        assert not card_buttons(msg, enabled=False), msg
    watch = PrivacyWatch(db_of(t), channel)
    watch.scan_public_history()
    assert not watch.violations, watch.violations


async def test_commands_offer_both_installs_and_all_contexts(loopback: LoopbackTest) -> None:
    cmds = {(c["name"], c.get("type", 1)): c for c in loopback.discord.global_commands}
    for key in (("uno", 1), ("Play UNO with…", 2)):
        assert key in cmds, sorted(cmds)
        assert sorted(cmds[key]["integration_types"]) == [0, 1], cmds[key]
        assert sorted(cmds[key]["contexts"]) == [0, 1, 2], cmds[key]
    # someone who did not install the app is offered nothing in a group DM
    dan, erin = loopback.member("dan"), loopback.member("erin")
    group = loopback.discord.group_dm(dan, erin)
    assert dan.at(group).visible_commands() == []
    dan.install_app()
    assert {c["name"] for c in dan.at(group).visible_commands()} == {"uno", "Play UNO with…"}


async def test_a_whole_game_in_a_group_dm_through_replies_only(loopback: LoopbackTest) -> None:
    refused = loopback.discord.refusal_counts["not_a_member"]
    group, (alice, bob) = group_of(loopback, "alice", "bob", installer="alice")
    table = await open_game(alice, [bob], group, cpus=3)  # (more points a round: shorter)
    r = await alice.click("My hand")
    state = r.state.payload
    assert state["context"] == 2 and "guild_id" not in state, state
    assert state["authorizing_integration_owners"] == {"1": str(alice.id)}, state
    assert int(state["app_permissions"]) == 0x8000 | 0x4000 | 0x20000  # attach, embed, @all
    rng = random.Random(31)
    players = [Player(alice, rng), Player(bob, rng)]
    players[0].panel = r.message
    r = await bob.click("My hand")  # bob did not install the app: alice's install authorizes
    assert r.state.payload["authorizing_integration_owners"] == {"1": str(alice.id)}
    players[1].panel = r.message
    won = await play_moves(loopback, group, players)
    assert won is not None
    assert_private_hands(loopback, group)
    # every public message of the bot came through an interaction (its webhook)
    bots = [m for m in group.messages if m.author.get("id") == str(loopback.discord.
                                                                     application_id)]
    assert table in bots and all(m.interaction_metadata for m in bots), bots
    assert channel_requests(loopback, group) == []
    assert loopback.discord.refusal_counts["not_a_member"] == refused
    # the group's leaderboard is its own: another group sees none of it
    board = await alice.slash("uno leaderboard")
    assert "Alice" in board.text or f"<@{alice.id}>" in board.text, board.text
    _other, (alice2, _carol) = group_of(loopback, "alice", "carol", installer="alice")
    board = await alice2.slash("uno leaderboard")
    assert "No games finished here yet" in board.text, board.text


async def test_a_restart_in_a_group_dm_the_next_click_brings_the_table_back(
        loopback: LoopbackTest) -> None:
    refused = loopback.discord.refusal_counts["not_a_member"]
    group, (alice, bob) = group_of(loopback, "alice", "bob", installer="alice")
    old = await open_game(alice, [bob], group, cpus=0)
    rng = random.Random(7)
    players = [Player(alice, rng), Player(bob, rng)]
    for p in players:
        await p.open()
    assert await play_moves(loopback, group, players, moves=2) is None
    saved = saved_state(db_of(loopback), group)
    assert saved is not None and saved["replies"] is True
    await loopback.bot.restart()
    assert channel_requests(loopback, group) == []
    # the old table's My hand (any player's click) opens a panel, and the table comes back
    mark = group.mark()
    r = await bob.click("My hand", message=old)
    assert r.ephemeral
    new = await group.wait_for(lambda m: "My hand" in m.button_labels() and m is not old,
                               after=mark, timeout=10)
    assert new.interaction_metadata["id"] == str(r.state.id), new.interaction_metadata
    players[1].panel = r.message
    await players[0].open()
    assert await play_moves(loopback, group, players, moves=2) is None
    assert channel_requests(loopback, group) == []
    assert loopback.discord.refusal_counts["not_a_member"] == refused


async def test_a_whole_game_in_a_server_that_did_not_add_the_bot(loopback: LoopbackTest
                                                                   ) -> None:
    refused = loopback.discord.refusal_counts["not_a_member"]
    other = loopback.discord.add_guild("Elsewhere", bot=False)
    room = other.default_channel
    carol = other.member("carol").at(room)
    dave = other.member("dave").at(room)
    carol.install_app()
    await open_game(carol, [dave], room, cpus=3)  # (more points a round: shorter)
    r = await carol.click("My hand")
    payload: dict[str, Any] = r.state.payload
    assert payload["context"] == 0 and payload["guild_id"] == str(other.id)
    assert payload["authorizing_integration_owners"] == {"1": str(carol.id)}, payload
    rng = random.Random(5)
    players = [Player(carol, rng), Player(dave, rng)]
    players[0].panel = r.message
    await players[1].open()
    assert await play_moves(loopback, room, players) is not None
    assert_private_hands(loopback, room)
    assert channel_requests(loopback, room) == []
    assert loopback.discord.refusal_counts["not_a_member"] == refused
    # the game counts on that server's leaderboard
    board = await carol.slash("uno leaderboard")
    assert f"<@{carol.id}>" in board.text or "Carol" in board.text, board.text


async def test_play_uno_with_invites_and_the_guest_joins_in_one_click(
        loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    r = await alice.user_command("Play UNO with…", bob)
    invitation = r.message
    assert invitation is not None and not r.ephemeral
    assert bob.mention in invitation.text(), invitation.text()
    body = next(b for m, p, b in reversed(loopback.discord.requests)
                if "/callback" in p and isinstance(b, dict) and bob.mention in str(b))
    mentions = body["data"]["allowed_mentions"]  # bob alone may be notified
    assert mentions["parse"] == [] and [int(u) for u in mentions["users"]] == [bob.id], mentions
    await bob.click("Join", message=invitation)
    state = saved_state(db_of(loopback), loopback.channel)
    assert state is not None and [s[0] for s in state["seats"]] == [str(alice.id), str(bob.id)]
    # one sentence, nothing changed: someone already seated, oneself
    again = await alice.user_command("Play UNO with…", bob)
    assert again.ephemeral and "already in the lobby" in again.text, again.text
    me = await alice.user_command("Play UNO with…", alice)
    assert me.ephemeral and "someone else" in me.text, me.text
    assert saved_state(db_of(loopback), loopback.channel) == state


async def test_an_invitee_who_cannot_see_the_channel_is_not_mentioned(
        loopback: LoopbackTest) -> None:
    alice, erin = loopback.member("alice"), loopback.member("erin")
    loopback.channel.deny(erin, "view_channel")
    r = await alice.user_command("Play UNO with…", erin)
    assert r.ephemeral and "can't see this channel" in r.text, r.text
    assert erin.mention not in "\n".join(m.text() for m in loopback.channel.messages)
    assert saved_state(db_of(loopback), loopback.channel) is None


async def test_play_uno_with_in_a_group_dm(loopback: LoopbackTest) -> None:
    group, (alice, bob) = group_of(loopback, "alice", "bob", installer="alice")
    r = await alice.user_command("Play UNO with…", bob)
    assert r.message is not None and bob.mention in r.text, r.text
    await bob.click("Join", message=r.message)
    state = saved_state(db_of(loopback), group)
    assert state is not None and state["replies"] is True and len(state["seats"]) == 2
    assert channel_requests(loopback, group) == []


async def test_a_game_in_a_dm_with_the_bot(loopback: LoopbackTest) -> None:
    """The bot's own DM (context 1, the guild install's "0": "0"): a game against computer
    players, played in the replies there like anywhere the bot is not a member."""
    gina = loopback.member("gina")
    dm = loopback.discord.application_routes.open_dm(gina.identity)
    me = gina.at(dm)
    table = await open_game(me, [], dm)
    r = await me.click("My hand", message=table)
    assert r.state.payload["context"] == 1
    assert r.state.payload["authorizing_integration_owners"] == {"0": "0"}
    player = Player(me, random.Random(3))
    player.panel = r.message
    assert await play_moves(loopback, dm, [player], moves=2) is None
    assert_private_hands(loopback, dm)
    assert channel_requests(loopback, dm) == []
