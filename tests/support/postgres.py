"""A throwaway PostgreSQL server for the tests: Debian's own binaries (``initdb``, ``pg_ctl``)
run in a temporary folder, on 127.0.0.1 and a free port, as an unprivileged user.

initdb refuses to run as root, so when the tests run as root the cluster is made and run as
``nobody`` (uid/gid 65534, like tests/data/test_failures.py's child); otherwise as the
current user. One server per test process (a session fixture: with xdist, one per worker
that needs one), started on first use, with a migrated template database. The tests of one
process take turns on one database copied from it, whose tables each test empties first
(``DELETE``: milliseconds); a test that changes the schema gets a copy of its own
(``CREATE DATABASE ... TEMPLATE``: a quarter second), dropped after.
Durability is switched off (``fsync=off``...): a test server never outlives a crash.
When the binaries are missing, ``find_binaries`` says so and the fixture skips the test.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

NOBODY = 65534
USER = "uno"
PASSWORD = "uno-test-password"
TEMPLATE = "uno_template"
START_TIMEOUT_S = 60

T = TypeVar("T")


def find_binaries() -> tuple[Path, str]:
    """The folder of initdb and pg_ctl, or ``(Path(), why)`` when PostgreSQL is missing."""
    candidates = [shutil.which("initdb"), shutil.which("pg_ctl")]
    if all(candidates) and candidates[0] is not None:
        folder = Path(os.path.realpath(candidates[0])).parent
        if (folder / "pg_ctl").exists():
            return folder, ""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                         key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit()
                         else 0, reverse=True):
        if os.path.exists(f"{folder}/initdb") and os.path.exists(f"{folder}/pg_ctl"):
            return Path(folder), ""
    return Path(), ("PostgreSQL is not installed (no initdb and pg_ctl on PATH nor in "
                    "/usr/lib/postgresql/*/bin): install Debian's postgresql package to run "
                    "the PostgreSQL tests (.ci/run does)")


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """One event loop in a thread of its own for the whole test process (started once)."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="pg-admin", daemon=True).start()
            _loop = loop
        return _loop


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to the end on the background event loop, so that sync code (fixtures,
    helpers called from inside a test's event loop) can use asyncpg; its connections may
    outlive the call (``empty_tables`` keeps one)."""
    return asyncio.run_coroutine_threadsafe(_awaited(make), _background_loop()).result()


async def _awaited(make: Callable[[], Awaitable[T]]) -> T:
    return await make()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class PgServer:
    """A running server: its folder, port and superuser ``uno`` (with a password)."""

    folder: Path
    port: int
    binaries: Path

    def url(self, database: str = "postgres", *, user: str = USER,
            password: str = PASSWORD) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    async def admin(self, sql: str, *args: Any, database: str = "postgres") -> Any:
        """Run one statement as the superuser (its result from ``fetch``)."""
        import asyncpg

        conn = await asyncpg.connect(self.url(database))
        try:
            return await conn.fetch(sql, *args)
        finally:
            await conn.close()

    def admin_sync(self, sql: str, *args: Any, database: str = "postgres") -> Any:
        return run_async(lambda: self.admin(sql, *args, database=database))


_names = itertools.count(1)
_urls: dict[str, str] = {}  # the URL without its password (Database.path) -> the URL


def real_url(path: str) -> str:
    """The URL (password included) of a test database, from its ``Database.path``."""
    return _urls.get(path, path)


def new_database(server: PgServer, *, migrated: bool = True) -> str:
    """A new database's URL: a copy of the migrated template, or empty (``migrated=False``)."""
    name = f"t{os.getpid()}_{next(_names)}"
    template = TEMPLATE if migrated else "template0"
    server.admin_sync(f'CREATE DATABASE "{name}" TEMPLATE {template}')
    from data.pgfaults import safe_url

    url = server.url(name)
    _urls[safe_url(url)] = url
    return url


def script(url: str, sql: str) -> None:
    """Run several statements (no parameters) on the database at ``url``."""

    async def run() -> None:
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    run_async(run)


_emptiers: dict[str, Any] = {}  # URL -> a connection kept open on the background loop


def empty_tables(url: str) -> None:
    """Delete every row of the bot's tables (the schema and its version stay). ``DELETE`` on
    a kept connection: a millisecond or two, where ``TRUNCATE`` and a new connection take a
    tenth of a second."""
    from data.database import SCHEMA_TABLES

    async def delete() -> None:
        import asyncpg

        conn = _emptiers.get(url)
        if conn is None or conn.is_closed():
            conn = await asyncpg.connect(url)
            await conn.execute("SET lock_timeout = '10s'")
            _emptiers[url] = conn
        # children before parents (game_players references game_results)
        await conn.execute("; ".join(f"DELETE FROM {t}" for t in reversed(SCHEMA_TABLES)))

    run_async(delete)


def drop_database(server: PgServer, url: str) -> None:
    name = url.rsplit("/", 1)[1]
    server.admin_sync(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _as_owner() -> dict[str, Any]:
    """subprocess arguments running a PostgreSQL binary as an unprivileged user."""
    if os.geteuid() != 0:
        return {}
    return {"user": NOBODY, "group": NOBODY, "extra_groups": []}


def start_server() -> PgServer:
    """initdb and start a server (or raise ``RuntimeError`` saying why it could not)."""
    binaries, why = find_binaries()
    if why:
        raise FileNotFoundError(why)
    folder = Path(tempfile.mkdtemp(prefix="uno-pg-", dir="/tmp"))
    owner = _as_owner()
    if owner:
        os.chown(folder, NOBODY, NOBODY)
    pwfile = folder / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if owner:
        os.chown(pwfile, NOBODY, NOBODY)
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    env.pop("PGDATA", None)
    try:
        subprocess.run(
            [str(binaries / "initdb"), "-D", str(folder / "data"), "-U", USER,
             f"--pwfile={pwfile}", "--auth=md5", "-E", "UTF8", "--no-sync",
             "--no-instructions"],
            check=True, capture_output=True, cwd=folder, env=env, timeout=START_TIMEOUT_S,
            **owner)
        for _ in range(3):
            port = free_port()
            options = (f"-c listen_addresses=127.0.0.1 -c port={port} "
                       "-c unix_socket_directories='' -c fsync=off -c synchronous_commit=off "
                       "-c full_page_writes=off -c max_connections=100 "
                       "-c shared_buffers=16MB")
            started = subprocess.run(
                [str(binaries / "pg_ctl"), "-D", str(folder / "data"), "-l",
                 str(folder / "log"), "-o", options, "-w", "-t", str(START_TIMEOUT_S),
                 "start"],
                capture_output=True, cwd=folder, env=env, timeout=START_TIMEOUT_S + 10,
                **owner)
            if started.returncode == 0:
                break
        else:
            log = (folder / "log").read_text(errors="replace")[-2000:] \
                if (folder / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {started.stderr.decode()} {log}")
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        shutil.rmtree(folder, ignore_errors=True)
        detail = getattr(error, "stderr", b"") or b""
        raise RuntimeError(f"initdb failed: {detail.decode(errors='replace')}") from error
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    server = PgServer(folder, port, binaries)
    try:
        # md5, not SCRAM: a connection takes 20 ms instead of 45 (a test server's password
        # needs no strength), and a wrong password is still refused.
        script(server.url(), f"SET password_encryption = 'md5'; "
                             f"ALTER ROLE {USER} PASSWORD '{PASSWORD}'")
        server.admin_sync(f"CREATE DATABASE {TEMPLATE}")
        run_async(lambda: _migrate(server.url(TEMPLATE)))
    except BaseException:
        stop_server(server)
        raise
    return server


async def _migrate(url: str) -> None:
    from data import Database

    db = await Database.open(url)
    await db.close()


def stop_server(server: PgServer) -> None:
    with contextlib.suppress(subprocess.SubprocessError, OSError):
        subprocess.run(
            [str(server.binaries / "pg_ctl"), "-D", str(server.folder / "data"), "-m",
             "immediate", "-w", "stop"],
            capture_output=True, cwd=server.folder, timeout=60, **_as_owner())
    shutil.rmtree(server.folder, ignore_errors=True)


@contextlib.contextmanager
def running_server() -> Iterator[PgServer]:
    server = start_server()
    try:
        yield server
    finally:
        stop_server(server)
