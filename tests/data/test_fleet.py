"""Several bot processes on one database (issue 18): what two processes do at the same
moment loses nothing and is done once. Each "process" is a ``Database`` of its own (its own
connection, as a second process has), on each backend in turn; one test starts two real
processes. On SQLite two connections to one file stand in for what one process could never
meet, and the same answers hold (the file's write lock serialises them).
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from data import Database, GameResult, LogEntry, PlayerResult, UserSettings
from support.data import count_rows, opened

GUILD = 7
USER = 42
ROOT = Path(__file__).resolve().parents[2]


def finished(game_id: str, channel: int, won: bool, score: int, best: int) -> GameResult:
    return GameResult(game_id, GUILD, channel, "classic", 1000, 2,
                      (PlayerResult(USER, score, won, 1, 0, best),
                       PlayerResult(USER + channel, 0, not won, 0, 0, 0)))


async def test_one_player_finishing_games_in_two_processes_at_once_loses_nothing(
        db_path: str) -> None:
    """Two processes record games of the same player at the same moment: every game counts
    once in the player's totals (``ON CONFLICT DO UPDATE`` adds under the row's lock)."""
    n = 25
    async with opened(db_path) as one, opened(db_path) as two:
        games = [finished(f"g{i}", 100 + i, i % 3 == 0, 10 + i, i) for i in range(n)]
        outcome = await asyncio.gather(
            *((one if i % 2 else two).record_game(g) for i, g in enumerate(games)),
            # the same results again from the other process: recorded once
            *((two if i % 2 else one).record_game(g) for i, g in enumerate(games)),
        )
        assert sorted(outcome) == [False] * n + [True] * n
        stats = await one.player_stats(GUILD, USER)
        assert stats is not None
        assert stats.games_played == n
        assert stats.games_won == len([i for i in range(n) if i % 3 == 0])
        assert stats.points == sum(10 + i for i in range(n))
        assert stats.rounds_won == n
        assert stats.best_round == n - 1
    assert count_rows(db_path, "game_results") == n


async def test_pruning_in_two_processes_at_once_deletes_each_row_once(db_path: str) -> None:
    n = 30
    async with opened(db_path) as one, opened(db_path) as two:
        for i in range(n):
            await one.record_game(finished(f"g{i}", 100 + i, True, 1, 1),
                                  [LogEntry(f"g{i}", GUILD, 100 + i, s, "{}", 10)
                                   for s in range(3)])
        deleted = await asyncio.gather(*(db.prune_logs(older_than=50)
                                         for db in (one, two, one, two)))
        assert sum(deleted) == 3 * n
        assert count_rows(db_path, "game_log") == 0


async def test_a_persons_settings_changed_through_two_processes_at_once(db_path: str) -> None:
    """``/uno appearance`` on two shards at the same moment: no error, one of the two wins,
    and each process then reads that one."""
    async with opened(db_path) as one, opened(db_path) as two:
        for round_ in range(5):
            wanted = [UserSettings(USER, round_ % 2 == 0), UserSettings(USER, round_ % 2 == 1)]
            await asyncio.gather(one.set_user_settings(wanted[0]),
                                 two.set_user_settings(wanted[1]))
            seen = {await one.get_user_settings(USER), await two.get_user_settings(USER)}
            assert len(seen) == 1 and seen <= set(wanted)
        await one.set_user_settings(UserSettings(USER, True))
        assert (await two.get_user_settings(USER)).high_contrast


async def test_a_fleet_lock_lets_one_holder_in_at_a_time(db_path: str) -> None:
    async with opened(db_path) as db:
        inside = 0
        most = 0

        async def hold() -> None:
            nonlocal inside, most
            async with db.fleet_lock("upload-emojis"):
                inside += 1
                most = max(most, inside)
                await asyncio.sleep(0.02)
                inside -= 1

        await asyncio.gather(*(hold() for _ in range(5)))
        assert most == 1


_PROCESS = textwrap.dedent("""
    import asyncio, sys
    sys.path[:0] = [{root!r}]
    from data import Database, GameResult, PlayerResult, UserSettings

    async def main(url, name):
        db = await Database.open(url)
        try:
            for i in range(10):
                game = GameResult(f"{{name}}{{i}}", 7, i + 1, "classic", 1, 1,
                                  (PlayerResult(42, 5, True, 1, 0, 5),))
                await db.record_game(game)
            await db.set_user_settings(UserSettings(42, name == "a"))
            await db.prune_logs(10)
        finally:
            await db.close()

    asyncio.run(main(sys.argv[1], sys.argv[2]))
""")


async def test_a_new_sqlite_file_another_program_is_writing_opens_when_it_is_done(
        tmp_path: Path) -> None:
    """SQLite answers a switch to WAL that meets another connection's write at once (no
    ``busy_timeout``): two processes starting on a new file, one switching it while the
    other's switch or migration held it, saw one exit with "locked by another program" (a
    full CI run of the test below). The bot tries again and opens once the other is done."""
    path = str(tmp_path / "bot.db")
    other = sqlite3.connect(path, isolation_level=None)  # a program writing, not in WAL
    try:
        other.execute("CREATE TABLE other_program (x)")
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO other_program VALUES (1)")
        asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")
        db = await Database.open(path)
        try:
            await db.set_user_settings(UserSettings(USER, True))
        finally:
            await db.close()
        with closing(sqlite3.connect(path)) as check:  # a new look at the file
            journal = check.execute("PRAGMA journal_mode").fetchone()
        assert journal == ("wal",)
        assert other.execute("SELECT x FROM other_program").fetchall() == [(1,)]
    finally:
        other.close()


@pytest.mark.slow
def test_two_processes_starting_at_once_on_a_new_database(db_path: str) -> None:
    """Two real processes open a new, empty database at the same moment (both migrate it),
    then record games of one player, set the same person's settings and prune the log: both
    succeed and nothing is lost or done twice."""
    if db_path.startswith("postgresql"):
        import support.postgres as pg

        # A database nobody migrated yet (db_path's is migrated already).
        server_url, _, _ = db_path.rpartition("/")
        name = f"fleet_{uuid.uuid4().hex[:12]}"
        pg.script(f"{server_url}/postgres", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        pg.script(f"{server_url}/postgres", f'CREATE DATABASE "{name}" TEMPLATE template0')
        target = f"{server_url}/{name}"
    else:
        target = db_path
    code = _PROCESS.format(root=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", code, target, name_],
                              stderr=subprocess.PIPE, text=True)
             for name_ in ("a", "b")]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err

    async def check() -> None:
        async with opened(target) as db:
            stats = await db.player_stats(GUILD, USER)
            assert stats is not None and stats.games_played == 20
            assert await db.get_user_settings(USER) in (UserSettings(USER, True),
                                                        UserSettings(USER, False))

    asyncio.run(check())
    if target != db_path:
        pg.script(f"{server_url}/postgres", f'DROP DATABASE "{name}" WITH (FORCE)')

