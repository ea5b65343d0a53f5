"""What went wrong with the PostgreSQL server, in one sentence for the operator.

The PostgreSQL twin of data/faults.py: hiding a URL's password in messages, and turning an
asyncpg or socket error raised while connecting or writing into the ``DatabaseError`` whose
message says what is wrong and what to do. Only the PostgreSQL backend (data/postgres.py)
uses this (a malformed URL is ``settings.database_url_problem``'s).
"""

from __future__ import annotations

import hashlib
import socket
from urllib.parse import SplitResult, urlsplit

import asyncpg

from data.errors import (
    DatabaseOpenError,
    DatabaseUnwritableError,
    DatabaseWriteError,
)


def safe_url(url: str) -> str:
    """The URL without its password (for messages and the log)."""
    parts = urlsplit(url)
    if parts.password is None:
        return f"{parts.scheme}://{parts.netloc}{parts.path}"
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    return SplitResult(parts.scheme, f"{user}:***@{host}", parts.path, "", "").geturl()


def lock_key(name: str) -> int:
    """A fleet lock's name as PostgreSQL's 64-bit advisory lock key (the same in every
    process: a hash of the name, never Python's per-process ``hash``)."""
    return int.from_bytes(hashlib.sha256(f"uno:{name}".encode()).digest()[:8], "big",
                          signed=True)


CONNECTION_LOST = (
    asyncpg.PostgresConnectionError,  # SQLSTATE 08...: the connection is gone
    asyncpg.exceptions.OperatorInterventionError,  # 57P..: server shut down, backend killed
    asyncpg.InterfaceError,  # "connection is closed", a connection left mid-protocol
    # "cannot switch to state 15; another operation is in progress": the protocol was left
    # mid-operation by a connection cut under it (asyncpg raises it, not InterfaceError)
    asyncpg.InternalClientError,
    OSError,  # the socket itself (reset, refused on reconnect)
    TimeoutError,  # command_timeout: the server stopped answering
)


DB_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError,
             OSError, TimeoutError)
"""Every error a call to the server can raise that the backend answers (the rest are bugs)."""


def connection_lost(error: BaseException) -> bool:
    """True if ``error`` means the connection is unusable and must be opened again."""
    return isinstance(error, CONNECTION_LOST)


def reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return text or type(error).__name__


def open_error(where: str, error: BaseException) -> DatabaseOpenError:
    """An error raised while connecting to (or migrating) the server, as one sentence."""
    if isinstance(error, socket.gaierror):
        return DatabaseOpenError(
            f"Cannot find the PostgreSQL server of {where} ({reason(error)}); check the host "
            "name in DATABASE_URL.")
    if isinstance(error, (OSError, TimeoutError, asyncpg.exceptions.CannotConnectNowError)):
        return DatabaseOpenError(
            f"Cannot reach the PostgreSQL server {where} ({reason(error)}); start it, or "
            "check the host and port in DATABASE_URL.")
    if isinstance(error, (asyncpg.InvalidPasswordError,
                          asyncpg.InvalidAuthorizationSpecificationError)):
        return DatabaseOpenError(
            f"The PostgreSQL server {where} refused the user name or password "
            f"({reason(error)}); check the credentials in DATABASE_URL.")
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return DatabaseOpenError(
            f"The PostgreSQL server {where} has no such database ({reason(error)}); create "
            "it (createdb) or fix the database name in DATABASE_URL.")
    if isinstance(error, asyncpg.exceptions.TooManyConnectionsError):
        return DatabaseOpenError(
            f"The PostgreSQL server {where} accepts no more connections ({reason(error)}); "
            "raise its max_connections or run fewer processes.")
    if isinstance(error, asyncpg.ReadOnlySQLTransactionError):
        return DatabaseUnwritableError(
            f"The PostgreSQL database {where} is read-only ({reason(error)}); point "
            "DATABASE_URL at the primary server, or turn default_transaction_read_only off.")
    if isinstance(error, asyncpg.InsufficientPrivilegeError):
        return DatabaseUnwritableError(
            f"The PostgreSQL user of {where} may not write the bot's tables "
            f"({reason(error)}); grant it CREATE on the schema and ownership of the tables.")
    if isinstance(error, asyncpg.exceptions.DiskFullError):
        return DatabaseOpenError(
            f"The disk of the PostgreSQL server {where} is full ({reason(error)}); free some "
            "space and start again.")
    return DatabaseOpenError(
        f"Cannot open the PostgreSQL database {where} ({reason(error)}); check DATABASE_URL "
        "and the server's log.")


def write_error(where: str, what: str, error: BaseException) -> DatabaseWriteError:
    """One sentence for a write that failed and was rolled back (like faults.write_error)."""
    if connection_lost(error):
        advice = ("the connection to the server was lost, and the bot connects again by "
                  "itself for the next write")
    elif isinstance(error, asyncpg.ReadOnlySQLTransactionError):
        advice = "the database is read-only, so point DATABASE_URL at the primary server"
    elif isinstance(error, asyncpg.exceptions.DiskFullError):
        advice = "the server's disk is full, so free some space"
    elif isinstance(error, asyncpg.InsufficientPrivilegeError):
        advice = "the database user may not write the bot's tables, so grant it that"
    elif isinstance(error, asyncpg.IntegrityConstraintViolationError):
        advice = "the database rejected the data, which is a bug in the bot worth reporting"
    elif isinstance(error, (asyncpg.exceptions.DeadlockDetectedError,
                            asyncpg.exceptions.SerializationError)):
        advice = "another process wrote the same rows at the same moment, so try again"
    else:
        advice = "check the server and its log"
    return DatabaseWriteError(
        f"Could not {what} in the database {where} ({reason(error)}), so nothing of it was "
        f"written; {advice}.")


def unreachable_message(where: str, error: BaseException) -> str:
    """A call could not run: the connection was lost and could not be opened again."""
    return (f"The PostgreSQL server {where} cannot be reached ({reason(error)}); the bot "
            "connects again by itself once it is back.")
