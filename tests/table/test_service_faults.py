"""The table service under slow and failing writes, a public game id, damaged records and
shutdown (from an independent review of the pipeline; each test failed before its fix).

The store below is the real database with one fault injected: its next save waits until
released and then fails (a lock timeout), or its next walkover fails.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, Literal

import discord
import pytest

from cogs.uno._movelog import replay_document
from cogs.uno._outbox import Outbox
from cogs.uno.show.table import TableModel, embed_buttons, table_embed
from cogs.uno.table.contracts import Refusal, SaveFailed
from cogs.uno.table.scheduler import Scheduler
from cogs.uno.table.service import TableService
from cogs.uno.table.session import Options
from data import Database, LogEntry, SavedGame
from engine import Card, ChooseColor, Color, Draw, Game, Pass, Play
from engine.replay import play_replay
from support.games import install, saved_state
from support.service import (
    ALICE,
    BOB,
    GUILD,
    PATIENCE,
    RecordingOutbox,
    make_service,
    running,
    scenario,
    until,
)


class FaultyStore:
    """The real database, with the next save held until released and then failed, or the
    next end of a game failed."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.hold_next_save = False
        self.held = asyncio.Event()
        self.release = asyncio.Event()
        self.fail_end = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)

    async def save_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        if self.hold_next_save:
            self.hold_next_save = False
            self.held.set()
            await self.release.wait()
            raise RuntimeError("database is locked")
        await self.db.save_game(game, log)

    async def end_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        if self.fail_end:
            self.fail_end -= 1
            raise RuntimeError("database is locked")
        await self.db.end_game(game, log)


def faulty(db: Database) -> tuple[TableService, FaultyStore]:
    store = FaultyStore(db)
    return TableService(store, RecordingOutbox(), Scheduler()), store  # type: ignore[arg-type]


async def test_the_public_game_id_does_not_give_away_the_deal(db: Database) -> None:
    """The id on the table and in every button is public; the seed of the deal is not."""
    service, _outbox = make_service(db)
    await service.lobbies.open(40, GUILD, ALICE)
    await service.lobbies.join(40, BOB)
    session = await service.lobbies.start(40, ALICE)
    game = session.game
    assert game is not None
    model = TableModel.of(session)
    assert model is not None
    gid = (table_embed(model).footer.text or "").rsplit("Game ", 1)[1]
    assert gid == session.game_id
    assert any(gid in str(getattr(i, "custom_id", "")) for i in embed_buttons(model).children)
    twin = Game.new([s.id for s in session.seats], edition=session.options.edition,
                    settings=session.options.engine_settings(), seed=int(gid, 16))
    twin.start()
    assert {p: twin.hand(p) for p in twin.players} != {p: game.hand(p) for p in game.players}
    entries = await db.game_log(GUILD, session.game_id)
    assert json.loads(entries[0].entry)["seed"] == session.seed, "the export can replay it"
    await service.close()


async def test_a_hand_read_during_a_save_shows_only_what_was_saved(db: Database) -> None:
    """Alice draws; while the save is slow (and then fails) she looks at her hand: she sees
    it as saved, not the card that goes back on top of the pile."""
    await install(db, scenario(41, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"},
                               discard="R9", draw="Y1 Y2 W+4", turn="111"))
    service, store = faulty(db)
    await service.restore()
    store.hold_next_save = True
    draw = asyncio.create_task(service.move(41, ALICE, lambda s, g, p: Draw(p)))
    await store.held.wait()
    session = service.sessions[41]

    async def look() -> int:
        async with service.reading(session):
            assert session.game is not None
            return len(session.game.hand("111"))

    looking = asyncio.create_task(look())
    await asyncio.sleep(0.05)
    assert not looking.done(), "a reader waits while a change is being saved"
    store.release.set()
    with pytest.raises(SaveFailed):
        await draw
    assert await looking == 2
    await service.close()


def _written(content: str | None, kw: dict[str, Any]) -> dict[str, Any]:
    """What a post or an edit shows: its content, its embed, a Components V2 table's texts."""
    embed = kw.get("embed")
    view = kw.get("view")
    texts = ([item.content for item in view.walk_children()
              if isinstance(item, discord.ui.TextDisplay)]
             if isinstance(view, discord.ui.LayoutView) else [])  # a Components V2 table
    return {"content": content, "embed": embed.to_dict() if embed else None, "texts": texts}


class _Channel:
    def __init__(self, posts: list[dict[str, Any]]) -> None:
        self.posts = posts

    async def send(self, content: str | None = None, **kw: Any) -> Any:
        self.posts.append(_written(content, kw))
        return type("Sent", (), {"id": 900 + len(self.posts)})()

    def get_partial_message(self, message_id: int) -> Any:
        posts = self.posts

        class _Message:
            async def edit(self, content: str | None = None, **kw: Any) -> Any:
                posts.append(_written(content, kw))  # an edit shows what it brings too
                return self
        return _Message()


class _Client:
    """Records what the outbox posts and edits (the outbox's unit test: no Discord here)."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []

    def get_partial_messageable(self, channel_id: int, guild_id: int | None = None) -> Any:
        return _Channel(self.posts)


class _WatchedLock(asyncio.Lock):
    """A session's lock that tells when someone waits for it while ``during`` is set."""

    def __init__(self, during: asyncio.Event) -> None:
        super().__init__()
        self.during = during
        self.waited = asyncio.Event()

    async def acquire(self) -> Literal[True]:
        if self.locked() and self.during.is_set():
            self.waited.set()
        return await super().acquire()


async def test_the_table_never_shows_a_move_that_was_not_saved(db: Database) -> None:
    """Alice's move is saved and announced; the table is written while Bob's move is being
    saved (and then fails): it shows Alice's card, never Bob's. The outbox composes the
    table from the model its announcement carried (taken once, from the change as saved),
    so it neither waits for the game's lock nor reads the change in progress.

    Each step waits for what it needs, not for a time (drawing the first table's picture
    took over a second on a loaded machine): the table restored at start-up is posted; the
    table after Alice's move is written while Bob's save is held; then everything queued is
    written (the outbox's close flushes it)."""
    await install(db, scenario(42, [ALICE, BOB], hands={"111": "R3 B4", "222": "R5 G6 G7"},
                               discard="R9", draw="Y1 Y2 Y3", turn="111"))
    store = FaultyStore(db)
    client = _Client()
    outbox = Outbox(client, time_scale=0.05)  # type: ignore[arg-type]
    service = TableService(store, outbox, Scheduler())  # type: ignore[arg-type]
    outbox.is_live = service.is_live
    await service.restore()
    session = service.sessions[42]
    lock = session.lock = _WatchedLock(during=store.held)
    await until(lambda: session.table_message_id is not None, "the restored table")
    client.posts.clear()
    await service.move(42, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    store.hold_next_save = True
    bob = asyncio.create_task(service.move(42, BOB, lambda s, g, p: Play(p, Card.parse("R5"))))
    await store.held.wait()
    # the table after Alice's move goes out while Bob's change waits for its save
    await until(lambda: client.posts, "the table after Alice's move")
    assert not lock.waited.is_set(), "the outbox waited for the game's lock"
    store.release.set()
    with pytest.raises(SaveFailed):
        await bob
    await service.close()
    await outbox.close(limit=PATIENCE)
    shown = [line for p in client.posts
             for line in "\n".join([(p["embed"] or {}).get("description", ""), *p["texts"]])
             .splitlines() if line.startswith("Top card")]
    assert shown and all("🟥 red 3" in line for line in shown), shown


async def test_an_undone_walkover_leaves_the_database_as_it_was(db: Database) -> None:
    """Alice removes Bob from a two-player game (a walkover, not counted; a player who
    leaves has a computer player keep their seat warm instead, R-BOT-WARM) and ending it
    fails: nothing of it is written, and the log still replays the game after the next
    moves."""
    service, store = faulty(db)
    await service.lobbies.open(43, GUILD, ALICE)
    await service.lobbies.join(43, BOB)
    session = await service.lobbies.start(43, ALICE)
    assert session.game is not None
    before = saved_state(db, 43)
    store.fail_end = 1
    leaver = BOB
    with pytest.raises(SaveFailed):
        await service.kick(43, ALICE, leaver.id, leaver.name)
    assert leaver.id in session.game.players, "undone in memory"
    assert saved_state(db, 43) == before, "and in the database"
    mover = ALICE if session.game.turn == ALICE.id else BOB
    if session.game.pending.name == "COLOR":  # a wild turned up first (random deal)
        await service.move(43, mover, lambda s, g, p: ChooseColor(p, Color.RED))
        mover = ALICE if session.game.turn == ALICE.id else BOB
    await service.move(43, mover, lambda s, g, p: Draw(p))
    if session.game.pending.name == "DRAWN":
        await service.move(43, mover, lambda s, g, p: Pass(p))
    entries = await db.game_log(GUILD, session.game_id)
    replayed, _lines = play_replay(replay_document(
        json.loads(entries[0].entry), [json.loads(e.entry) for e in entries[1:]]))
    assert replayed.to_dict() == session.game.to_dict()
    await service.kick(43, ALICE, leaver.id, leaver.name)
    assert 43 not in service.sessions and saved_state(db, 43) is None
    await service.close()


async def test_a_record_damaged_in_any_way_is_set_aside_and_the_others_restored(
        db: Database) -> None:
    good = scenario(44, [ALICE, BOB], hands={"111": "R3", "222": "G5"}, discard="R9",
                    draw="Y1", turn="111")
    bad = scenario(45, [ALICE, BOB], hands={"111": "R3", "222": "G5"}, discard="R9",
                   draw="Y1", turn="111")
    damaged = json.loads(bad.to_json())
    damaged["unseen"] = None
    await install(db, good)
    await db.save_game(SavedGame(45, GUILD, bad.game_id, json.dumps(damaged), 0))
    service, _outbox = make_service(db)
    assert await service.restore() == 1
    assert 44 in service.sessions
    assert [k.channel_id for k in await db.set_aside_games(GUILD)] == [45]
    await service.close()


async def test_a_game_saved_as_finished_is_recorded_at_start_up(db: Database) -> None:
    """The recording of a finished game was cut short (a crash): the next start records
    it instead of restoring a table where nothing can happen."""
    session = scenario(48, [ALICE, BOB], hands={"111": "R3", "222": "G5 G6"}, discard="R9",
                       draw="Y1 Y2", turn="111", options=Options(target=100),
                       scores={"111": 95})
    assert session.game is not None
    session.game.apply(Play("111", Card.parse("R3")))
    assert session.game.is_over
    await install(db, session)
    service, _outbox = make_service(db)
    assert await service.restore() == 1
    assert 48 not in service.sessions
    assert saved_state(db, 48) is None
    stats = await db.player_stats(GUILD, 111)
    assert stats is not None and stats.games_won == 1
    await service.close()


async def test_no_change_is_accepted_once_the_service_is_closing(db: Database) -> None:
    """A change accepted during shutdown would be saved but never announced."""
    service, _outbox = await running(db, scenario(
        46, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111"))
    await service.close()
    with pytest.raises(Refusal, match="restarting"):
        await service.move(46, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    with pytest.raises(Refusal, match="restarting"):
        await service.lobbies.open(49, GUILD, ALICE)
    state = saved_state(db, 46)
    assert state is not None and state["game"]["hands"]["111"] == ["R3", "B4"]


async def test_a_stop_saves_the_time_left_only_within_its_bound(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each save of the time left is slow (a loaded database): the stop gives up saving it
    past STOP_SAVES, so the process exits within the orchestrator's grace; the games past
    the bound keep what their last move saved."""
    sessions = [scenario(70 + i, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"},
                         discard="R9", draw="Y1 Y2", turn="111", options=Options(turn_timer=60))
                for i in range(4)]
    service, _outbox = await running(db, *sessions)
    before = {s.channel_id: saved_state(db, s.channel_id) for s in sessions}
    saves: list[int] = []
    real_save = db.save_game

    async def slow_save(game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        await asyncio.sleep(0.4)
        saves.append(game.channel_id)
        await real_save(game, log)

    monkeypatch.setattr(db, "save_game", slow_save)
    monkeypatch.setattr("cogs.uno.table.service.STOP_SAVES", 0.5)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await service.close()
    assert loop.time() - started < 1.5, "the stop stopped saving past its bound"
    assert 1 <= len(saves) < 4, saves
    for s in sessions:
        if s.channel_id not in saves:
            assert saved_state(db, s.channel_id) == before[s.channel_id]
