"""The end of a game, at the table service (a real SQLite file, a recording outbox): the
result it asks the outbox for, the Play again offer it keeps and the lobby that offer opens
(once), and ``/uno end``'s question (nothing ends until it is confirmed in time by the host
or a member with Manage Server).
"""

from __future__ import annotations

import json
import time

import pytest

from cogs.uno.show.result import ResultModel
from cogs.uno.table.contracts import Actor, Refusal
from cogs.uno.table.service import END_QUESTION, TableService
from cogs.uno.table.session import Options, Session
from cogs.uno.table.tables import FINISHED_KEPT
from data import Database, SavedGame
from engine import Card, Play
from support.games import rows, saved_state
from support.service import ALICE, BOB, CAROL, GUILD, running, scenario, until

OPTS = Options(target=100, turn_timer=300, edition="power-grab", language="fr",
               grab2_points=50, mention_turn=False)


def finishing(channel: int) -> Session:
    """Alice goes out with her last card, and Bob's and the computer's cards take her past
    the target of 100: the game ends with her move."""
    return scenario(channel, [ALICE, "cpu2", BOB],
                    hands={"111": "R3", "222": "W+4 WG G+2 G5", "cpu2": "B1"},
                    discard="R9", draw="Y2 Y3 Y4", turn="111", options=OPTS)


async def play_out(service: TableService, channel: int) -> None:
    await service.move(channel, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))


async def test_a_finished_game_shows_its_result_and_keeps_its_seats(db: Database) -> None:
    service, outbox = await running(db, finishing(1))
    session = service.sessions[1]
    await play_out(service, 1)
    assert 1 not in service.sessions and saved_state(db, 1) is None
    assert outbox.results == [session], "the result is asked for once, with the last lines"
    # who won the game: said once, by the result, not also by the last lines before it
    assert "gagne la manche 1" in outbox.text() and "Victoire" not in outbox.text()
    model = ResultModel.of(session)
    assert model is not None and model.again and model.game_id == session.game_id
    # every player and their points, the winner first (RULES.md section 9: the winner of
    # the round scores the others' cards)
    names = [row.name for row in model.picture.rows]
    assert names[0] == "Alice" and set(names) == {"Alice", "Bob", "cpu2"}
    assert model.picture.rows[0].winner and model.picture.rows[0].points >= 100
    assert not any(row.winner for row in model.picture.rows[1:])
    assert model.lines[0].startswith("🥇 **Alice**") and len(model.lines) == 3
    assert "**Alice**" in model.title
    found = await db.load_rematch(GUILD, session.game_id)
    assert found is not None and found[1] is False
    await service.close()


async def test_a_game_a_computer_player_just_won_is_over_not_gone(db: Database) -> None:
    """Right after a computer player wins (its result still on its way to the channel),
    the channel's game is over and its winner named, in the reader's language (issue 29:
    "There is no game in this channel" while the table still showed it); a while later,
    or once another lobby came and went, there is no game."""
    service, outbox = await running(db, scenario(
        13, [ALICE, "cpu2"], hands={"111": "R4 W+4 WG G+2", "cpu2": "R1"}, discard="R9",
        draw="Y2 Y3 Y4", turn="111", options=OPTS))
    session = service.sessions[13]
    await service.move(13, ALICE, lambda s, g, p: Play(p, Card.parse("R4")))
    # (its session leaves when the result is recorded, a moment before it is announced)
    await until(lambda: outbox.results, "the computer player's win announced")
    assert outbox.results == [session] and 13 not in service.sessions
    for ask in (lambda: service.session(13), lambda: service.game(13, ALICE),
                lambda: service.game(13, ALICE, session.game_id)):
        with pytest.raises(Refusal) as refused:
            ask()
        assert str(refused.value) == "The game is over: cpu2 won."
        assert refused.value.text("fr") == "La partie est finie, remportée par cpu2."
    service.finished[13] = (time.monotonic() - FINISHED_KEPT - 1, session)
    with pytest.raises(Refusal, match="There is no game in this channel"):
        service.session(13)
    service.finished[13] = (time.monotonic(), session)
    lobby = await service.again.press(13, GUILD, ALICE, session.game_id)
    await service.end(13, ALICE)
    assert 13 not in service.sessions and lobby.game is None
    with pytest.raises(Refusal, match="There is no game in this channel"):
        service.session(13)
    await service.close()


async def test_play_again_opens_the_same_seats_and_settings_once(db: Database) -> None:
    service, _outbox = await running(db, finishing(2))
    old = service.sessions[2]
    await play_out(service, 2)
    gid = old.game_id
    bob = Actor(BOB.id, "Bobby")  # a new display name since
    lobby = await service.again.press(2, GUILD, bob, gid)
    assert service.sessions[2] is lobby and lobby.game is None
    assert lobby.game_id != gid, "a new game"
    assert [(s.id, s.cpu) for s in lobby.seats] == [("111", False), ("cpu2", True),
                                                   ("222", False)]
    assert [s.name for s in lobby.seats] == ["Alice", "cpu2", "Bobby"], "as they are called now"
    assert lobby.host_id == "222", "who pressed hosts"
    assert lobby.options == OPTS, "the same settings, language included"
    state = saved_state(db, 2)
    assert state is not None and state["options"]["language"] == "fr"
    # a computer player added now gets a new id
    assert lobby.add_cpu().id == "cpu3"
    lobby.seats.pop()

    with pytest.raises(Refusal, match="already pressed"):
        await service.again.press(2, GUILD, ALICE, gid)
    # once the lobby is gone the offer stays used: it worked once
    await service.end(2, bob)
    with pytest.raises(Refusal, match="already pressed"):
        await service.again.press(2, GUILD, ALICE, gid)
    assert 2 not in service.sessions
    await service.close()


async def test_play_again_keeps_each_computer_players_level(db: Database) -> None:
    """A hard computer player comes back hard (issue 29: it came back normal); an offer
    saved before the levels were kept (four fields a seat) brings its computer players
    back normal, as they played."""
    session = finishing(10)
    session.seats[1].level = "hard"
    service, _outbox = await running(db, session)
    gid = session.game_id
    await play_out(service, 10)
    lobby = await service.again.press(10, GUILD, ALICE, gid)
    assert [(s.id, s.level) for s in lobby.seats] == [("111", "normal"), ("cpu2", "hard"),
                                                     ("222", "normal")]
    state = saved_state(db, 10)
    assert state is not None and [seat[4] for seat in state["seats"]] == [
        "normal", "hard", "normal"]
    await service.end(10, ALICE)

    old = {"options": OPTS.to_dict(), "parent_id": None,
           "seats": [["111", "Alice", False, None], ["cpu2", "cpu2", True, None]]}
    await db.save_rematch(SavedGame(channel_id=10, guild_id=GUILD, game_id="old1",
                                    state=json.dumps(old), updated_at=int(time.time())))
    lobby = await service.again.press(10, GUILD, ALICE, "old1")
    assert [(s.id, s.cpu, s.level) for s in lobby.seats] == [("111", False, "normal"),
                                                             ("cpu2", True, "normal")]
    await service.close()


async def test_play_again_refusals_change_nothing(db: Database) -> None:
    service, _outbox = await running(db, finishing(3))
    gid = service.sessions[3].game_id
    await play_out(service, 3)
    with pytest.raises(Refusal, match="Only the players of that game"):
        await service.again.press(3, GUILD, CAROL, gid)
    with pytest.raises(Refusal, match="can't be played again"):
        await service.again.press(4, GUILD, ALICE, gid)  # another channel
    # a lobby already open in the channel: refused, and the offer is still there after
    other = await service.lobbies.open(3, GUILD, CAROL)
    with pytest.raises(Refusal, match="A game is already open in this channel"):
        await service.again.press(3, GUILD, ALICE, gid)
    found = await db.load_rematch(GUILD, gid)
    assert found is not None and found[1] is False
    assert service.sessions[3] is other and [s.id for s in other.seats] == ["333"]
    await service.end(3, CAROL)
    lobby = await service.again.press(3, GUILD, ALICE, gid)
    assert [s.id for s in lobby.seats] == ["111", "cpu2", "222"]
    await service.close()


async def test_a_game_that_ends_early_offers_no_result(db: Database) -> None:
    service, outbox = await running(db, finishing(5))
    await service.end(5, ALICE)
    assert outbox.results == []
    await service.close()


async def test_a_players_offer_is_taken_by_one_press(db: Database) -> None:
    """Compare and set in the database: of two presses, one takes the offer."""
    service, _outbox = await running(db, finishing(6))
    gid = service.sessions[6].game_id
    await play_out(service, 6)
    assert await db.use_rematch(GUILD, gid)
    assert not await db.use_rematch(GUILD, gid)
    assert await db.use_rematch(GUILD, gid, used=False)
    assert not await db.use_rematch(GUILD, "nosuchgame")
    await service.close()


async def test_end_asks_first_and_only_a_host_confirms_in_time(db: Database) -> None:
    service, outbox = await running(db, finishing(7))
    session = service.sessions[7]
    with pytest.raises(Refusal, match="Only the host or a member with Manage Server"):
        await service.ask_end(7, BOB)
    now = time.time()
    asked, until = await service.ask_end(7, ALICE, now=now)
    assert asked is session and until == int((now + END_QUESTION) * 1000)
    assert service.sessions[7] is session, "asking ends nothing"
    with pytest.raises(Refusal, match="Only the host or a member with Manage Server"):
        service.answer_end(7, BOB, session.game_id, until, now=now + 1)
    with pytest.raises(Refusal, match="expired"):
        service.answer_end(7, ALICE, session.game_id, until, now=until / 1000 + 0.5)
    with pytest.raises(Refusal, match="That game has ended"):
        service.answer_end(7, ALICE, "0ther", until, now=now + 1)
    assert service.sessions[7] is session and saved_state(db, 7) is not None
    admin = Actor("999", "Mod", admin=True)
    assert service.answer_end(7, admin, session.game_id, until, now=now + 29) is session
    await service.end(7, admin, question=until)
    assert 7 not in service.sessions and saved_state(db, 7) is None
    assert outbox.results == [], "an ended game has no result"
    await service.close()


async def test_cancel_is_final_for_its_question(db: Database) -> None:
    """Once the host cancels /uno end's question, a Confirm on it (a moderator's, within
    the 30 seconds, on the message or on the copy their client still shows) ends nothing
    and says the question was cancelled (issue 29: it ended the game); a new question
    replaces the one before it."""
    service, _outbox = await running(db, finishing(11))
    session = service.sessions[11]
    gid = session.game_id
    admin = Actor("999", "Mod", admin=True)
    _asked, first = await service.ask_end(11, ALICE)
    state = saved_state(db, 11)
    assert state is not None and state["end_asked"] == first, "the open question is saved"
    await service.cancel_end(11, ALICE, first)
    state = saved_state(db, 11)
    assert state is not None and state["end_asked"] is None
    assert service.answer_end(11, admin, gid, first) is session  # in time, the host's peer
    with pytest.raises(Refusal, match=r"^That question was cancelled: nothing was ended\.$"):
        await service.end(11, admin, question=first)
    with pytest.raises(Refusal, match="That question was cancelled"):
        await service.cancel_end(11, admin, first)
    assert service.sessions[11] is session and saved_state(db, 11) is not None

    # a new /uno end replaces the open question: the older one's buttons end nothing
    _asked, second = await service.ask_end(11, ALICE, now=time.time() + 1)
    _asked, third = await service.ask_end(11, admin, now=time.time() + 2)
    assert first < second < third
    with pytest.raises(Refusal, match="A newer /uno end question replaced that one"):
        await service.end(11, admin, question=second)
    assert service.sessions[11] is session
    # after a restart the open question is still the one that can be confirmed
    await service.close()
    service, _outbox = await running(db)
    with pytest.raises(Refusal, match="A newer /uno end question replaced that one"):
        await service.end(11, ALICE, question=second)
    await service.end(11, ALICE, question=third)
    assert 11 not in service.sessions and saved_state(db, 11) is None
    await service.close()


def test_a_game_saved_before_the_open_question_was_kept_has_none() -> None:
    session = finishing(12)
    d = json.loads(session.to_json())
    del d["end_asked"]
    assert Session.from_json(json.dumps(d)).end_asked is None
    session.end_asked = 123
    assert Session.from_json(session.to_json()).end_asked == 123


async def test_an_offer_that_cannot_be_kept_only_loses_the_button(db: Database) -> None:
    """The result is recorded first; if keeping the seats for Play again fails then, the
    result is shown all the same, without the button."""
    service, outbox = await running(db, finishing(8))
    session = service.sessions[8]

    async def refused_write(game: object) -> None:
        raise OSError("disk full")

    service.store.save_rematch = refused_write  # type: ignore[method-assign]
    await play_out(service, 8)
    assert outbox.results == [session]
    model = ResultModel.of(session)
    assert model is not None and not model.again
    assert rows(db, "SELECT COUNT(*) FROM game_results WHERE game_id = ?",
                session.game_id) == [(1,)]
    await service.close()
