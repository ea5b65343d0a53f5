"""Storage layer: SQLite via aiosqlite now, portable SQL for PostgreSQL later."""

from data.database import Database
from data.errors import (
    DatabaseError,
    DatabaseOpenError,
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
    "DatabaseError",
    "DatabaseOpenError",
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
