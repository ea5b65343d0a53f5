"""What went wrong with the SQLite file, in one sentence for the operator.

SQLite names its errors (``sqlite_errorname``); these functions turn one, raised while
opening or while writing, into the ``DatabaseError`` whose message says what is wrong and
what to do. Also the file's identity, to notice it deleted or replaced under the bot. Only
the SQLite backend (data/sqlite.py) uses this; a PostgreSQL backend would have its own.
"""

from __future__ import annotations

import os
import sqlite3

from data.errors import DatabaseOpenError, DatabaseUnwritableError, DatabaseWriteError

CORRUPT = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
UNWRITABLE = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_IOERR")
BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")
FULL = ("SQLITE_FULL",)
READONLY = ("SQLITE_READONLY",)
CONSTRAINT = ("SQLITE_CONSTRAINT",)

FileId = tuple[int, int]  # (st_dev, st_ino) of the open database file


def error_name(error: BaseException) -> str:
    """SQLite's name of the error (``SQLITE_READONLY``...), or ``""``."""
    return getattr(error, "sqlite_errorname", "") or ""


def corrupt_message(path: str) -> str:
    return (
        f"The database file {path} is not a valid SQLite database or is corrupted; "
        "restore it from a backup or move it away so the bot can create a new one."
    )


def unwritable_message(path: str, error: BaseException | None = None) -> str:
    if error is not None and error_name(error) == "SQLITE_READONLY_DIRECTORY":
        return unwritable_folder_message(path)
    return (
        f"The database file {path} is read-only for the user running the bot, so nothing "
        "could be saved; make the file (and its -wal and -shm files, if any) writable by that "
        "user, or choose another path."
    )


def unwritable_folder_message(path: str) -> str:
    return (
        f"The folder of the database {path} is read-only for the user running the bot, and "
        "SQLite must create files beside the database; make the folder writable by that user, "
        "or choose another path."
    )


def vanished_message(path: str) -> str:
    return (
        f"The database file {path} was deleted or replaced while the bot was running, so "
        "nothing more can be saved; stop the bot, put the file back (or restore a backup, or "
        "let the bot create a new one) and start it again."
    )


def folder_unwritable(path: str) -> bool:
    """True if ``path`` does not exist and its folder exists but is not writable."""
    folder = os.path.dirname(os.path.abspath(path))
    return (
        not os.path.exists(path)
        and os.path.isdir(folder)
        and not os.access(folder, os.W_OK | os.X_OK)
    )


def folder_error(path: str, error: OSError) -> DatabaseOpenError:
    """The database's folder could not be created."""
    folder = os.path.dirname(os.path.abspath(path))
    return DatabaseOpenError(
        f"Cannot create the folder {folder} for the database {path} ({_reason(error)}); "
        "create it yourself (writable by the user running the bot), or choose another path."
    )


def _file_unusable_message(path: str, reason: str) -> str:
    return (
        f"Cannot open the database file {path} ({reason}); make it readable and writable by "
        "the user running the bot, or choose another path."
    )


def _file_unusable(path: str) -> bool:
    """True if ``path`` is a file that exists but may not be both read and written."""
    return os.path.isfile(path) and not os.access(path, os.R_OK | os.W_OK)


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__


def open_error(path: str, error: BaseException) -> DatabaseOpenError:
    """Turn a low-level error raised while opening into one clear sentence (the folder and
    the migrations have their own: ``folder_error``, ``MigrationError``)."""
    if isinstance(error, OSError):
        return DatabaseOpenError(_file_unusable_message(path, _reason(error)))
    name = error_name(error)
    if name.startswith(CORRUPT):
        return DatabaseOpenError(corrupt_message(path))
    if name.startswith(READONLY):
        return DatabaseUnwritableError(unwritable_message(path, error))
    if name.startswith("SQLITE_CANTOPEN") and folder_unwritable(path):
        return DatabaseUnwritableError(unwritable_folder_message(path))
    if name.startswith("SQLITE_CANTOPEN") and _file_unusable(path):
        # (a file it may read but not write opens read-only: check_writable says so)
        return DatabaseOpenError(_file_unusable_message(path, "permission denied"))
    if name.startswith(UNWRITABLE):
        return DatabaseOpenError(
            f"Cannot open the database {path} for writing ({error}); "
            "check that the file and its directory exist and are writable, or choose another path."
        )
    if name.startswith(BUSY):
        return DatabaseOpenError(
            f"The database {path} is locked by another program; "
            "stop the other process using it and start the bot again."
        )
    if name.startswith(FULL):
        return DatabaseOpenError(
            f"The disk holding the database {path} is full; free some space and start again."
        )
    return DatabaseOpenError(
        f"Cannot open the database {path} ({error}); check the file or restore it from a backup."
    )


def write_error(path: str, what: str, error: sqlite3.Error) -> DatabaseWriteError:
    """One sentence for a write that failed and was rolled back."""
    name = error_name(error)
    if name.startswith(READONLY):
        advice = "the database is read-only, so make the file and its folder writable again"
    elif name.startswith(FULL):
        advice = "the disk is full, so free some space"
    elif name.startswith(BUSY):
        advice = "another program holds the database locked, so stop it"
    elif name.startswith(CONSTRAINT):
        advice = "the database rejected the data, which is a bug in the bot worth reporting"
    elif name.startswith(CORRUPT):
        advice = "the file is damaged, so restore it from a backup"
    else:
        advice = "check the disk and the database file"
    return DatabaseWriteError(
        f"Could not {what} in the database {path} ({error}), so nothing of it was written; "
        f"{advice}."
    )


def file_id(path: str) -> FileId | None:
    """(st_dev, st_ino) of the file at ``path``, None if there is none (or it is in memory)."""
    if path == ":memory:" or path.startswith("file:") or not path:
        return None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)
