"""Computer players' levels in the table service: saved with the seat (older games read as
normal), chosen in the lobby, and the hard player's search made in a worker process within
a bounded number at once (cogs/uno/table/thinking.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path

import pytest

from cogs.uno.table import thinking
from cogs.uno.table.scheduler import Scheduler
from cogs.uno.table.service import TableService
from cogs.uno.table.session import SavedFormatError, Session
from cogs.uno.table.thinking import Thinkers
from data import Database
from engine import Card, Game
from engine.players import HeuristicPlayer, seat_view
from support.service import ALICE, GUILD, RecordingOutbox, until

FIXTURES = Path(__file__).resolve().parents[1] / "support"


def test_computer_players_saved_before_the_levels_play_normal() -> None:
    old = json.loads((FIXTURES / "saved_sessions_v1.json").read_text())
    for key in ("lobby", "game"):
        session = Session.from_json(json.dumps(old[key]))
        cpus = [s for s in session.seats if s.cpu]
        assert cpus and all(s.level == "normal" for s in cpus)
        assert session.level("cpu1") == "normal" and session.level("111") is None


def test_a_level_is_saved_with_its_seat() -> None:
    session = Session(channel_id=1, guild_id=GUILD, host_id="111")
    session.add_cpu("hard")
    session.add_cpu("easy")
    again = Session.from_json(session.to_json())
    assert [(s.id, s.level) for s in again.seats] == [("cpu1", "hard"), ("cpu2", "easy")]
    damaged = json.loads(session.to_json())
    damaged["seats"][0][4] = "grandmaster"
    with pytest.raises(SavedFormatError, match="unknown level"):
        Session.from_json(json.dumps(damaged))


async def test_past_the_most_searches_at_once_a_hard_player_plays_normal(
        caplog: pytest.LogCaptureFixture) -> None:
    game = Game.new(["a", "b"], seed=1)
    game.start()
    view = seat_view(game, game.turn)
    full = Thinkers(workers=1, queue=0)
    caplog.set_level(logging.WARNING, "cogs.uno.table.thinking")
    assert await full.think(view, 1) is None
    assert await full.think(view, 2) is None
    assert full.fallbacks == 2
    said = [r for r in caplog.records if "searches are under way" in r.getMessage()]
    assert len(said) == 1, "the log says so once a minute, not every move"
    full.close()


async def test_a_search_runs_in_a_worker_process_and_stops_with_the_service() -> None:
    game = Game.new(["a", "b", "c"], seed=2)
    game.start()
    view = seat_view(game, game.turn)
    thinkers = Thinkers(workers=1)
    try:
        move = await thinkers.think(view, 5)
        assert move is not None and move in game.legal_moves(game.turn)
        assert thinkers.searched == 1 and thinkers.busy == 0
    finally:
        thinkers.close()
    assert await thinkers.think(view, 6) is None, "no search once closed"


async def test_a_hard_computer_player_plays_a_game_through_the_service(db: Database) -> None:
    service = TableService(db, RecordingOutbox(), Scheduler(), cpu_delay=0.01,
                           search_workers=1)
    try:
        await service.lobbies.open(31, GUILD, ALICE)
        await service.lobbies.add_cpu(31, ALICE, "hard")
        session = service.sessions[31]
        assert [s.level for s in session.seats if s.cpu] == ["hard"]
        await service.lobbies.start(31, ALICE)
        thinkers = service.autoplay.thinkers
        me = ALICE.id
        for _ in range(30):
            await until(lambda: session.game is None or session.game.is_over
                        or session.game.turn == me, "Alice's turn")
            game = session.game
            if game is None or game.is_over:
                break
            move = HeuristicPlayer(1).choose(game, me)
            assert move is not None
            await service.move(31, ALICE, lambda s, g, p, m=move: m)
            if thinkers.searched >= 2:
                break
        assert thinkers.searched >= 1, "the hard player's moves came from its search"
        assert session.notes_of == session.game_id
    finally:
        await service.close()


@pytest.mark.slow
async def test_searches_never_hold_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight hard players search at once (a busy bot): the event loop stays on time, since
    each search runs in a worker process; the same work on the loop would hold it for
    the whole budget of each search. (A budget of 80 ms here: a loaded test machine gives
    the worker little CPU, and the last search waits for the seven before it.)"""
    monkeypatch.setattr(thinking, "BUDGET", 0.08)
    def cards(codes: str) -> list[Card]:
        return [Card.parse(c) for c in codes.split()]

    game, _ = Game.from_setup(["bot", "ann", "cy"], seed=9,
                              hands={"bot": cards("R5 B7 G2 Y4 R+2 WG"), "ann": cards("G1 G3"),
                                     "cy": cards("B1 B5 Y2")},
                              discard=cards("R3"), turn="bot")
    view = seat_view(game, "bot")
    thinkers = Thinkers(workers=1, queue=8)
    loop = asyncio.get_running_loop()
    late: list[float] = []
    done = False

    async def tick() -> None:
        while not done:
            before = loop.time()
            await asyncio.sleep(0.01)
            late.append(loop.time() - before - 0.01)

    ticker = asyncio.create_task(tick())
    try:
        assert await thinkers.think(view, 0) is not None  # the worker is up
        late.clear()
        start = time.process_time()
        moves = await asyncio.gather(*(thinkers.think(view, s) for s in range(1, 9)))
        on_loop = time.process_time() - start
    finally:
        done = True
        await ticker
        thinkers.close()
    assert all(m is not None and m in game.legal_moves("bot") for m in moves)
    assert thinkers.searched == 9 and thinkers.fallbacks == 0
    late.sort()
    assert late and late[len(late) // 2] < 0.05, late[-5:]
    assert on_loop < 0.15, "the searches' CPU was spent in the worker, not here"


async def test_closing_the_pool_ends_every_search_quietly() -> None:
    """Closing (the bot stops) while searches run or wait: each ask ends with a move or
    None (play normal), none raises into the computer players' task; later asks get None."""
    game, _ = Game.from_setup(["a", "b"], seed=3,
                              hands={"a": [Card.parse(c) for c in ("R5", "B7", "WG")],
                                     "b": [Card.parse(c) for c in ("G1", "G3")]},
                              discard=[Card.parse("R3")], turn="a")
    view = seat_view(game, game.turn)
    thinkers = Thinkers(workers=1, queue=4)
    asks = [asyncio.create_task(thinkers.think(view, s)) for s in range(4)]
    await asyncio.sleep(0.05)
    thinkers.close()
    results = await asyncio.gather(*asks)
    assert all(m is None or m in game.legal_moves(game.turn) for m in results)
    assert thinkers.busy == 0
    assert await thinkers.think(view, 9) is None
