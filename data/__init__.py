"""Storage layer: SQLite via aiosqlite now, portable SQL for PostgreSQL later."""

from data.database import Database
from data.errors import DatabaseError, DatabaseOpenError, DatabaseVersionError, MigrationError
from data.models import GameResult, GuildSettings, PlayerResult, PlayerStats, SavedGame

__all__ = [
    "Database",
    "DatabaseError",
    "DatabaseOpenError",
    "DatabaseVersionError",
    "GameResult",
    "GuildSettings",
    "MigrationError",
    "PlayerResult",
    "PlayerStats",
    "SavedGame",
]
