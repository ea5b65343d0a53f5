"""The move log (save_game/record_game with log entries, game_log, latest_game_id, prune_logs)
and set-aside games: one transaction, idempotent, guild-filtered, nothing lost."""

from __future__ import annotations

import json
import time

import pytest

from data import (
    Database,
    DatabaseWriteError,
    GameResult,
    LogEntry,
    PlayerResult,
    SavedGame,
    SetAsideGame,
)
from support.data import REJECTED, count_rows, opened

GUILD_A = 111
GUILD_B = 222
CHANNEL = 5


def entry(
    seq: int,
    game_id: str = "g1",
    guild_id: int = GUILD_A,
    channel_id: int = CHANNEL,
    at: int | None = None,
) -> LogEntry:
    text = json.dumps({"seq": seq, "move": "play R7" if seq else "start", "é": "ü"})
    return LogEntry(game_id, guild_id, channel_id, seq, text, 1000 + seq if at is None else at)


def saved(
    game_id: str = "g1",
    guild_id: int = GUILD_A,
    channel_id: int = CHANNEL,
    state: str = '{"turn": 1}',
    at: int = 1,
) -> SavedGame:
    return SavedGame(channel_id, guild_id, game_id, state, at)


def result(game_id: str = "g1", guild_id: int = GUILD_A, channel_id: int = CHANNEL) -> GameResult:
    players = (PlayerResult(1, 100, True, 2, 1, 60), PlayerResult(2, 10, False, 0, 0, 10))
    return GameResult(game_id, guild_id, channel_id, "power-grab", 2000, 2, players)


def broken_entry(seq: int) -> LogEntry:
    """An entry that passes Python (validation bypassed) and fails in the database."""
    bad = entry(seq)
    object.__setattr__(bad, "seq", -1)  # violates CHECK (seq >= 0)
    return bad


# --- save_game with a log ---------------------------------------------------------------


async def test_save_game_writes_snapshot_and_log_and_they_survive_reopen(db_path: str) -> None:
    entries = [entry(0), entry(1), entry(2)]
    async with opened(db_path) as db:
        await db.save_game(saved(), entries[:1])
        await db.save_game(saved(state='{"turn": 2}', at=2), entries[1:])
    async with opened(db_path) as db:
        assert await db.load_game(CHANNEL) == saved(state='{"turn": 2}', at=2)
        assert await db.game_log(GUILD_A, "g1") == entries


async def test_save_game_without_a_log_works_as_before(db: Database, db_path: str) -> None:
    await db.save_game(saved())
    assert await db.load_game(CHANNEL) == saved()
    assert count_rows(db_path, "game_log") == 0


async def test_saving_the_same_entries_again_stores_them_once(db: Database,
                                                              db_path: str) -> None:
    await db.save_game(saved(), [entry(0), entry(1)])
    await db.save_game(saved(), [entry(0), entry(1)])  # a retry after a lost reply
    assert await db.game_log(GUILD_A, "g1") == [entry(0), entry(1)]
    # seq 1 written again with other text (a move made in place of one undone): it is the
    # latest, and replaces the entry, as the snapshot saved with it replaces the last one
    other = LogEntry("g1", GUILD_A, CHANNEL, 1, '{"other": true}', 5)
    await db.save_game(saved(at=3), [entry(0), other, entry(2)])
    assert await db.game_log(GUILD_A, "g1") == [entry(0), other, entry(2)]
    assert count_rows(db_path, "game_log") == 3
    assert (await db.load_game(CHANNEL)) == saved(at=3)


async def test_a_log_insert_failing_mid_way_writes_nothing(db: Database, db_path: str) -> None:
    await db.save_game(saved(), [entry(0)])
    with pytest.raises(DatabaseWriteError) as info:
        # The snapshot and entries 1 and 2 are written before the broken one fails.
        await db.save_game(saved(state='{"turn": 9}', at=9), [entry(1), entry(2), broken_entry(3)])
    assert isinstance(info.value.__cause__, REJECTED)
    assert await db.load_game(CHANNEL) == saved()
    assert await db.game_log(GUILD_A, "g1") == [entry(0)]
    assert count_rows(db_path, "game_log") == 1
    # The connection is usable afterwards and the same save goes through once fixed.
    await db.save_game(saved(state='{"turn": 9}', at=9), [entry(1), entry(2), entry(3)])
    assert [e.seq for e in await db.game_log(GUILD_A, "g1")] == [0, 1, 2, 3]


async def test_log_entries_of_another_game_are_refused_before_writing(
    db: Database, db_path: str
) -> None:
    for stranger in (
        entry(1, guild_id=GUILD_B),
        entry(1, channel_id=CHANNEL + 1),
    ):
        with pytest.raises(ValueError, match="belongs to game"):
            await db.save_game(saved(), [entry(0), stranger])
        with pytest.raises(ValueError, match="belongs to game"):
            await db.record_game(result(), [stranger])
    with pytest.raises(ValueError, match="belongs to game"):
        await db.record_game(result(), [entry(1, game_id="g2")])
    assert await db.load_game(CHANNEL) is None
    assert count_rows(db_path, "game_log") == 0
    assert count_rows(db_path, "game_results") == 0


async def test_a_match_hand_is_logged_with_the_next_hands_start(db: Database) -> None:
    """A rotating-partners match deals each hand as a new game of the channel: the last
    moves of the hand that ended and the next hand's header go in one save."""
    await db.save_game(saved(), [entry(0), entry(1)])
    nxt = entry(0, game_id="g2")
    await db.save_game(saved(game_id="g2"), [entry(2), nxt])
    assert [e.seq for e in await db.game_log(GUILD_A, "g1")] == [0, 1, 2]
    assert await db.game_log(GUILD_A, "g2") == [nxt]
    loaded = await db.load_game(CHANNEL)
    assert loaded is not None and loaded.game_id == "g2"


def test_log_entry_validation() -> None:
    with pytest.raises(ValueError, match="seq"):
        LogEntry("g", 1, 1, -1, "{}", 0)
    with pytest.raises(ValueError, match="game_id"):
        LogEntry("", 1, 1, 0, "{}", 0)
    with pytest.raises(ValueError, match="entry"):
        LogEntry("g", 1, 1, 0, {"a": 1}, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="guild_id"):
        LogEntry("g", True, 1, 0, "{}", 0)


# --- record_game with a log -------------------------------------------------------------


async def test_record_game_writes_the_log_in_its_transaction(db: Database, db_path: str) -> None:
    await db.save_game(saved(), [entry(0), entry(1)])
    assert await db.record_game(result(), [entry(1), entry(2), entry(3)]) is True
    assert [e.seq for e in await db.game_log(GUILD_A, "g1")] == [0, 1, 2, 3]
    assert await db.load_game(CHANNEL) is None
    assert count_rows(db_path, "game_results") == 1


async def test_record_game_already_recorded_writes_no_log(db: Database, db_path: str) -> None:
    assert await db.record_game(result(), [entry(0), entry(1)])
    assert await db.record_game(result(), [entry(0), entry(1), entry(2)]) is False
    assert [e.seq for e in await db.game_log(GUILD_A, "g1")] == [0, 1]
    assert count_rows(db_path, "game_players") == 2


async def test_record_game_failing_in_the_log_writes_nothing(db: Database, db_path: str) -> None:
    await db.save_game(saved(), [entry(0)])
    with pytest.raises(DatabaseWriteError):
        await db.record_game(result(), [entry(1), broken_entry(2)])
    assert count_rows(db_path, "game_results") == 0
    assert count_rows(db_path, "game_players") == 0
    assert count_rows(db_path, "player_stats") == 0
    assert await db.game_log(GUILD_A, "g1") == [entry(0)]
    assert await db.load_game(CHANNEL) == saved()
    # The game id is not burnt.
    assert await db.record_game(result(), [entry(1), entry(2)]) is True
    assert await db.leaderboard_size(GUILD_A) == 2


# --- game_log ---------------------------------------------------------------------------


async def test_game_log_is_ordered_by_seq_whatever_the_insert_order(db: Database) -> None:
    await db.save_game(saved(), [entry(3), entry(0), entry(10), entry(1)])
    assert [e.seq for e in await db.game_log(GUILD_A, "g1")] == [0, 1, 3, 10]


async def test_game_log_last_gives_the_header_and_the_newest_moves(db: Database) -> None:
    entries = [entry(seq) for seq in range(8)]
    await db.save_game(saved(), entries)
    assert await db.game_log(GUILD_A, "g1", last=3) == [entries[0], *entries[5:]]
    assert await db.game_log(GUILD_A, "g1", last=0) == [entries[0]]
    assert await db.game_log(GUILD_A, "g1", last=7) == entries
    assert await db.game_log(GUILD_A, "g1", last=100) == entries
    assert await db.game_log(GUILD_A, "g1") == entries


async def test_game_log_last_without_a_header(db: Database) -> None:
    await db.save_game(saved(), [entry(1), entry(2), entry(3)])
    assert [e.seq for e in await db.game_log(GUILD_A, "g1", last=2)] == [2, 3]


@pytest.mark.parametrize("last", [-1, True, 1.5, "3"])
async def test_game_log_rejects_a_bad_last(db: Database, last: object) -> None:
    with pytest.raises(ValueError, match="last"):
        await db.game_log(GUILD_A, "g1", last=last)  # type: ignore[arg-type]


async def test_game_log_of_an_unknown_game_is_empty(db: Database) -> None:
    assert await db.game_log(GUILD_A, "nope") == []
    assert await db.game_log(GUILD_A, "nope", last=5) == []


async def test_game_log_never_shows_another_guild_s_game(db: Database) -> None:
    await db.save_game(saved(), [entry(0), entry(1)])
    await db.save_game(
        saved("b1", guild_id=GUILD_B, channel_id=9),
        [entry(0, "b1", GUILD_B, 9), entry(1, "b1", GUILD_B, 9)],
    )
    assert await db.game_log(GUILD_B, "g1") == []
    assert await db.game_log(GUILD_B, "g1", last=1) == []
    assert await db.game_log(GUILD_A, "b1") == []
    assert {e.guild_id for e in await db.game_log(GUILD_B, "b1")} == {GUILD_B}
    assert await db.latest_game_id(GUILD_B, CHANNEL) is None
    assert await db.latest_game_id(GUILD_A, 9) is None


# --- latest_game_id ---------------------------------------------------------------------


async def test_latest_game_id_is_the_newest_header_of_the_channel(db: Database) -> None:
    assert await db.latest_game_id(GUILD_A, CHANNEL) is None
    await db.save_game(saved("old"), [entry(0, "old", at=100), entry(1, "old", at=500)])
    await db.save_game(saved("new"), [entry(0, "new", at=200)])
    await db.save_game(saved("other", channel_id=6), [entry(0, "other", channel_id=6, at=900)])
    # "old" has the newest entry overall, but its game started earlier.
    assert await db.latest_game_id(GUILD_A, CHANNEL) == "new"
    assert await db.latest_game_id(GUILD_A, 6) == "other"
    # A later game recorded in the channel takes over.
    await db.record_game(result("newest"), [entry(0, "newest", at=300)])
    assert await db.latest_game_id(GUILD_A, CHANNEL) == "newest"


async def test_latest_game_id_breaks_ties_by_game_id_not_insert_order(db_path: str) -> None:
    for order in (["a", "b"], ["b", "a"]):
        async with opened(db_path) as db:
            await db.prune_logs(older_than=10**12)
            for game_id in order:
                await db.save_game(saved(game_id), [entry(0, game_id, at=100)])
                await db.delete_game(CHANNEL)
            assert await db.latest_game_id(GUILD_A, CHANNEL) == "b"


async def test_latest_game_id_ignores_games_without_a_header(db: Database) -> None:
    await db.save_game(saved("headed"), [entry(0, "headed", at=100)])
    await db.save_game(saved("headless"), [entry(1, "headless", at=999)])
    assert await db.latest_game_id(GUILD_A, CHANNEL) == "headed"


# --- prune_logs -------------------------------------------------------------------------


async def test_prune_logs_keeps_recent_saved_and_set_aside_games(db: Database) -> None:
    # "done": old, finished -> pruned. "fresh": finished after the cut -> kept.
    await db.record_game(result("done"), [entry(0, "done", at=10), entry(1, "done", at=10)])
    await db.record_game(result("fresh"), [entry(0, "fresh", at=100), entry(1, "fresh", at=101)])
    # "running": old but still saved -> kept.
    await db.save_game(
        saved("running", channel_id=7),
        [entry(0, "running", channel_id=7, at=5), entry(1, "running", channel_id=7, at=6)],
    )
    # "aside": old, set aside -> kept with its game.
    await db.save_game(saved("aside", channel_id=8), [entry(0, "aside", channel_id=8, at=5)])
    assert await db.set_aside_game(8, "damaged")
    # "other guild": old, finished -> pruned too (the sweep is bot-wide).
    await db.record_game(
        result("b1", GUILD_B, 9), [entry(0, "b1", GUILD_B, 9, at=1), entry(1, "b1", GUILD_B, 9)]
    )

    assert await db.prune_logs(older_than=50) == 4
    assert await db.game_log(GUILD_A, "done") == []
    assert await db.game_log(GUILD_B, "b1") == []
    assert len(await db.game_log(GUILD_A, "fresh")) == 2
    assert len(await db.game_log(GUILD_A, "running")) == 2
    assert len(await db.game_log(GUILD_A, "aside")) == 1
    assert await db.prune_logs(older_than=50) == 0  # nothing left to prune: idempotent
    # The cut is strict: a header exactly at older_than stays.
    assert await db.prune_logs(older_than=100) == 0
    assert await db.prune_logs(older_than=101) == 2


async def test_prune_logs_leaves_headerless_rows(db: Database) -> None:
    await db.record_game(result("h"), [entry(1, "h", at=1), entry(2, "h", at=1)])
    assert await db.prune_logs(older_than=10**12) == 0
    assert len(await db.game_log(GUILD_A, "h")) == 2


# --- set-aside games --------------------------------------------------------------------


async def test_set_aside_moves_the_saved_game_and_keeps_its_state(db_path: str) -> None:
    state = json.dumps({"deck": ["R1"] * 50, "note": "damaged?"})
    async with opened(db_path) as db:
        await db.save_game(saved(state=state, at=7), [entry(0), entry(1)])
        await db.save_game(saved("other", channel_id=6))
        assert await db.set_aside_game(CHANNEL, "state failed to load", at=1234) is True
        assert await db.load_game(CHANNEL) is None
        assert await db.load_game(6) is not None
    async with opened(db_path) as db:
        kept = SetAsideGame(CHANNEL, GUILD_A, "g1", state, "state failed to load", 1234)
        assert await db.set_aside_games() == [kept]
        assert await db.set_aside_games(GUILD_A) == [kept]
        assert [e.seq for e in await db.game_log(GUILD_A, "g1")] == [0, 1]  # log kept too
        assert [g.channel_id for g in await db.load_games()] == [6]


async def test_set_aside_without_a_saved_game_is_false(db: Database, db_path: str) -> None:
    assert await db.set_aside_game(CHANNEL, "nothing there") is False
    assert await db.set_aside_games() == []
    assert count_rows(db_path, "set_aside_games") == 0


async def test_set_aside_uses_now_by_default(db: Database) -> None:
    before = int(time.time())
    await db.save_game(saved())
    assert await db.set_aside_game(CHANNEL, "r")
    (kept,) = await db.set_aside_games()
    assert before <= kept.set_aside_at <= int(time.time())


async def test_set_aside_games_are_never_deleted_by_other_calls(db: Database) -> None:
    await db.save_game(saved(), [entry(0, at=1)])
    assert await db.set_aside_game(CHANNEL, "first", at=10)
    # The channel goes on with a new game that is saved, recorded, deleted; logs pruned.
    await db.save_game(saved("g2"), [entry(0, "g2", at=2)])
    await db.record_game(result("g2"), [])
    await db.save_game(saved("g3"))
    await db.delete_game(CHANNEL)
    await db.prune_logs(older_than=10**12)
    assert [g.game_id for g in await db.set_aside_games()] == ["g1"]


async def test_setting_the_same_game_aside_again_keeps_the_newest(db: Database) -> None:
    await db.save_game(saved(state='{"v": 1}'))
    assert await db.set_aside_game(CHANNEL, "first", at=10)
    await db.save_game(saved(state='{"v": 2}'))
    assert await db.set_aside_game(CHANNEL, "second", at=20)
    assert await db.set_aside_games() == [
        SetAsideGame(CHANNEL, GUILD_A, "g1", '{"v": 2}', "second", 20)
    ]


async def test_set_aside_games_are_filtered_by_guild_and_ordered(db: Database) -> None:
    await db.save_game(saved("a1", channel_id=1))
    await db.save_game(saved("a2", channel_id=2))
    await db.save_game(saved("b1", guild_id=GUILD_B, channel_id=3))
    assert await db.set_aside_game(2, "r", at=5)
    assert await db.set_aside_game(3, "r", at=6)
    assert await db.set_aside_game(1, "r", at=7)
    assert [g.game_id for g in await db.set_aside_games()] == ["a2", "b1", "a1"]
    assert [g.game_id for g in await db.set_aside_games(GUILD_A)] == ["a2", "a1"]
    assert [g.game_id for g in await db.set_aside_games(GUILD_B)] == ["b1"]
    assert await db.set_aside_games(333) == []


async def test_set_aside_failing_changes_nothing(db: Database, db_path: str) -> None:
    await db.save_game(saved())
    await db.set_read_only_for_tests(True)
    with pytest.raises(DatabaseWriteError):
        await db.set_aside_game(CHANNEL, "r")
    await db.set_read_only_for_tests(False)
    assert await db.load_game(CHANNEL) == saved()
    assert count_rows(db_path, "set_aside_games") == 0


async def test_end_game_adds_the_log_and_deletes_that_game_in_one_transaction(
        db_path: str) -> None:
    async with opened(db_path) as db:
        game = SavedGame(channel_id=7, guild_id=1, game_id="g7", state="{}", updated_at=1)
        await db.save_game(game, [LogEntry("g7", 1, 7, 0, "{}", 1)])
        await db.set_read_only_for_tests(True)
        with pytest.raises(DatabaseWriteError):
            await db.end_game(game, [LogEntry("g7", 1, 7, 1, '{"a":1}', 2)])
        await db.set_read_only_for_tests(False)
        assert await db.load_game(7) is not None
        assert [e.seq for e in await db.game_log(1, "g7")] == [0], "nothing written"
        await db.end_game(game, [LogEntry("g7", 1, 7, 1, '{"a":1}', 2)])
        assert await db.load_game(7) is None
        assert [e.seq for e in await db.game_log(1, "g7")] == [0, 1]
        other = SavedGame(channel_id=7, guild_id=1, game_id="g8", state="{}", updated_at=3)
        await db.save_game(other)
        await db.end_game(game)
        assert await db.load_game(7) is not None, "a newer game in the channel stays"


async def test_save_games_writes_a_tournament_in_one_transaction(
    db: Database, db_path: str
) -> None:
    """A tournament's standings and its two tables are saved together, or not at all, and
    recording its result deletes all three."""
    games = [saved(game_id=f"t{c}", channel_id=c) for c in (CHANNEL, CHANNEL + 1, CHANNEL + 2)]
    log = [entry(0, game_id="t" + str(CHANNEL + 1), channel_id=CHANNEL + 1)]
    await db.save_games(games, log)
    assert [g.game_id for g in await db.load_games()] == [g.game_id for g in games]
    with pytest.raises(ValueError, match="belongs to no game"):
        await db.save_games(games[:1], [entry(1, channel_id=CHANNEL + 5)])
    with pytest.raises(ValueError, match="one guild"):
        await db.save_games([games[0], saved(guild_id=GUILD_B, channel_id=9)])
    await db.set_read_only_for_tests(True)
    changed = [saved(game_id="new", channel_id=c, state='{"x": 1}') for c in (CHANNEL, 77)]
    with pytest.raises(DatabaseWriteError):
        await db.save_games(changed)
    await db.set_read_only_for_tests(False)
    assert await db.load_game(77) is None, "nothing of a failed save is written"
    assert await db.load_game(CHANNEL) == games[0]
    last_hand = [entry(7, game_id="hand7", channel_id=CHANNEL + 2)]
    with pytest.raises(ValueError, match="belongs to game"):
        await db.record_game(result(game_id=f"t{CHANNEL}"), last_hand)
    assert await db.record_game(result(game_id=f"t{CHANNEL}"), last_hand,
                                also_delete=[CHANNEL + 1, CHANNEL + 2])
    assert [e.seq for e in await db.game_log(GUILD_A, "hand7")] == [7]
    assert await db.load_games() == []
