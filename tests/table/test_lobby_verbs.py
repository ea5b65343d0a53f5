"""The lobby's verbs (join, leave, a computer player added or removed, cancel, teams): each
one change through the tables' pipeline, saved before anyone is shown it and not announced
(the lobby's message shows it), or refused with nothing changed; and each lobby button
reaches its verb (``LOBBY_VERBS``)."""

from __future__ import annotations

import pytest

from cogs.uno._components import LOBBY_VERBS, LobbyButton
from cogs.uno.table.contracts import Actor, Refusal
from data import Database
from support.games import saved_state
from support.service import ALICE, BOB, CAROL, GUILD, make_service

ADMIN = Actor("999", "Admin", admin=True)


def seated(db: Database, channel: int) -> list[tuple[str, bool, str | None, int | None]]:
    """The seats as saved: id, computer, level, team."""
    state = saved_state(db, channel)
    assert state is not None
    return [(i, bool(cpu), level, team) for i, _name, cpu, team, level in state["seats"]]


async def test_join_and_leave_are_saved_and_not_announced(db: Database) -> None:
    service, outbox = make_service(db)
    await service.lobbies.open(1, GUILD, ALICE)
    session = await service.lobbies.join(1, BOB)
    assert [s[0] for s in seated(db, 1)] == [ALICE.id, BOB.id]
    with pytest.raises(Refusal, match="already in this game"):
        await service.lobbies.join(1, BOB)
    await service.lobbies.leave(1, ALICE, session.game_id)
    assert [s[0] for s in seated(db, 1)] == [BOB.id]
    assert service.sessions[1].host_id == BOB.id, "the host leaves: the next person hosts"
    with pytest.raises(Refusal, match="not in this game"):
        await service.lobbies.leave(1, CAROL)
    assert outbox.announced == [] and outbox.lobbies == [], "the caller shows the lobby"
    closed = await service.lobbies.leave(1, BOB)
    assert not service.is_live(closed) and saved_state(db, 1) is None
    assert not closed.humans(), "the last person left (not cancelled)"


async def test_computer_players_of_each_level_come_and_go(db: Database) -> None:
    service, _outbox = make_service(db)
    await service.lobbies.open(2, GUILD, ALICE)
    for level in ("easy", "normal", "hard"):
        await service.lobbies.add_cpu(2, ALICE, level)
    assert [(cpu, level) for _id, cpu, level, _team in seated(db, 2)][1:] == [
        (True, "easy"), (True, "normal"), (True, "hard")]
    with pytest.raises(Refusal, match="Join the game first"):
        await service.lobbies.add_cpu(2, CAROL)
    await service.lobbies.join(2, BOB)
    with pytest.raises(Refusal, match="Only the host"):
        await service.lobbies.remove_cpu(2, BOB)
    await service.lobbies.remove_cpu(2, ALICE)
    assert [level for _id, cpu, level, _team in seated(db, 2) if cpu] == ["easy", "normal"]
    await service.lobbies.remove_cpu(2, ADMIN)
    await service.lobbies.remove_cpu(2, ALICE)
    with pytest.raises(Refusal, match="no computer player to remove"):
        await service.lobbies.remove_cpu(2, ALICE)


async def test_only_the_host_cancels_and_the_lobby_is_deleted(db: Database) -> None:
    service, outbox = make_service(db)
    await service.lobbies.open(3, GUILD, ALICE)
    await service.lobbies.join(3, BOB)
    with pytest.raises(Refusal, match="Only the host"):
        await service.lobbies.cancel(3, BOB)
    assert saved_state(db, 3) is not None
    session = await service.lobbies.cancel(3, ALICE)
    assert not service.is_live(session) and saved_state(db, 3) is None
    assert session.humans(), "cancelled with its people still seated"
    assert outbox.announced == []
    with pytest.raises(Refusal, match="no game in this channel"):
        await service.lobbies.join(3, CAROL)


async def test_teams_are_chosen_and_shuffled(db: Database) -> None:
    service, _outbox = make_service(db)
    await service.lobbies.open(4, GUILD, ALICE)
    with pytest.raises(Refusal, match="no teams"):
        await service.lobbies.choose_team(4, ALICE, 0)
    await service.lobbies.configure(4, ALICE, {"mode": "partners"})
    await service.lobbies.choose_team(4, ALICE, 1)
    await service.lobbies.choose_team(4, BOB, 1)  # joins on the way
    assert [(i, team) for i, _cpu, _level, team in seated(db, 4)] == [
        (ALICE.id, 1), (BOB.id, 1)]
    with pytest.raises(Refusal, match="Team 2 is full"):
        await service.lobbies.choose_team(4, CAROL, 1)
    with pytest.raises(Refusal, match="Only the host"):
        await service.lobbies.shuffle_teams(4, BOB)
    await service.lobbies.shuffle_teams(4, ALICE)
    assert [team for _i, _cpu, _level, team in seated(db, 4)] == [None, None]


async def test_a_button_of_another_lobby_or_a_started_game_changes_nothing(
        db: Database) -> None:
    service, _outbox = make_service(db)
    session = await service.lobbies.open(5, GUILD, ALICE)
    with pytest.raises(Refusal, match="That lobby has closed"):
        await service.lobbies.join(5, BOB, "0ther")
    await service.lobbies.join(5, BOB, session.game_id)
    await service.lobbies.start(5, ALICE, session.game_id)
    before = saved_state(db, 5)
    with pytest.raises(Refusal, match="already started: /uno join asks for a seat"):
        await service.lobbies.join(5, CAROL, session.game_id)
    with pytest.raises(Refusal, match=r"^The game has already started\.$"):
        await service.lobbies.leave(5, BOB, session.game_id)
    with pytest.raises(Refusal, match=r"^The game has already started\.$"):
        await service.lobbies.cancel(5, ALICE, session.game_id)
    assert saved_state(db, 5) == before
    await service.close()


def test_every_lobby_button_but_start_has_its_verb() -> None:
    """The family's ids are what lobbies saved before a restart carry: each reaches a
    verb (Start: the cog's, a tournament opens threads)."""
    saved_ids = ("join", "leave", "cpu", "cpueasy", "cpuhard", "nocpu", "start", "cancel",
                 "team0", "team1", "team2", "shuffle")
    assert sorted([*LOBBY_VERBS, "start"]) == sorted(saved_ids)
    for action in saved_ids:
        button = LobbyButton(action, "a1b2")
        custom_id = button.item.custom_id  # type: ignore[attr-defined]
        assert custom_id == f"uno:l:{action}:a1b2" and LobbyButton.matches(custom_id)
    assert not LobbyButton.matches("uno:l:team3:a1b2")


async def test_each_lobby_button_makes_its_own_change(db: Database) -> None:
    service, _outbox = make_service(db)
    session = await service.lobbies.open(6, GUILD, ALICE)
    await service.lobbies.configure(6, ALICE, {"mode": "partners"})
    gid = session.game_id
    lobbies = service.lobbies
    await LOBBY_VERBS["join"](lobbies, 6, BOB, gid)
    for action in ("cpueasy", "cpu", "cpuhard"):
        await LOBBY_VERBS[action](lobbies, 6, ALICE, gid)
    assert [level for _i, cpu, level, _t in seated(db, 6) if cpu] == ["easy", "normal", "hard"]
    await LOBBY_VERBS["nocpu"](lobbies, 6, ALICE, gid)
    await LOBBY_VERBS["team2"](lobbies, 6, BOB, gid)
    await LOBBY_VERBS["team0"](lobbies, 6, ALICE, gid)
    assert [t for _i, cpu, _l, t in seated(db, 6) if not cpu] == [0, 2]
    await LOBBY_VERBS["shuffle"](lobbies, 6, ALICE, gid)
    await LOBBY_VERBS["team1"](lobbies, 6, BOB, gid)
    assert [t for _i, cpu, _l, t in seated(db, 6) if not cpu] == [None, 1]
    await LOBBY_VERBS["leave"](lobbies, 6, BOB, gid)
    assert [i for i, cpu, _l, _t in seated(db, 6) if not cpu] == [ALICE.id]
    closed = await LOBBY_VERBS["cancel"](lobbies, 6, ALICE, gid)
    assert not service.is_live(closed) and saved_state(db, 6) is None
