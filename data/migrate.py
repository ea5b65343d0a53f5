"""Numbered SQL migrations (data/migrations/NNNN_name.sql) tracked with PRAGMA user_version."""

from __future__ import annotations

import logging
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from data.errors import DatabaseVersionError, MigrationError

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_NAME = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migrations in ``directory``, numbered 1, 2, 3, ... without gaps.

    They ship with the bot and are read at every open: a folder or file the bot cannot read
    (or an empty folder) raises ``MigrationError`` naming it, never an error about the
    database (``Path.glob`` would pass over an unreadable folder as if it were empty, and
    a new database would then be opened without any table)."""
    try:
        paths = sorted(p for p in directory.iterdir() if p.name.endswith(".sql"))
    except OSError as error:
        raise MigrationError(
            f"Cannot read the bot's migrations folder {directory} ({_reason(error)}); "
            "make it readable by the user running the bot, or reinstall the bot."
        ) from None
    if not paths:
        raise MigrationError(
            f"The bot's migrations folder {directory} holds no migration files "
            "(NNNN_description.sql); reinstall the bot."
        )
    migrations: list[Migration] = []
    for path in paths:
        match = _NAME.match(path.name)
        if match is None:
            raise MigrationError(
                f"Migration file {path.name} is not named NNNN_description.sql; rename it."
            )
        try:
            sql = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise MigrationError(
                f"Cannot read the bot's migration file {path} ({_reason(error)}); "
                "make it readable by the user running the bot, or reinstall the bot."
            ) from None
        migrations.append(Migration(int(match.group(1)), path.name, sql))
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"Migration {migration.name} should be number {expected:04d}; "
                "migrations must be numbered from 0001 without gaps or duplicates."
            )
    return migrations


def _reason(error: OSError | UnicodeDecodeError) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    return error.strerror or type(error).__name__


def split_statements(sql: str) -> list[str]:
    """Split a migration script into complete statements (comments and strings respected)."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    rest = "\n".join(
        line for line in buffer.splitlines() if line.strip() and not line.strip().startswith("--")
    )
    if rest:
        raise MigrationError(
            f"Migration script ends with an unterminated statement: {rest[:60]!r}."
        )
    return statements


async def user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row is not None else 0


async def migrate(
    conn: aiosqlite.Connection, path: str, migrations: list[Migration] | None = None
) -> int:
    """Bring the database up to the newest migration; return the resulting schema version.

    ``conn`` must be in autocommit mode (isolation_level=None): each migration runs in its
    own ``BEGIN IMMEDIATE ... COMMIT`` together with its ``PRAGMA user_version`` bump.
    """
    if migrations is None:
        migrations = load_migrations()
    latest = len(migrations)
    current = await user_version(conn)
    if current > latest:
        raise DatabaseVersionError(
            f"The database {path} has schema version {current} but this bot only knows up to "
            f"version {latest}; run a newer version of the bot or restore a backup made for "
            "this one."
        )
    for migration in migrations[current:]:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-check inside the write lock: another process may have migrated meanwhile.
            if await user_version(conn) >= migration.version:
                await conn.execute("COMMIT")
                continue
            log.info("Applying database migration %s to %s", migration.name, path)
            for statement in split_statements(migration.sql):
                await conn.execute(statement)
            # PRAGMA takes no parameters; the version is an int parsed from the file name.
            await conn.execute(f"PRAGMA user_version = {int(migration.version)}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
    return await user_version(conn)
