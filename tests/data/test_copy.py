"""Moving up: ``python -m data.copy SQLITE_PATH DATABASE_URL`` copies a real SQLite file, with
rows written at every step of its history (migration 1, then each later migration applied to
the file and rows of its own added), into an empty PostgreSQL database; refuses a database
that is not empty; one line and an exit code for every refusal."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import aiosqlite
import pytest

from data.database import SCHEMA_TABLES
from data.migrate import load_migrations, migrate
from support import postgres
from support.data import opened, query

ROOT = Path(__file__).resolve().parents[2]

# Rows added at each schema version, in that version's columns (booleans as 0/1).
ROWS_AT: dict[int, list[str]] = {
    1: [
        "INSERT INTO guild_settings VALUES (1, 500, 'standard', 20, 'classic', 60, 1, 0)",
        "INSERT INTO saved_games VALUES (10, 1, 'old', '{\"v\": 1}', 100)",
        "INSERT INTO game_results VALUES ('r1', 1, 11, 'power-grab', 200, 3)",
        "INSERT INTO game_players VALUES ('r1', 1, 501, 120, 1, 2, 1, 80)",
        "INSERT INTO game_players VALUES ('r1', 1, 502, 10, 0, 1, 0, 10)",
        "INSERT INTO player_stats VALUES (1, 501, 1, 1, 2, 120, 1, 80)",
        "INSERT INTO player_stats VALUES (1, 502, 1, 0, 1, 10, 0, 10)",
    ],
    2: [
        "INSERT INTO game_log VALUES ('r1', 1, 11, 0, '{\"start\": \"é\"}', 150)",
        "INSERT INTO game_log VALUES ('r1', 1, 11, 1, '{\"play\": \"R7\"}', 151)",
        "INSERT INTO game_log VALUES ('old', 1, 10, 0, '{}', 99)",
        "INSERT INTO set_aside_games VALUES (12, 1, 'bad', '{\"x\": 0}', 'damaged', 300)",
    ],
    3: [
        "INSERT INTO guild_settings VALUES (2, 250, 'alternative', 50, 'victory-lap', 90, 0,"
        " 1, 1)",
        "INSERT INTO game_results VALUES ('t1', 2, 21, 'victory-lap', 400, 5, 'tournament')",
        "INSERT INTO game_players VALUES ('t1', 2, 601, 300, 1, 3, 2, 100, 0)",
        "INSERT INTO game_players VALUES ('t1', 2, 602, 0, 0, 0, 0, 0, NULL)",
        "INSERT INTO player_stats VALUES (2, 601, 1, 1, 3, 300, 2, 100, 1, 1, 1, 1)",
        "INSERT INTO player_stats VALUES (2, 602, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0)",
        "INSERT INTO saved_games VALUES (20, 2, 'new', '{\"v\": 3}', 500)",
    ],
    4: ["INSERT INTO guild_settings VALUES (3, 300, 'standard', 20, 'classic', 30, 0, 0, 0,"
        " 'fr')"],
    5: ["INSERT INTO user_settings VALUES (501, 1)", "INSERT INTO user_settings VALUES (7, 0)"],
    6: ["INSERT INTO rematches VALUES ('g1', 1, 10, '{\"v\": 4}', 100, 0)",
        "INSERT INTO rematches VALUES ('g2', 2, 20, '{\"v\": 4}', 200, 1)"],
    7: ["INSERT INTO guild_settings VALUES (4, 500, 'standard', 20, 'classic', 90, 1, 0, 0,"
        " NULL, 4)"],
}


async def _file_through_every_migration(path: str) -> None:
    migrations = load_migrations()
    assert len(migrations) == max(ROWS_AT), "a new migration: add rows of its own here"
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        for version in range(1, len(migrations) + 1):
            assert await migrate(conn, path, migrations[:version]) == version
            for statement in ROWS_AT[version]:
                await conn.execute(statement)


def copy_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "data.copy", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def _rows(target: str, table: str) -> list[tuple[object, ...]]:
    return sorted(query(target, f"SELECT * FROM {table}"), key=repr)


@pytest.fixture
def sqlite_file(tmp_path: Path) -> str:
    path = str(tmp_path / "old.db")
    asyncio.run(_file_through_every_migration(path))
    return path


@pytest.mark.slow
def test_everything_is_copied_and_counted(sqlite_file: str, pg_url: str) -> None:
    result = copy_tool(sqlite_file, pg_url)
    assert result.returncode == 0, result.stderr
    assert "the row counts of every table match" in result.stdout
    assert "game_log: 3 rows" in result.stdout
    for table in SCHEMA_TABLES:
        assert _rows(pg_url, table) == _rows(sqlite_file, table), table
        assert _rows(pg_url, table), f"{table} has rows from the file"

    async def read_back() -> None:
        async with opened(pg_url) as db:
            board = await db.leaderboard(1, "points")
            assert [(s.user_id, s.points) for s in board] == [(501, 120), (502, 10)]
            assert (await db.player_stats(2, 601)).tournament_wins == 1  # type: ignore[union-attr]
            assert [g.game_id for g in await db.load_games()] == ["old", "new"]
            assert (await db.get_guild_settings(3)).language == "fr"
            assert (await db.get_guild_settings(3)).missed_turns == 2  # the default
            assert (await db.get_guild_settings(4)).missed_turns == 4
            assert (await db.get_guild_settings(2)).threads
            assert (await db.get_user_settings(501)).high_contrast
            assert [e.seq for e in await db.game_log(1, "r1")] == [0, 1]
            assert [g.reason for g in await db.set_aside_games()] == ["damaged"]
            assert await db.latest_game_id(1, 11) == "r1"

    asyncio.run(read_back())


@pytest.mark.slow
def test_a_database_that_is_not_empty_is_refused(sqlite_file: str, pg_url: str) -> None:
    assert copy_tool(sqlite_file, pg_url).returncode == 0
    before = {table: _rows(pg_url, table) for table in SCHEMA_TABLES}
    again = copy_tool(sqlite_file, pg_url)
    assert again.returncode == 1
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not empty" in lines[0], again.stderr
    assert postgres.PASSWORD not in again.stderr
    assert {table: _rows(pg_url, table) for table in SCHEMA_TABLES} == before


def test_a_failure_midway_leaves_the_database_empty(sqlite_file: str, pg_url: str) -> None:
    """A row PostgreSQL refuses (here a log entry with a NUL character, which SQLite keeps
    and PostgreSQL's text cannot): one line, exit 1, and nothing of the copy is kept."""
    query(sqlite_file, "INSERT INTO game_log VALUES ('r1', 1, 11, 2, ?, 152)", "a\x00b")
    result = copy_tool(sqlite_file, pg_url)
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for table in SCHEMA_TABLES:
        assert _rows(pg_url, table) == [], table


@pytest.mark.slow
def test_bad_arguments_are_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.db")
    result = copy_tool(missing, "postgresql://u:p@host:notaport/db")
    assert result.returncode == 2 and "DATABASE_URL is malformed" in result.stderr
    result = copy_tool(missing, str(tmp_path / "other.db"))
    assert result.returncode == 2 and "must be a PostgreSQL URL" in result.stderr


def test_a_missing_file_is_named_and_not_created(tmp_path: Path, pg_url: str) -> None:
    missing = str(tmp_path / "missing.db")
    result = copy_tool(missing, pg_url)
    assert result.returncode == 1 and "There is no SQLite file" in result.stderr
    assert not os.path.exists(missing)
