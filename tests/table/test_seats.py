"""Seats while a game runs (issue 31; RULES.md R-BOT-JOIN, R-BOT-WARM, R-BOT-WARM-RECORD and
the engine's R-JOIN-NEXT, R-JOIN-SCORE, R-JOIN-FIXED: our own rulings, the sheets being
silent): the table service on a real SQLite file, a recording outbox, restarts included."""

from __future__ import annotations

import pytest

from cogs.uno.show.hand import hand_menu
from cogs.uno.show.table import TableModel
from cogs.uno.table.contracts import Actor, Refusal
from cogs.uno.table.seats import fixed_seats
from cogs.uno.table.session import Options
from data import Database
from engine import Card, Draw, Play, Tower
from support.games import saved_state
from support.service import ALICE, BOB, CAROL, GUILD, make_service, running, scenario, until

DAN = Actor("444", "Dan")


def play(code: str):  # type: ignore[no-untyped-def]
    return lambda s, g, p: Play(p, Card.parse(code))


async def restarted(db: Database, *, scale: float = 1.0):  # type: ignore[no-untyped-def]
    """A new table service over the same file (the bot restarted)."""
    return await running(db, scale=scale)


async def test_a_seat_asked_for_survives_a_restart_and_is_taken_at_the_next_round(
        db: Database) -> None:
    """R-BOT-JOIN, R-JOIN-NEXT, R-JOIN-SCORE: Carol asks while Alice and Bob play; the
    table lists her; a restart keeps her waiting; she can't act before the deal; when
    Alice goes out, the next round seats her at the lowest score at the table."""
    s = scenario(60, [ALICE, BOB], hands={ALICE.id: "R1", BOB.id: "B7 B8"}, discard="R7",
                 draw="R9 B9 G9 Y9", turn=ALICE, scores={ALICE.id: 30, BOB.id: 12})
    service, outbox = await running(db, s)
    await service.seats.ask(60, CAROL)
    assert "🪑 Carol asks for a seat: they sit down when the next round is dealt." \
        in outbox.text()
    state = saved_state(db, 60)
    assert state is not None and state["game"]["waiting"] == [CAROL.id]
    model = TableModel.of(service.sessions[60])
    assert model is not None and "**Waiting for the next round**\nCarol" in model.text()
    with pytest.raises(Refusal, match="already waiting"):
        await service.seats.ask(60, CAROL)
    await service.close()

    service, outbox = await restarted(db)
    session = service.sessions[60]
    game = session.game
    assert game is not None and game.waiting == (CAROL.id,)
    with pytest.raises(Refusal, match="not playing"):
        await service.move(60, CAROL, lambda s, g, p: Draw(p))
    await service.move(60, ALICE, play("R1"))
    game = session.game
    assert game is not None and game.players == [ALICE.id, BOB.id, CAROL.id]
    # Alice scored Bob's 15 points (45); Bob's 12 is the lowest score at the table
    assert game.scores == {ALICE.id: 45, BOB.id: 12, CAROL.id: 12}
    assert len(game.hand(CAROL.id)) == 7
    assert "🪑 Carol sits down at the table with 12 points." in outbox.text()
    await service.close()


async def test_the_host_refuses_a_seat_and_others_may_not(db: Database) -> None:
    """R-BOT-JOIN: only the host (or Manage Server) turns a request down, with /uno kick;
    someone who asked can withdraw by leaving."""
    s = scenario(61, [ALICE, BOB], hands={ALICE.id: "R1 R2", BOB.id: "B7 B8"},
                 discard="R7", turn=ALICE)
    service, outbox = await running(db, s)
    await service.seats.ask(61, CAROL)
    with pytest.raises(Refusal, match="Only the host or a member with Manage Server"):
        await service.kick(61, BOB, CAROL.id, "Carol")
    game = service.sessions[61].game
    assert game is not None and game.waiting == (CAROL.id,)
    await service.kick(61, ALICE, CAROL.id, "Carol")
    assert game.waiting == ()
    assert "Alice turned down Carol's request for a seat." in outbox.text()
    state = saved_state(db, 61)
    assert state is not None and state["game"]["waiting"] == []
    await service.seats.ask(61, CAROL)
    await service.leave(61, CAROL)
    assert game.waiting == () and "Carol no longer waits for a seat." in outbox.text()
    assert [s.id for s in service.sessions[61].seats] == [ALICE.id, BOB.id]
    await service.close()


async def test_partner_games_and_tournaments_keep_their_seats(db: Database) -> None:
    """R-JOIN-FIXED: asking for a seat in a partner game (or a rotating match, or a
    tournament) is refused in one sentence, and changes nothing."""
    service, _outbox = make_service(db)
    await service.lobbies.open(62, GUILD, ALICE)
    await service.lobbies.configure(62, ALICE, {"mode": "partners"})
    await service.lobbies.join(62, BOB)
    await service.lobbies.join(62, CAROL)
    await service.lobbies.join(62, DAN)
    session = await service.lobbies.start(62, ALICE)
    before = saved_state(db, 62)
    with pytest.raises(Refusal, match=r"^A partner game keeps its seats to the end: wait for "
                                      r"the next one\.$"):
        await service.seats.ask(62, Actor("555", "Eve"))
    assert saved_state(db, 62) == before
    session.tables = [1, 2]  # (a tournament's standings)
    refusal = fixed_seats(session)
    assert refusal is not None and refusal.msgid.startswith("A tournament keeps its seats")
    await service.close()


async def test_a_leavers_seat_is_kept_warm_then_taken_back_across_a_restart(
        db: Database) -> None:
    """R-BOT-WARM: Bob leaves: a computer player keeps his hand and towers and plays his
    turns, marked on the table; his own clicks are refused meanwhile; the warm seat
    survives a restart; Back to my seat gives it back to him."""
    s = scenario(63, [ALICE, BOB, "cpu1"],
                 hands={ALICE.id: "R1 R2 G5", BOB.id: "B7 B8 Y3 R4", "cpu1": "G1 G2 G3 R5"},
                 towers={Tower.U: BOB}, discard="R7", draw="R9 B9 G9 Y9 G8 Y8", turn=ALICE)
    service, outbox = await running(db, s)
    session = service.sessions[63]
    game = session.game
    assert game is not None
    held = sorted(game.hand(BOB.id))
    await service.leave(63, BOB)
    assert session.is_standing_in(BOB.id) and BOB.id in game.players
    assert sorted(game.hand(BOB.id)) == held and game.towers_of(BOB.id) == [Tower.U]
    assert "🤖 Bob left: a computer player keeps their seat warm (/uno join takes it back)." \
        in outbox.text()
    model = TableModel.of(session)
    assert model is not None and "**Bob** 🤖 for Bob" in model.text() and model.warm
    text, view = hand_menu(session, game, BOB.id, "fr")
    assert "Un ordinateur garde votre place au chaud" in text
    assert view is not None and "Reprendre ma place" in [
        getattr(getattr(i, "item", i), "label", None) for i in view.children]
    session.options.language = "fr"
    french = TableModel.of(session)
    assert french is not None and "**Bob** 🤖 pour Bob" in french.text()
    session.options.language = "en"
    state = saved_state(db, 63)
    assert state is not None and state["stand_ins"] == [BOB.id]
    await service.move(63, ALICE, play("R2"))
    await until(lambda: session.game is not None and session.game.turn == ALICE.id,
                "the computer players to play Bob's turn and their own")
    assert sorted(game.hand(BOB.id)) != held, "a computer player played Bob's turn"
    with pytest.raises(Refusal, match="A computer player keeps your seat warm"):
        await service.move(63, BOB, lambda s, g, p: Draw(p))
    await service.close()

    service, outbox = await restarted(db)
    session = service.sessions[63]
    assert session.is_standing_in(BOB.id)
    with pytest.raises(Refusal, match="not playing"):
        await service.seats.back(63, CAROL)
    await service.seats.back(63, BOB)
    assert not session.is_standing_in(BOB.id)
    assert "Bob is back and takes their seat again." in outbox.text()
    state = saved_state(db, 63)
    assert state is not None and state["stand_ins"] == []
    with pytest.raises(Refusal, match="Your seat is yours already"):
        await service.seats.back(63, BOB)
    await service.close()


async def test_the_last_person_to_leave_still_ends_the_game(db: Database) -> None:
    """R-BOT-WARM: a seat is kept warm only while another person plays on as themselves;
    Alice, alone with computer players and Bob's warm seat, ends the game by leaving."""
    s = scenario(64, [ALICE, BOB, "cpu1"],
                 hands={ALICE.id: "R1 R2", BOB.id: "B7 B8", "cpu1": "G1 G2"},
                 discard="R7", turn=ALICE)
    service, outbox = await running(db, s)
    await service.leave(64, BOB)
    assert service.sessions[64].host_id == ALICE.id
    await service.leave(64, ALICE)
    assert 64 not in service.sessions and saved_state(db, 64) is None
    assert "No human players are left: the game ends." in outbox.text()
    await service.close()


async def test_a_host_who_leaves_hands_the_game_on(db: Database) -> None:
    """R-BOT-SEATS, R-BOT-WARM: the host's seat is kept warm and the next person hosts."""
    s = scenario(65, [ALICE, BOB], hands={ALICE.id: "R1 R2", BOB.id: "B7 B8"},
                 discard="R7", turn=BOB)
    service, outbox = await running(db, s)
    await service.leave(65, ALICE)
    session = service.sessions[65]
    assert session.is_standing_in(ALICE.id) and session.host_id == BOB.id
    assert "Bob is the host now." in outbox.text()
    await service.close()


async def test_a_warm_seat_given_up_or_taken_away_is_nobodys(db: Database) -> None:
    """R-BOT-WARM, R-LEAVE: the host removing a player whose seat is kept warm takes the
    seat away for good (the computer player goes with it); that person may ask for a seat
    at the next round again."""
    s = scenario(68, [ALICE, BOB, CAROL],
                 hands={ALICE.id: "R1 R2", BOB.id: "B7 B8", CAROL.id: "G1 G2"},
                 discard="R7", turn=ALICE)
    service, _outbox = await running(db, s)
    session = service.sessions[68]
    await service.leave(68, BOB)
    await service.kick(68, ALICE, BOB.id, "Bob")
    assert session.game is not None and BOB.id not in session.game.players
    assert session.stand_ins == []
    await service.seats.ask(68, BOB)
    assert session.game.waiting == (BOB.id,)
    await service.close()


async def test_missed_turns_hand_the_seat_to_a_computer_player(db: Database) -> None:
    """R-BOT-WARM: after the game's missed_turns timeouts in a row (the server's setting)
    a computer player keeps the seat warm, instead of the player leaving."""
    s = scenario(66, [ALICE, BOB, "cpu1"],
                 hands={ALICE.id: "R1 R2 R3", BOB.id: "G7 G8 Y3", "cpu1": "G1 G2 G3"},
                 discard="B7", draw="B1 B2 B3 B4 Y1 Y2 Y4 Y5 Y6 Y7", turn=BOB,
                 options=Options(turn_timer=10, missed_turns=2))
    service, outbox = await running(db, s, scale=0.005)
    session = service.sessions[66]
    await until(lambda: session.is_standing_in(BOB.id), "Bob's seat kept warm")
    lines = outbox.text().splitlines()
    warm = next(i for i, line in enumerate(lines) if "🤖 Bob missed their turn too often" in line)
    assert sum("⏰ Bob ran out of time." in line for line in lines[:warm + 1]) == 2
    assert BOB.id not in session.humans()
    await service.close()


async def test_only_who_finished_as_themselves_is_recorded(db: Database) -> None:
    """R-BOT-WARM-RECORD: the game counts on the leaderboard for a person seated as
    themselves at its end: Bob, whose seat was kept warm to the end, is not recorded;
    Carol, who took hers back, is."""
    s = scenario(67, [ALICE, BOB, CAROL],
                 hands={ALICE.id: "R1", BOB.id: "B7 B8", CAROL.id: "G7"},
                 discard="R7", turn=ALICE, scores={ALICE.id: 495},
                 options=Options(target=500))
    service, _outbox = await running(db, s)
    await service.leave(67, BOB)
    await service.leave(67, CAROL)  # Alice plays on as herself: Carol's seat too is kept
    await service.seats.back(67, CAROL)
    await service.move(67, ALICE, play("R1"))
    assert 67 not in service.sessions  # over and recorded
    alice = await db.player_stats(GUILD, int(ALICE.id))
    assert alice is not None and alice.games_won == 1
    carol = await db.player_stats(GUILD, int(CAROL.id))
    assert carol is not None and carol.games_played == 1
    assert await db.player_stats(GUILD, int(BOB.id)) is None
    await service.close()
