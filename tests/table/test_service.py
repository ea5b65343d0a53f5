"""The table service without Discord: a real SQLite file, a recording outbox.

Each test injects a fault into one step of the pipeline (a write that fails, a post that is
refused, a restart) and checks the answer is honest: saved and announced, or neither.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from cogs.uno._movelog import replay_document
from cogs.uno.table.contracts import Actor, Refusal, SaveFailed
from cogs.uno.table.session import SESSION_VERSION, Options, SavedFormatError, Session
from cogs.uno.table.tables import PING_AWAY
from data import Database, GameResult, LogEntry, PlayerResult, SavedGame
from engine import Card, ChooseColor, Color, Draw, Pass, Play
from engine.replay import play_replay
from support.games import install, saved_state
from support.service import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    make_service,
    running,
    scenario,
    until,
)

FIXTURES = Path(__file__).resolve().parents[1] / "support"


# ---------------------------------------------------------------- a failed save
async def test_a_move_that_cannot_be_saved_is_undone_and_refused(db: Database) -> None:
    service, outbox = await running(db, scenario(
        1, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111"))
    session = service.sessions[1]
    before_memory = json.loads(session.to_json(now=0))
    del before_memory["last_human"]  # a human tried to move: that counts as activity
    deadline = session.deadline
    before_saved = saved_state(db, 1)
    await db.set_read_only_for_tests(True)
    with pytest.raises(SaveFailed, match="nothing changed"):
        await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    assert service.sessions[1] is session, "the table stays"
    after_memory = json.loads(session.to_json(now=0))
    del after_memory["last_human"]
    assert after_memory == before_memory, "memory is back to before the move"
    assert session.deadline == deadline, "the turn timer runs on as it was"
    assert saved_state(db, 1) == before_saved
    assert outbox.announced == [], "nothing announced"
    await db.set_read_only_for_tests(False)
    moved = await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    assert [str(c) for c in moved.game.hand("111")] == ["B4"]
    state = saved_state(db, 1)
    assert state is not None and state["game"]["hands"]["111"] == ["B4"]
    assert "Alice plays 🟥 red 3." in outbox.text()
    await service.close()


async def test_a_saved_move_is_announced_even_if_its_answer_fails(db: Database) -> None:
    """The mover's answer is read under the move's lock after its save; if reading it
    fails (a bug), the move stays saved and is still announced, so the game goes on."""
    service, outbox = await running(db, scenario(
        11, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111"))

    def broken(moved: object) -> object:
        raise RuntimeError("a bug in the answer")

    moved = await service.move(11, ALICE, lambda s, g, p: Play(p, Card.parse("R3")),
                               then=broken)
    assert moved.shown is None
    state = saved_state(db, 11)
    assert state is not None and state["game"]["hands"]["111"] == ["B4"], "saved"
    assert any("Alice plays" in line for line in outbox.text().splitlines()), outbox.text()
    assert service.sessions[11].deadline is not None, "Bob's turn timer is armed"


async def test_a_failed_recording_keeps_the_game(db: Database) -> None:
    service, outbox = await running(db, scenario(
        2, [ALICE, BOB], hands={"111": "R3", "222": "G5 G6 G7"}, discard="R9", draw="Y1 Y2",
        turn="111", options=Options(target=100), scores={"111": 95}))
    await db.set_read_only_for_tests(True)
    with pytest.raises(SaveFailed):
        await service.move(2, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    session = service.sessions.get(2)
    assert session is not None and session.game is not None and not session.game.is_over
    assert [str(c) for c in session.game.hand("111")] == ["R3"], "one move before its end"
    assert await db.player_stats(GUILD, 111) is None
    assert outbox.announced == []
    await db.set_read_only_for_tests(False)
    moved = await service.move(2, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    assert moved.game.is_over
    assert 2 not in service.sessions, "a recorded game leaves memory"
    assert saved_state(db, 2) is None
    stats = await db.player_stats(GUILD, 111)
    assert stats is not None and stats.games_won == 1
    assert "wins round 1" in outbox.text() and outbox.results, "the round's lines, the result"
    await service.close()


async def test_a_computer_chain_survives_a_failed_save(
        db: Database, caplog: pytest.LogCaptureFixture) -> None:
    """One human and three computer players: a failed save of a computer's move is undone
    and tried again, and the chain goes on to the human's turn."""
    session = scenario(3, [ALICE, "cpu1", "cpu2", "cpu3"],
                       hands={"111": "B1 B2 B3", "cpu1": "R1 R2 R3", "cpu2": "R4 R5 R6",
                              "cpu3": "R7 R8 G9"},
                       discard="R9", draw="Y1 Y2 Y3 Y4 Y5 Y6", turn="cpu1")
    await install(db, session)
    await db.set_read_only_for_tests(True)
    service, _outbox = make_service(db, scale=0.05)
    await service.restore()
    await until(lambda: "A computer move in channel 3 was not saved" in caplog.text,
                "a computer move that could not be saved")
    live = service.sessions[3]
    assert live.game is not None and live.game.turn == "cpu1", "no move without a save"
    await db.set_read_only_for_tests(False)
    await until(lambda: live.game is not None and live.game.turn == "111", "the human's turn")
    state = saved_state(db, 3)
    assert state is not None and state["game"]["turn"] == "111"
    await service.close()


# ---------------------------------------------------------------- lobbies
async def test_two_new_lobbies_at_once_make_one(db: Database) -> None:
    service, _outbox = make_service(db)
    results = await asyncio.gather(service.lobbies.open(4, GUILD, ALICE),
                                   service.lobbies.open(4, GUILD, BOB), return_exceptions=True)
    lobbies = [r for r in results if isinstance(r, Session)]
    refusals = [r for r in results if isinstance(r, Refusal)]
    assert len(lobbies) == 1 and len(refusals) == 1, results
    assert "already open" in str(refusals[0])
    state = saved_state(db, 4)
    assert state is not None and state["game_id"] == lobbies[0].game_id


async def test_a_lobby_that_cannot_be_saved_leaves_no_ghost(db: Database) -> None:
    service, _outbox = make_service(db)
    await db.set_read_only_for_tests(True)
    with pytest.raises(SaveFailed):
        await service.lobbies.open(5, GUILD, ALICE)
    assert 5 not in service.sessions
    await db.set_read_only_for_tests(False)
    session = await service.lobbies.open(5, GUILD, BOB)
    assert session.host_id == BOB.id


async def test_new_and_start_need_the_bot_to_post(db: Database) -> None:
    service, _outbox = make_service(db)
    blind = Actor("111", "Alice", missing=("send_messages",))
    with pytest.raises(Refusal, match="Send Messages"):
        await service.lobbies.open(6, GUILD, blind)
    assert 6 not in service.sessions and saved_state(db, 6) is None
    await service.lobbies.open(6, GUILD, ALICE)
    await service.lobbies.join(6, BOB)
    with pytest.raises(Refusal, match="Embed Links"):
        await service.lobbies.start(6, Actor("111", "Alice", missing=("embed_links",)))
    assert service.sessions[6].game is None
    await service.lobbies.start(6, ALICE)
    assert service.sessions[6].game is not None
    await service.close()


# ---------------------------------------------------------------- a channel lost
async def test_a_refused_post_pauses_the_game_until_the_bot_can_post(db: Database) -> None:
    service, outbox = await running(db, scenario(
        7, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111", options=Options(turn_timer=10)))
    assert service.scheduler.running(7, "timer")
    await service.channel_lost(7, gone=False)
    session = service.sessions[7]
    assert session.paused and not service.scheduler.running(7, "timer")
    state = saved_state(db, 7)
    assert state is not None and state["paused"]
    blind = Actor("111", "Alice", missing=("send_messages",))
    with pytest.raises(Refusal, match="Send Messages"):
        await service.move(7, blind, lambda s, g, p: Draw(p))
    assert session.game is not None and session.game.turn == "111"
    await service.move(7, ALICE, lambda s, g, p: Draw(p))
    assert not session.paused and 7 in outbox.reopened
    assert "goes on" in outbox.text()
    assert service.scheduler.running(7, "timer")
    await service.close()


async def test_a_click_that_shows_a_permission_missing_pauses_at_once(db: Database) -> None:
    """An interaction shows the bot lacks Send Messages (issue 29: the game went on until a
    table write met the 403, seconds later): the game pauses at once, saved, its timer
    stopped, and the move is refused with what is missing; a read (My hand) pauses it the
    same way. Once an interaction shows the bot can post, the player to act has a full
    turn."""
    service, outbox = await running(db, scenario(
        9, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111", options=Options(turn_timer=10)))
    session = service.sessions[9]
    assert service.scheduler.running(9, "timer") and session.deadline is not None
    blind = Actor("111", "Alice", missing=("send_messages",))
    with pytest.raises(Refusal, match="Send Messages"):
        await service.move(9, blind, lambda s, g, p: Play(p, Card.parse("R3")))
    assert session.paused == "permissions" and not service.scheduler.running(9, "timer")
    state = saved_state(db, 9)
    assert state is not None and state["paused"] == "permissions"
    assert session.game is not None and session.game.top == Card.parse("R9"), "not played"
    assert outbox.announced == [], "nothing is posted"

    await service.check_pause(9, ALICE)  # My hand, the permission back: it goes on
    assert not session.paused and service.scheduler.running(9, "timer")
    assert session.deadline is not None and session.deadline - time.time() > 9.5, \
        "a full turn"
    with pytest.raises(Refusal, match="Send Messages"):
        await service.check_pause(9, Actor("222", "Bob", missing=("send_messages",)))
    assert session.paused == "permissions" and not service.scheduler.running(9, "timer")
    await service.close()


async def test_a_deleted_channel_ends_its_game(db: Database) -> None:
    service, _outbox = await running(db, scenario(
        8, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111"))
    await service.channel_lost(8, gone=True)
    assert 8 not in service.sessions
    assert saved_state(db, 8) is None
    assert not service.scheduler.running(8, "timer")


# ---------------------------------------------------------------- stale tables
async def test_a_draw_from_an_older_table_is_refused(db: Database) -> None:
    """Bob (his turn) and Carol press Draw on the same table: Bob draws, his turn ends, and
    Carol's press, made on the table before, is refused instead of counting on her turn."""
    service, _outbox = await running(db, scenario(
        9, [ALICE, BOB, CAROL], hands={"111": "R3 B4", "222": "G5 G6", "333": "B7 B8"},
        discard="R9", draw="Y1 Y2 Y3", turn="222"))
    shown = service.sessions[9].serial
    results = await asyncio.gather(
        service.move(9, BOB, lambda s, g, p: Draw(p), serial=shown),
        service.move(9, CAROL, lambda s, g, p: Draw(p), serial=shown),
        return_exceptions=True)
    assert not isinstance(results[0], BaseException)
    assert isinstance(results[1], Refusal) and "out of date" in str(results[1])
    game = service.sessions[9].game
    assert game is not None and len(game.hand("333")) == 2, "Carol drew nothing"
    assert len(game.hand("222")) == 3
    await service.close()


# ---------------------------------------------------------------- restarts
async def test_the_time_left_survives_a_restart_with_a_fair_grace(db: Database) -> None:
    session = scenario(10, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6"},
                       discard="R9", draw="Y1 Y2", turn="111", options=Options(turn_timer=90))
    long_left = scenario(11, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6"},
                         discard="R9", draw="Y1 Y2", turn="111", options=Options(turn_timer=90))
    saved_at = time.time() - 600  # saved ten minutes ago: the outage isn't the player's
    session.deadline, session.deadline_serial = saved_at + 5, session.serial
    long_left.deadline, long_left.deadline_serial = saved_at + 70, long_left.serial
    for s in (session, long_left):
        await db.save_game(SavedGame(s.channel_id, GUILD, s.game_id, s.to_json(now=saved_at),
                                     int(saved_at)))
    service, _outbox = make_service(db)
    start = time.time()
    await service.restore()
    short = service.sessions[10].deadline
    long = service.sessions[11].deadline
    assert short is not None and long is not None
    assert short - start >= 30 - 1, "at least the grace after a restart"
    assert 70 - 1 <= long - start <= 70 + 2, "the time that was left"
    await service.close()
    state = saved_state(db, 11)
    assert state is not None and 65 <= state["remaining"] <= 71, "kept again at shutdown"


async def test_games_saved_by_the_previous_release_are_upgraded(db: Database) -> None:
    old = json.loads((FIXTURES / "saved_sessions_v1.json").read_text())
    for key in ("lobby", "game"):
        record = old[key]
        assert record["version"] == 1
        await db.save_game(SavedGame(record["channel_id"], record["guild_id"],
                                     record["game_id"], json.dumps(record), 0))
    service, outbox = make_service(db)
    assert await service.restore() == 2
    lobby = service.sessions[old["lobby"]["channel_id"]]
    assert [s.name for s in lobby.seats] == ["Alice", "Bob", "CPU 1"]
    game_session = service.sessions[old["game"]["channel_id"]]
    assert game_session.game is not None and game_session.options.target == 200
    assert game_session.timeouts == {"111": 1}
    assert game_session.log_seq == -1, "an old game has no move log"
    assert "goes on" in outbox.text()
    # the computer player whose turn it was plays on
    await until(lambda: game_session.serial > 1, "the computer player's move")
    # (the serial moves before the move's save is written: wait for the row itself)
    await until(lambda: (saved_state(db, old["game"]["channel_id"]) or {}).get("version")
                == SESSION_VERSION, "the move saved in the current format")
    state = saved_state(db, old["game"]["channel_id"])
    assert state is not None and state["serial"] > 1
    await service.close()


async def test_an_unreadable_saved_game_is_set_aside_not_deleted(db: Database) -> None:
    damaged = '{"version": 1, "timeouts": []}'
    future = json.dumps({"version": SESSION_VERSION + 1})
    await db.save_game(SavedGame(12, GUILD, "abc", damaged, 0))
    await db.save_game(SavedGame(13, GUILD, "abd", future, 0))
    service, outbox = make_service(db)
    assert await service.restore() == 0
    kept = {k.channel_id: k for k in await db.set_aside_games(GUILD)}
    assert kept[12].state == damaged and kept[13].state == future
    assert "newer release" in kept[13].reason
    assert await db.load_games() == []
    assert {c for c, _lines in outbox.notices} == {12, 13}


def test_saved_format_errors_are_named() -> None:
    with pytest.raises(SavedFormatError, match="no version"):
        Session.from_json("{}")
    with pytest.raises(SavedFormatError, match="not JSON"):
        Session.from_json("{")


# ---------------------------------------------------------------- the move log
async def test_the_move_log_replays_the_game_exactly(db: Database) -> None:
    service, _outbox = make_service(db, cpu_delay=0.0)
    await service.lobbies.open(14, GUILD, ALICE)
    await service.lobbies.join(14, BOB)
    session = await service.lobbies.start(14, ALICE)
    game = session.game
    assert game is not None
    for _ in range(40):
        if game.is_over:
            break
        player = game.turn
        actor = ALICE if player == ALICE.id else BOB
        if game.pending.name == "COLOR":  # a wild turned up first (the deal is random)
            await service.move(14, actor, lambda s, g, p: ChooseColor(p, Color.RED))
        elif game.pending.name == "DRAWN":
            await service.move(14, actor, lambda s, g, p: Pass(p))
        else:
            await service.move(14, actor, lambda s, g, p: Draw(p))
    entries = await db.game_log(GUILD, session.game_id)
    header = json.loads(entries[0].entry)
    moves = [json.loads(e.entry) for e in entries[1:]]
    assert len(moves) == session.log_seq
    replayed, _lines = play_replay(replay_document(header, moves))
    assert replayed.to_dict() == game.to_dict()
    await service.close()


async def test_leaving_is_logged_and_replays(db: Database) -> None:
    service, _outbox = make_service(db)
    await service.lobbies.open(15, GUILD, ALICE)
    await service.lobbies.join(15, BOB)
    await service.lobbies.join(15, CAROL)
    session = await service.lobbies.start(15, ALICE)
    await service.leave(15, CAROL)  # a computer player keeps her seat warm (R-BOT-WARM)
    assert session.is_standing_in(CAROL.id)
    await service.leave(15, CAROL)  # leaving again gives the seat up
    entries = await db.game_log(GUILD, session.game_id)
    assert json.loads(entries[-1].entry) == {"player": CAROL.id, "leave": True}
    replayed, _lines = play_replay(replay_document(json.loads(entries[0].entry),
                                                   [json.loads(e.entry) for e in entries[1:]]))
    assert session.game is not None and replayed.to_dict() == session.game.to_dict()
    await service.close()


async def test_start_up_prunes_move_logs_older_than_thirty_days(db: Database) -> None:
    now = int(time.time())
    for game_id, age_days in (("aa01", 31), ("aa02", 29)):
        header = LogEntry(game_id=game_id, guild_id=GUILD, channel_id=16, seq=0,
                          entry="{}", created_at=now - age_days * 86400)
        await db.record_game(_result(game_id), [header])
    service, _outbox = make_service(db)
    await service.restore()
    assert await db.game_log(GUILD, "aa01") == []
    assert [e.seq for e in await db.game_log(GUILD, "aa02")] == [0]


def _result(game_id: str) -> GameResult:
    return GameResult(game_id=game_id, guild_id=GUILD, channel_id=16, edition="power-grab",
                      finished_at=int(time.time()), rounds=1,
                      players=(PlayerResult(user_id=111, score=10, won=True, rounds_won=1,
                                            towers_grabbed=0, best_round=10),))


# ---------------------------------------------------------------- mentions
async def test_a_turn_mentions_only_a_player_who_has_been_away(db: Database) -> None:
    """R-BOT-MENTION: a player who moved within PING_AWAY seconds is watching the table
    (it is edited in place) and is not mentioned; one who has been away is, once a turn.
    A first turn is not "away": everyone's clock starts with the game (issue 29, the
    panel stays in reach: each first turn used to post the table anew with a mention)."""
    service, outbox = await running(db, scenario(
        1, [ALICE, BOB], hands={"111": "R3 R4 B4", "222": "R5 R6 G7"}, discard="R9",
        draw="Y1 Y2 Y3", turn="111"))
    await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    assert outbox.announced[-1][3] is None, "Bob's first turn: his clock started now"
    await service.move(1, BOB, lambda s, g, p: Play(p, Card.parse("R5")))
    assert outbox.announced[-1][3] is None, "Alice moved a moment ago: no mention"
    await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R4")))
    assert outbox.announced[-1][3] is None, "Bob moved a moment ago: no mention"
    session = service.sessions[1]
    session.last_acted["111"] -= PING_AWAY  # as if Alice's move was PING_AWAY seconds ago
    await service.move(1, BOB, lambda s, g, p: Play(p, Card.parse("R6")))
    assert outbox.announced[-1][3] == "111", "Alice has been away: she is mentioned"


async def test_a_setting_changed_while_the_lobby_is_posted_is_shown_on_it(
        db: Database) -> None:
    """R-BOT-SAVE: the host changes a setting in the moment between the lobby's message
    being drawn and its id being saved: the message is brought up to date once the id is
    known (before, the change was saved but the lobby went on showing the old settings)."""
    service, outbox = make_service(db)
    session = await service.lobbies.open(62, GUILD, ALICE)
    shown = session.saved  # what the message posted for /uno new was drawn from
    await service.lobbies.configure(62, ALICE, {"mode": "partners"})
    assert 62 in outbox.lobbies  # asked, but no message id known yet: nothing edited
    outbox.lobbies.clear()
    await service.lobbies.set_message(session, lobby=9001, shown=shown)
    assert outbox.lobbies == [62], "the lobby message shows the change"
    outbox.lobbies.clear()
    await service.lobbies.set_message(session, lobby=9001, shown=session.saved)
    assert outbox.lobbies == [], "a lobby shown as saved is not edited again"
    await service.close()


async def test_six_partners_sit_across_and_a_match_survives_a_restart(db: Database) -> None:
    """Sheet 004, "Playing with Partners": six players are three teams of two, partners
    across the table (seat i with seat i + 3); chosen teams are kept, the others dealt. A
    rotating partners match is saved whole (its schedule, results and current hand)."""
    service, _outbox = make_service(db)
    people = [Actor(str(100 + i), f"P{i}") for i in range(6)]
    await service.lobbies.open(60, GUILD, people[0])
    await service.lobbies.configure(60, people[0], {"mode": "partners"})
    await service.lobbies.choose_team(60, people[0], 2)
    await service.lobbies.choose_team(60, people[1], 2)
    for p in people[2:]:
        await service.lobbies.join(60, p)
    before = saved_state(db, 60)
    with pytest.raises(Refusal, match="Team 3 is full"):
        await service.lobbies.choose_team(60, people[2], 2)
    assert saved_state(db, 60) == before
    session = await service.lobbies.start(60, people[0])
    game = session.game
    assert game is not None and len(game.teams) == 3
    assert {people[0].id, people[1].id} in [set(t) for t in game.teams]
    for team in game.teams:
        a, b = (game.players.index(p) for p in team)
        assert abs(a - b) == 3, (game.players, team)
    restored = Session.from_json(session.to_json())
    assert restored.game is not None and restored.game.teams == game.teams

    await service.lobbies.open(61, GUILD, people[0])
    await service.lobbies.configure(61, people[0], {"mode": "rotating"})
    for p in people[1:4]:
        await service.lobbies.join(61, p)
    match_session = await service.lobbies.start(61, people[0])
    assert match_session.match is not None and match_session.game is not None
    copy = Session.from_json(match_session.to_json())
    assert copy.match is not None
    assert copy.match.to_dict() == match_session.match.to_dict()
    assert copy.game is not None and copy.game.to_dict() == match_session.game.to_dict()
    assert copy.game.max_rounds == 1 and copy.game.teams == match_session.game.teams
    await service.close()
