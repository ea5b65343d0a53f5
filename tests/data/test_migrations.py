"""Opening the database: migrations, user_version, WAL, and the errors an operator sees."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from data import (
    Database,
    DatabaseOpenError,
    DatabaseVersionError,
    GameResult,
    GuildSettings,
    LogEntry,
    MigrationError,
    PlayerResult,
    PlayerStats,
    SavedGame,
)
from data.migrate import Migration, load_migrations, migrate, split_statements
from support.data import connection_of, opened

EXPECTED_TABLES = {
    "guild_settings",
    "saved_games",
    "game_results",
    "game_players",
    "player_stats",
    "game_log",
    "set_aside_games",
    "user_settings",
}




def _inspect(path: Path) -> tuple[int, str, set[str]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
    finally:
        conn.close()
    return version, mode, tables


def _assert_one_sentence(error: BaseException) -> None:
    message = str(error)
    assert "\n" not in message
    assert message.endswith(".")
    assert message.count(". ") == 0, message  # one sentence
    # No chained low-level traceback is printed along with it.
    assert error.__cause__ is None
    assert error.__suppress_context__ or error.__context__ is None


def test_shipped_migrations_are_numbered_from_one() -> None:
    migrations = load_migrations()
    assert migrations, "no migration shipped"
    assert migrations[0].name == "0001_initial.sql"
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))


async def test_open_creates_directories_and_migrates_from_empty(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "bot.db"
    db = await Database.open(str(path))
    await db.close()
    version, mode, tables = _inspect(path)
    assert version == len(load_migrations())
    assert mode == "wal"
    assert tables >= EXPECTED_TABLES


async def test_foreign_keys_and_busy_timeout_are_on(tmp_path: Path) -> None:
    async with opened(tmp_path / "bot.db") as db:
        conn = connection_of(db)
        async with conn.execute("PRAGMA foreign_keys") as cursor:
            assert (await cursor.fetchone())[0] == 1  # type: ignore[index]
        async with conn.execute("PRAGMA busy_timeout") as cursor:
            assert (await cursor.fetchone())[0] > 0  # type: ignore[index]


async def test_reopening_a_migrated_file_is_a_no_op(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.db"
    async with opened(path) as db:
        await db.set_guild_settings(GuildSettings(guild_id=1, target=250))
    before = _inspect(path)

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="data"):
        async with opened(path) as db:
            assert (await db.get_guild_settings(1)).target == 250
    assert not [r for r in caplog.records if "Applying database migration" in r.getMessage()]
    assert _inspect(path) == before


async def test_first_open_logs_each_migration(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="data"):
        db = await Database.open(str(tmp_path / "bot.db"))
    await db.close()
    applied = [r for r in caplog.records if "Applying database migration" in r.getMessage()]
    assert len(applied) == len(load_migrations())


async def test_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 999")
    conn.close()

    with pytest.raises(DatabaseVersionError) as info:
        await Database.open(str(path))
    assert "999" in str(info.value)
    assert "newer version of the bot" in str(info.value)
    _assert_one_sentence(info.value)
    assert _inspect(path)[0] == 999  # left untouched


async def test_garbage_file_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    path.write_bytes(b"definitely not an SQLite file\n" * 500)
    with pytest.raises(DatabaseOpenError) as info:
        await Database.open(str(path))
    assert "not a valid SQLite database or is corrupted" in str(info.value)
    assert str(path) in str(info.value)
    _assert_one_sentence(info.value)


async def test_corrupted_pages_give_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    async with opened(path) as db:
        for guild in range(1, 200):
            await db.set_guild_settings(GuildSettings(guild_id=guild))
    raw = bytearray(path.read_bytes())
    assert len(raw) > 3 * 4096
    raw[4096:] = b"\xa5" * (len(raw) - 4096)  # keep the header page, smash the rest
    path.write_bytes(bytes(raw))

    with pytest.raises(DatabaseOpenError) as info:
        await Database.open(str(path))
    assert "corrupted" in str(info.value)
    _assert_one_sentence(info.value)


async def test_path_below_a_regular_file_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    with pytest.raises(DatabaseOpenError) as info:
        await Database.open(str(blocker / "sub" / "bot.db"))
    assert "choose another path" in str(info.value)
    _assert_one_sentence(info.value)


async def test_path_that_is_a_directory_gives_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseOpenError) as info:
        await Database.open(str(tmp_path))
    assert "choose another path" in str(info.value)
    _assert_one_sentence(info.value)


async def test_a_failing_migration_is_rolled_back_completely(tmp_path: Path) -> None:
    good = Migration(1, "0001_a.sql", "CREATE TABLE a (x INTEGER);")
    bad = Migration(
        2,
        "0002_b.sql",
        "CREATE TABLE b (x INTEGER);\nINSERT INTO a (x) VALUES (1);\nINSERT INTO nope VALUES (1);",
    )
    path = tmp_path / "m.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(conn, str(path), [good, bad])
        assert not conn.in_transaction
    version, _, tables = _inspect(path)
    assert version == 1
    assert "b" not in tables
    check = sqlite3.connect(path)
    assert check.execute("SELECT COUNT(*) FROM a").fetchone()[0] == 0
    check.close()


def test_load_migrations_rejects_gaps_and_bad_names(tmp_path: Path) -> None:
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    (tmp_path / "0003_c.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match="0002"):
        load_migrations(tmp_path)
    (tmp_path / "0003_c.sql").unlink()
    (tmp_path / "two.sql").write_text("SELECT 1;")
    with pytest.raises(MigrationError, match="NNNN_description"):
        load_migrations(tmp_path)


def test_split_statements_respects_strings_and_comments() -> None:
    sql = "-- a comment; with a semicolon\nCREATE TABLE t (x TEXT DEFAULT 'a;b');\nSELECT 1;\n"
    assert split_statements(sql) == [
        "-- a comment; with a semicolon\nCREATE TABLE t (x TEXT DEFAULT 'a;b');",
        "SELECT 1;",
    ]
    with pytest.raises(MigrationError):
        split_statements("SELECT 1; SELECT")


def _dump(path: Path, tables: list[str]) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall()) for t in tables}
    finally:
        conn.close()


async def test_a_version_1_database_with_data_migrates_to_2_keeping_it(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    # A database as version 1 of the bot left it, written through version 1's schema only.
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await conn.execute("PRAGMA journal_mode = WAL")
        assert await migrate(conn, str(path), load_migrations()[:1]) == 1
        await conn.execute(
            "INSERT INTO guild_settings VALUES (1, 250, 'alternative', 50, 'classic', 30, 0, 1)"
        )
        await conn.execute("INSERT INTO saved_games VALUES (5, 1, 'running', '{\"t\": 1}', 9)")
        await conn.execute("INSERT INTO game_results VALUES ('done', 1, 6, 'classic', 100, 3)")
        await conn.execute("INSERT INTO game_players VALUES ('done', 1, 7, 120, 1, 2, 0, 80)")
        await conn.execute("INSERT INTO player_stats VALUES (1, 7, 1, 1, 2, 120, 0, 80)")
    old_tables = ["guild_settings", "saved_games", "game_results", "game_players", "player_stats"]
    before = _dump(path, old_tables)
    assert _inspect(path)[0] == 1

    async with opened(path) as db:
        assert (await db.get_guild_settings(1)).target == 250
        assert await db.load_game(5) == SavedGame(5, 1, "running", '{"t": 1}', 9)
        assert await db.player_stats(1, 7) == PlayerStats(1, 7, 1, 1, 2, 120, 0, 80)
        # The new tables work on the migrated file, next to the old data.
        header = LogEntry("running", 1, 5, 0, "{}", 10)
        await db.save_game(SavedGame(5, 1, "running", '{"t": 2}', 11), [header])
        assert await db.game_log(1, "running") == [header]
        assert await db.set_aside_game(5, "test")
        result = GameResult("done", 1, 6, "classic", 100, 3, (PlayerResult(7, 1, True, 1, 0, 1),))
        assert await db.record_game(result) is False  # still known as recorded
    version, _, tables = _inspect(path)
    assert version == len(load_migrations())
    assert tables >= EXPECTED_TABLES
    after = _dump(path, old_tables)
    assert after["saved_games"] == []  # set aside above
    del before["saved_games"], after["saved_games"]
    # Later migrations add columns at the end of rows; the old columns keep their values.
    assert {t: [row[:len(before[t][0])] for row in rows] for t, rows in after.items()} == before


async def test_a_version_2_database_with_data_migrates_to_3_keeping_it(tmp_path: Path) -> None:
    """0003 rebuilds guild_settings, game_results and game_players (their edition CHECK
    gains the Victory Lap edition): nothing is lost, least of all the game_players rows
    that reference game_results with ON DELETE CASCADE."""
    path = tmp_path / "bot.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        assert await migrate(conn, str(path), load_migrations()[:2]) == 2
        await conn.execute(
            "INSERT INTO guild_settings VALUES (1, 250, 'alternative', 50, 'classic', 30, 0, 1)"
        )
        await conn.execute("INSERT INTO game_results VALUES ('done', 1, 6, 'classic', 100, 3)")
        await conn.execute("INSERT INTO game_players VALUES ('done', 1, 7, 120, 1, 2, 0, 80)")
        await conn.execute("INSERT INTO game_players VALUES ('done', 1, 8, 0, 0, 1, 3, 40)")
        await conn.execute("INSERT INTO player_stats VALUES (1, 7, 1, 1, 2, 120, 0, 80)")

    async with opened(path) as db:
        settings = await db.get_guild_settings(1)
        assert (settings.target, settings.edition, settings.threads) == (250, "classic", False)
        assert await db.player_stats(1, 7) == PlayerStats(1, 7, 1, 1, 2, 120, 0, 80, 0, 0, 0, 0)
        # What 0003 allows: the new edition, partner games, the threads default.
        await db.set_guild_settings(GuildSettings(1, threads=True))
        assert (await db.get_guild_settings(1)).threads is True
        result = GameResult("lap", 1, 6, "classic", 200, 2,
                            (PlayerResult(7, 90, True, 2, 0, 90, team=0),), kind="partners")
        assert await db.record_game(result) is True
        assert await db.player_stats(1, 7) == PlayerStats(1, 7, 2, 2, 4, 210, 0, 90, 1, 1, 0, 0)
    conn = sqlite3.connect(path)
    try:
        players = conn.execute(
            "SELECT game_id, user_id, score, team FROM game_players ORDER BY game_id, user_id"
        ).fetchall()
        kinds = conn.execute("SELECT game_id, kind FROM game_results ORDER BY game_id").fetchall()
        conn.execute("UPDATE guild_settings SET edition = 'victory-lap'")  # the CHECK allows it
        conn.execute("UPDATE game_results SET edition = 'victory-lap' WHERE game_id = 'lap'")
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("UPDATE game_results SET edition = 'other' WHERE game_id = 'lap'")
        conn.commit()
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()
    assert players == [("done", 7, 120, None), ("done", 8, 0, None), ("lap", 7, 90, 0)]
    assert kinds == [("done", "solo"), ("lap", "partners")]


async def test_migration_0002_is_applied_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.db"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        await migrate(conn, str(path), load_migrations()[:1])
    with caplog.at_level(logging.INFO, logger="data"):
        async with opened(path):
            pass
        async with opened(path):
            pass
    applied = [r.getMessage() for r in caplog.records if "Applying" in r.getMessage()]
    later = [m.name for m in load_migrations()[1:]]
    assert len(applied) == len(later)  # each once, on the first open only
    assert all(name in message for name, message in zip(later, applied, strict=True))


def test_migrations_that_cannot_be_read_are_named(tmp_path: Path) -> None:
    """The bot's own migrations, read at every open: a file that is not text or a folder
    without any is named (before: a UnicodeDecodeError escaped; an empty folder was no
    migrations at all, and a new database opened without a table)."""
    with pytest.raises(MigrationError) as info:
        load_migrations(tmp_path)
    assert f"migrations folder {tmp_path} holds no migration files" in str(info.value)
    _assert_one_sentence(info.value)
    bad = tmp_path / "0001_a.sql"
    bad.write_bytes(b"CREATE TABLE a (x TEXT DEFAULT '\xff');")
    with pytest.raises(MigrationError) as info:
        load_migrations(tmp_path)
    assert f"migration file {bad} (not UTF-8 text)" in str(info.value)
    _assert_one_sentence(info.value)
