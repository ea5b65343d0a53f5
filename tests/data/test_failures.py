"""Writes that cannot happen: a read-only database refused at open, a database file deleted or
replaced under the running bot, and the read-only seam for tests of the layer above.

How read-only is tested, honestly: the tests run as root, and root writes to a 0444 file
anyway. So the open is run in a forked child that first drops to the unprivileged user
``nobody`` (uid/gid 65534); the files are owned by root with the modes each case needs. A
control case (same child, writable file) shows the harness itself works. When the tests do
not run as root, the same modes already deny the current user and the open runs directly.
When the child cannot change user (no CAP_SETUID), those tests are skipped and say why.
The child must reach everything it reads as ``nobody``: the database folder is made under
/tmp, and opening reads the migrations (data/migrations), so the child reads them from a
world-readable copy; the checkout itself may sit below a folder only root can enter (a clone
in /root, or in a ``mktemp -d`` folder), where ``nobody`` could not read them.
Independently of users, ``data.sqlite.check_writable`` is also run on a connection SQLite opened
read-only itself (URI ``mode=ro``), which is what SQLite does silently with a file it may only
read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiosqlite
import pytest

import data.migrate
from data import (
    Database,
    DatabaseError,
    DatabaseOpenError,
    DatabaseUnwritableError,
    DatabaseVanishedError,
    DatabaseWriteError,
    GameResult,
    GuildSettings,
    LogEntry,
    MigrationError,
    PlayerResult,
    SavedGame,
)
from data.migrate import MIGRATIONS_DIR, load_migrations, split_statements
from data.sqlite import check_writable
from support.data import opened

NOBODY = 65534
CHILD_TIMEOUT_S = 60


def _assert_one_line_sentence(message: str) -> None:
    assert "\n" not in message
    assert message.endswith(".")
    assert message.count(". ") == 0, message


# --- read-only at open ------------------------------------------------------------------


async def _try_open(path: str) -> str:
    try:
        db = await Database.open(path)
    except DatabaseError as error:
        return f"{type(error).__name__}\t{error}"
    await db.close()
    return "OK\t"


def _open_in_child_as_nobody(path: str, migrations: Path) -> tuple[str, str]:
    """Fork; the child drops to ``nobody`` and opens ``path``; (error class or OK, message).

    The child reads the migrations from ``migrations`` (a copy ``nobody`` can read) instead
    of from the checkout, which ``nobody`` may not be able to enter.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        try:
            os.close(read_end)
            # Only the child's own module: the parent's stays as it was.
            data.migrate.load_migrations = functools.partial(load_migrations, migrations)
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            except OSError as error:
                out = f"SETUID\t{error}"
            else:
                out = asyncio.run(_try_open(path))
            os.write(write_end, out.encode())
        except BaseException as error:
            with contextlib.suppress(BaseException):
                os.write(write_end, f"CRASH\t{type(error).__name__}: {error}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([read_end], [], [], CHILD_TIMEOUT_S)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"the child opening {path} as nobody hung")
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    kind, _, message = b"".join(chunks).decode().partition("\t")
    if kind == "SETUID":
        pytest.skip(f"cannot switch to an unprivileged user to test a read-only file: {message}")
    assert kind != "CRASH", message
    return kind, message


def _open_without_privileges(path: str, migrations: Path) -> tuple[str, str]:
    if os.geteuid() == 0:
        return _open_in_child_as_nobody(path, migrations)
    real = data.migrate.load_migrations
    data.migrate.load_migrations = functools.partial(load_migrations, migrations)
    try:
        kind, _, message = asyncio.run(_try_open(path)).partition("\t")
    finally:
        data.migrate.load_migrations = real
    return kind, message


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder ``nobody`` can reach (pytest's tmp_path sits below a 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="uno-readonly-", dir="/tmp"))
    try:
        yield folder
    finally:
        folder.chmod(0o700)
        shutil.rmtree(folder)


def _copy_migrations(copy: Path) -> Path:
    """A copy of data/migrations at ``copy`` that ``nobody`` can read."""
    copy.mkdir()
    for source in MIGRATIONS_DIR.glob("*.sql"):
        shutil.copyfile(source, copy / source.name)
        (copy / source.name).chmod(0o644)
    copy.chmod(0o755)
    assert load_migrations(copy) == load_migrations()  # the same migrations
    return copy


@pytest.fixture(scope="module")
def readable_migrations() -> Iterator[Path]:
    """A copy of data/migrations that ``nobody`` can read, wherever the checkout is."""
    folder = Path(tempfile.mkdtemp(prefix="uno-migrations-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        yield _copy_migrations(folder / "migrations")
    finally:
        shutil.rmtree(folder)


@pytest.fixture
def own_migrations(shared_dir: Path) -> Iterator[Path]:
    """A copy of data/migrations in ``shared_dir`` that a test may spoil (its modes)."""
    copy = _copy_migrations(shared_dir / "migrations")
    yield copy
    copy.chmod(0o755)  # so the folder can be removed, whoever runs the tests
    for file in copy.iterdir():
        file.chmod(0o644)


def _make_database(path: Path, *, wal: bool) -> None:
    if wal:
        asyncio.run(_create(str(path)))  # the real thing, also warms every import
    else:
        conn = sqlite3.connect(path)
        for statement in split_statements(load_migrations()[0].sql):
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 1")
        conn.commit()
        conn.close()
        asyncio.run(_try_open(":memory:"))  # warm the imports the child will need


async def _create(path: str) -> None:
    async with opened(path) as db:
        await db.set_guild_settings(GuildSettings(guild_id=1, target=250))


def test_the_child_harness_opens_a_writable_database(
    shared_dir: Path, readable_migrations: Path
) -> None:
    path = shared_dir / "bot.db"
    _make_database(path, wal=True)
    path.chmod(0o666)
    shared_dir.chmod(0o777)
    assert _open_without_privileges(str(path), readable_migrations) == ("OK", "")


@pytest.mark.parametrize("wal", [True, False], ids=["migrated-wal", "version-1-not-wal"])
def test_a_read_only_file_is_refused_at_open(
    shared_dir: Path, readable_migrations: Path, wal: bool
) -> None:
    # A migrated WAL file opens and reads fine read-only: only a real write finds out.
    path = shared_dir / "bot.db"
    _make_database(path, wal=wal)
    path.chmod(0o444)
    shared_dir.chmod(0o777)  # the folder is writable: only the file is read-only
    kind, message = _open_without_privileges(str(path), readable_migrations)
    assert kind == DatabaseUnwritableError.__name__, message
    assert str(path) in message
    assert "read-only" in message
    assert "writable" in message  # what to do
    _assert_one_line_sentence(message)


def test_a_read_only_folder_is_refused_at_open(shared_dir: Path, readable_migrations: Path) -> None:
    path = shared_dir / "bot.db"
    _make_database(path, wal=True)
    path.chmod(0o666)
    shared_dir.chmod(0o555)  # SQLite cannot create the -wal and -shm files
    kind, message = _open_without_privileges(str(path), readable_migrations)
    assert kind == DatabaseUnwritableError.__name__, message
    assert str(path) in message
    assert "folder" in message and "read-only" in message
    _assert_one_line_sentence(message)


def test_a_new_database_in_a_read_only_folder_is_refused(
    shared_dir: Path, readable_migrations: Path
) -> None:
    asyncio.run(_try_open(":memory:"))  # warm the imports the child will need
    path = shared_dir / "bot.db"
    shared_dir.chmod(0o555)
    kind, message = _open_without_privileges(str(path), readable_migrations)
    assert kind == DatabaseUnwritableError.__name__, message
    assert "folder" in message and "read-only" in message
    _assert_one_line_sentence(message)
    assert not path.exists()


async def test_the_write_check_refuses_a_connection_sqlite_opened_read_only(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.db"
    async with opened(path):
        pass
    uri = f"file:{path}?mode=ro"
    async with aiosqlite.connect(uri, uri=True, isolation_level=None) as conn:
        async with conn.execute("SELECT COUNT(*) FROM guild_settings") as cursor:
            assert (await cursor.fetchone())[0] == 0  # type: ignore[index]  # reads work
        with pytest.raises(DatabaseUnwritableError) as info:
            await check_writable(conn, str(path))
        assert not conn.in_transaction
    assert str(path) in str(info.value) and "read-only" in str(info.value)
    _assert_one_line_sentence(str(info.value))
    assert info.value.__cause__ is None


async def test_the_write_check_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    async with opened(path):
        pass
    conn = sqlite3.connect(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
    assert "open_write_check" not in tables


@pytest.mark.slow
def test_the_child_tests_pass_from_a_checkout_others_cannot_enter(tmp_path: Path) -> None:
    """The tests above pass wherever the project was cloned: as root they run again here
    from a copy of the checkout inside a 0700 folder (like a clone in /root or in a
    ``mktemp -d`` folder), which ``nobody`` cannot enter."""
    if os.geteuid() != 0:
        pytest.skip("only root runs the open as nobody; as another user it runs directly")
    private = tmp_path / "private"
    private.mkdir()
    private.chmod(0o700)
    clone = private / "clone"
    shutil.copytree(
        Path(__file__).resolve().parents[2],
        clone,
        symlinks=True,
        ignore=shutil.ignore_patterns(  # the code and tests, not a developer's token or data
            ".git", ".venv*", "venv", "__pycache__", ".*_cache", ".hypothesis", ".env", "*.db*"
        ),
    )
    command = [
        sys.executable, "-m", "pytest", "tests/data/test_failures.py", "-v",
        "-o", "addopts=--import-mode=importlib",
        "-k", "not others_cannot_enter", "-p", "no:cacheprovider",
        f"--basetemp={private / 'basetemp'}",
    ]
    result = subprocess.run(
        command, cwd=clone, capture_output=True, text=True, timeout=300, check=False
    )
    output = result.stdout + result.stderr
    harness = "test_the_child_harness_opens_a_writable_database"
    if f"{harness} SKIPPED" in output:
        pytest.skip(f"the copy's child could not change user:\n{output[-2000:]}")
    status = result.returncode
    assert status == 0, output[-4000:]
    assert f"{harness} PASSED" in output, output[-4000:]
    assert f"rootdir: {clone}" in output, output[-4000:]  # the copy ran, not the checkout


# --- what failed at open is named: the folder, the file, the migrations ----------------
# (each failed before: every OSError was "Cannot create the folder for the database", an
# unreadable file was "cannot open for writing", an unreadable migrations folder read as
# empty, so a new database opened without a table and an old one was "too new")


def test_a_folder_that_cannot_be_created_is_named(
    shared_dir: Path, readable_migrations: Path
) -> None:
    locked = shared_dir / "locked"
    locked.mkdir(mode=0o555)
    locked.chmod(0o555)
    shared_dir.chmod(0o777)
    kind, message = _open_without_privileges(str(locked / "sub" / "bot.db"), readable_migrations)
    assert kind == DatabaseOpenError.__name__, message
    assert f"Cannot create the folder {locked / 'sub'} for the database" in message
    assert "choose another path" in message
    _assert_one_line_sentence(message)


def test_an_unreadable_database_file_is_named(
    shared_dir: Path, readable_migrations: Path
) -> None:
    path = shared_dir / "bot.db"
    _make_database(path, wal=True)
    path.chmod(0o000)
    shared_dir.chmod(0o777)  # only the file is out of reach
    kind, message = _open_without_privileges(str(path), readable_migrations)
    assert kind == DatabaseOpenError.__name__, message
    assert f"Cannot open the database file {path}" in message
    assert "readable and writable" in message  # what to do
    _assert_one_line_sentence(message)


@pytest.mark.parametrize("existing", [True, False], ids=["existing-database", "new-database"])
def test_an_unreadable_migration_file_is_named(
    shared_dir: Path, own_migrations: Path, existing: bool
) -> None:
    path = shared_dir / "bot.db"
    if existing:
        _make_database(path, wal=True)
        path.chmod(0o666)
    else:
        asyncio.run(_try_open(":memory:"))  # warm the imports the child will need
    shared_dir.chmod(0o777)
    spoiled = sorted(own_migrations.iterdir())[1]
    spoiled.chmod(0o000)
    kind, message = _open_without_privileges(str(path), own_migrations)
    assert kind == MigrationError.__name__, message
    assert f"migration file {spoiled} " in message
    assert "readable by the user running the bot" in message
    assert "folder for the database" not in message
    _assert_one_line_sentence(message)


@pytest.mark.parametrize("existing", [True, False], ids=["existing-database", "new-database"])
def test_an_unreadable_migrations_folder_is_named(
    shared_dir: Path, own_migrations: Path, existing: bool
) -> None:
    path = shared_dir / "bot.db"
    if existing:
        _make_database(path, wal=True)
        path.chmod(0o666)
    else:
        asyncio.run(_try_open(":memory:"))  # warm the imports the child will need
    shared_dir.chmod(0o777)
    own_migrations.chmod(0o311)  # entered, not listed
    kind, message = _open_without_privileges(str(path), own_migrations)
    assert kind == MigrationError.__name__, message
    assert f"migrations folder {own_migrations} " in message
    assert "readable by the user running the bot" in message
    _assert_one_line_sentence(message)


# --- a vanished database file -----------------------------------------------------------


def _game(game_id: str = "g1", state: str = "{}") -> SavedGame:
    return SavedGame(5, 1, game_id, state, 1)


def _result() -> GameResult:
    return GameResult("g1", 1, 5, "classic", 2, 1, (PlayerResult(7, 10, True, 1, 0, 10),))


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


async def test_writes_after_the_file_is_deleted_raise_and_log_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.db"
    async with opened(path) as db:
        await db.save_game(_game())
        _remove_database(path)
        writes = [
            lambda: db.save_game(_game(state='{"lost": true}')),
            lambda: db.record_game(_result()),
            lambda: db.set_guild_settings(GuildSettings(guild_id=1)),
            lambda: db.set_aside_game(5, "r"),
            lambda: db.delete_game(5),
            lambda: db.prune_logs(10),
        ]
        with caplog.at_level(logging.ERROR, logger="data"):
            for write in writes:
                with pytest.raises(DatabaseVanishedError) as info:
                    await write()
                message = str(info.value)
                assert str(path) in message
                assert "deleted or replaced while the bot was running" in message
                _assert_one_line_sentence(message)
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1
        assert "deleted or replaced" in errors[0].getMessage()
        assert not path.exists()  # no write recreated it


async def test_a_replaced_file_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    other = tmp_path / "other.db"
    async with opened(other):
        pass
    async with opened(path) as db:
        await db.save_game(_game())
        os.replace(other, path)  # e.g. a backup restored while the bot runs
        with pytest.raises(DatabaseVanishedError):
            await db.save_game(_game(state='{"x": 1}'))
    async with opened(path) as db:
        assert await db.load_games() == []  # the restored file was not written to


async def test_a_file_put_back_can_be_written_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.db"
    moved = tmp_path / "moved.db"
    async with opened(path) as db:
        await db.save_game(_game())
        with caplog.at_level(logging.ERROR, logger="data"):
            path.rename(moved)
            with pytest.raises(DatabaseVanishedError):
                await db.save_game(_game(state='{"lost": true}'))
            moved.rename(path)  # the same file (same inode) back in place
            await db.save_game(_game(state='{"v": 2}'))
            path.rename(moved)  # and gone again: logged again
            with pytest.raises(DatabaseVanishedError):
                await db.delete_game(5)
            moved.rename(path)
        assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 2
    async with opened(path) as db:
        assert await db.load_game(5) == _game(state='{"v": 2}')


async def test_an_in_memory_database_has_no_file_to_watch() -> None:
    async with opened(":memory:") as db:
        await db.save_game(_game())
        assert await db.load_game(5) == _game()


# --- the read-only seam for tests of the layer above ------------------------------------


async def test_read_only_for_tests_makes_every_write_fail_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    entry = LogEntry("g1", 1, 5, 0, "{}", 1)
    async with opened(path) as db:
        await db.save_game(_game())
        await db.set_read_only_for_tests(True)
        writes = [
            lambda: db.save_game(_game(state='{"lost": true}'), [entry]),
            lambda: db.record_game(_result(), [entry]),
            lambda: db.set_guild_settings(GuildSettings(guild_id=1, target=300)),
            lambda: db.set_aside_game(5, "r"),
            lambda: db.delete_game(5),
            lambda: db.prune_logs(10),
        ]
        for write in writes:
            with pytest.raises(DatabaseWriteError) as info:
                await write()
            message = str(info.value)
            assert str(path) in message and "nothing of it was written" in message
            assert "read-only" in message
            _assert_one_line_sentence(message)
            assert isinstance(info.value.__cause__, sqlite3.OperationalError)
        # Reads still work while writes fail.
        assert await db.load_game(5) == _game()
        assert await db.game_log(1, "g1") == []
        await db.set_read_only_for_tests(False)
        await db.save_game(_game(state='{"v": 2}'), [entry])
    async with opened(path) as db:
        assert await db.load_game(5) == _game(state='{"v": 2}')
        assert await db.game_log(1, "g1") == [entry]
        assert await db.get_guild_settings(1) == GuildSettings(guild_id=1)
        assert await db.leaderboard_size(1) == 0
        assert await db.set_aside_games() == []
