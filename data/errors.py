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


class DatabaseUnwritableError(DatabaseOpenError):
    """The database (or its folder) can be read but not written: refused at open."""


class DatabaseWriteError(DatabaseError):
    """A write failed and was rolled back: nothing of it was stored."""


class DatabaseCommitUnknownError(DatabaseWriteError):
    """PostgreSQL: the connection was lost while COMMIT was on its way, so the server may
    have stored the write or not. Raised only by ``Backend.write`` blocks; a save
    (``write_rows``, idempotent) is written again instead, so that its caller learns what
    is stored."""


class DatabaseVanishedError(DatabaseError):
    """The database file was deleted or replaced under the running bot; nothing was written."""


class DatabaseUnreachableError(DatabaseError):
    """The database server cannot be reached right now (PostgreSQL: the connection was lost
    and could not be opened again); the next call tries again."""
