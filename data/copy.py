"""Moving up from one process to several: copy a SQLite file into an empty PostgreSQL database.

    python -m data.copy SQLITE_PATH DATABASE_URL

Everything is copied: server and personal settings, games in progress and set aside,
finished games, leaderboards and move logs. The SQLite file is first brought to this
version's schema (as starting the bot would), the PostgreSQL database is migrated (created
tables, no rows) and must be empty: a database that holds any row of the bot's is refused,
so nothing is ever merged or overwritten. All rows go in one transaction, and the row count
of every table is compared with the file's before it commits: on any difference or error
nothing is kept and the database stays empty. Stop the bot using the file first (saves made
during the copy would not be in it).

Exit codes: 0 copied; 1 the copy could not be made (a file or server problem, a non-empty
database, different counts: one line says which); 2 wrong arguments or a malformed URL.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence

from data.database import SCHEMA_TABLES, is_url
from data.errors import DatabaseError
from data.postgres import PostgresBackend, PostgresTransaction
from data.sqlite import SqliteBackend
from settings import database_url_problem

logger = logging.getLogger(__name__)

CHUNK = 5000  # rows read and written at a time


class CopyError(Exception):
    """The copy cannot be made; the message is one sentence for the operator."""


async def copy(source_path: str, target_url: str) -> dict[str, int]:
    """Copy every row of the SQLite file into the empty PostgreSQL database; rows per table.

    Raises ``CopyError`` or ``DatabaseError`` (one sentence each); the database is then left
    as it was (empty).
    """
    if not await asyncio.to_thread(os.path.isfile, source_path):
        raise CopyError(f"There is no SQLite file at {source_path}; give the path of the "
                        "bot's database file (DATABASE_PATH).")
    source = await SqliteBackend.open(source_path)
    try:
        target = await PostgresBackend.open(target_url)
        try:
            return await _copy_all(source, target)
        finally:
            await target.close()
    finally:
        await source.close()


async def _count(backend: SqliteBackend | PostgresBackend | PostgresTransaction,
                 table: str) -> int:
    row = await backend.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
    return int(row["n"]) if row is not None else 0


async def _copy_all(source: SqliteBackend, target: PostgresBackend) -> dict[str, int]:
    for table in SCHEMA_TABLES:
        rows = await _count(target, table)
        if rows:
            raise CopyError(
                f"The database {target.path} is not empty (its table {table} has {rows} rows), "
                "so nothing was copied; copy into a new, empty database (createdb).")
    expected = {table: await _count(source, table) for table in SCHEMA_TABLES}
    copied: dict[str, int] = {}
    async with target.write("copy the SQLite database") as tx:
        for table in SCHEMA_TABLES:
            copied[table] = await _copy_table(source, tx, table)
            written = await _count(tx, table)
            if not copied[table] == written == expected[table]:
                raise CopyError(
                    f"The table {table} has {expected[table]} rows in {source.path} but "
                    f"{written} were written, so nothing was kept; make sure no bot uses the "
                    "file during the copy, and try again.")
    return copied


async def _copy_table(source: SqliteBackend, tx: PostgresTransaction, table: str) -> int:
    """Every row of ``table``, a chunk at a time; how many were read."""
    total = 0
    async with source.connection.execute(f"SELECT * FROM {table}") as cursor:
        columns = [d[0] for d in cursor.description]
        insert = (f"INSERT INTO {table} ({', '.join(columns)}) "
                  f"VALUES ({', '.join('?' for _ in columns)})")
        while chunk := [tuple(row) for row in await cursor.fetchmany(CHUNK)]:
            await tx.execute_many(insert, chunk)
            total += len(chunk)
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m data.copy",
        description="Copy the bot's SQLite file into an empty PostgreSQL database, to run "
                    "several bot processes on it (docs/deploy.md: Running several processes).")
    parser.add_argument("sqlite_path", help="the SQLite file (DATABASE_PATH)")
    parser.add_argument("database_url", help="postgresql://user:password@host:5432/database")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not is_url(args.database_url):
        sys.stderr.write("The target must be a PostgreSQL URL "
                         "(postgresql://user:password@host:5432/database).\n")
        return 2
    problem = database_url_problem(args.database_url)
    if problem is not None:
        sys.stderr.write(f"{problem}\n")
        return 2
    try:
        copied = asyncio.run(copy(args.sqlite_path, args.database_url))
    except (CopyError, DatabaseError) as error:
        sys.stderr.write(f"{error}\n")
        return 1
    for table, rows in copied.items():
        sys.stdout.write(f"{table}: {rows} rows\n")
    sys.stdout.write(f"Copied {sum(copied.values())} rows; the row counts of every table "
                     "match.\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
