"""Errors raised by the storage layer.

Every message is one sentence saying what is wrong and what to do, so start-up code can log
``str(error)`` and exit without a traceback.
"""

from __future__ import annotations


class DatabaseError(Exception):
    """Base class of every error raised on purpose by ``data``."""


class DatabaseOpenError(DatabaseError):
    """The database file cannot be opened: bad path, no permission, corrupt file, locked."""


class DatabaseVersionError(DatabaseOpenError):
    """The database was written by a newer version of the bot than this one."""


class MigrationError(DatabaseOpenError):
    """The migration files shipped with the code are inconsistent or one failed to apply."""
