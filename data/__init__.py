"""Storage layer: a SQLite file (aiosqlite, the default) or a PostgreSQL server (asyncpg,
``DATABASE_URL``), through the same portable SQL."""

from data.database import Database
from data.errors import (
    DatabaseCommitUnknownError,
    DatabaseError,
    DatabaseOpenError,
    DatabaseUnreachableError,
    DatabaseUnwritableError,
    DatabaseVanishedError,
    DatabaseVersionError,
    DatabaseWriteError,
    MigrationError,
)
from data.models import (
    GameResult,
    GuildSettings,
    LogEntry,
    PlayerResult,
    PlayerStats,
    SavedGame,
    SetAsideGame,
    UserSettings,
)

__all__ = [
    "Database",
    "DatabaseCommitUnknownError",
    "DatabaseError",
    "DatabaseOpenError",
    "DatabaseUnreachableError",
    "DatabaseUnwritableError",
    "DatabaseVanishedError",
    "DatabaseVersionError",
    "DatabaseWriteError",
    "GameResult",
    "GuildSettings",
    "LogEntry",
    "MigrationError",
    "PlayerResult",
    "PlayerStats",
    "SavedGame",
    "SetAsideGame",
    "UserSettings",
]
