"""Finished games and the leaderboard: recording a result (its players, their running
totals, its last log entries, the saved games it ends) and reading the totals back."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from data import queries
from data.backend import Backend
from data.log import check_log, insert_log
from data.models import TEAM_KINDS, GameResult, LogEntry, PlayerStats

logger = logging.getLogger(__name__)

LEADERBOARD_MAX_LIMIT = 100


class Results:
    """The finished games of every guild and each guild's leaderboard."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    async def record_game(self, result: GameResult, log: Sequence[LogEntry] = (), *,
                          also_delete: Sequence[int] = ()) -> bool:
        """Record a finished game in one transaction; False if ``game_id`` was already recorded.

        Inserts the result and its players, adds each player's numbers to the leaderboard of
        ``result.guild_id``, adds the ``log`` entries (one already stored is replaced) and
        deletes the saved game of ``result.channel_id`` if it has the same ``game_id``, and
        the saved games of the guild's channels ``also_delete`` (a tournament's tables). When
        the game was already recorded nothing at all is written (log entries included). On
        any error nothing is changed and ``DatabaseWriteError`` propagates. Every log entry
        must belong to the game, else ``ValueError`` before anything is written.
        """
        # A tournament's last hand is logged in its table's channel, under that hand's id.
        tables = set(also_delete)
        for table in tables:
            check_log([e for e in log if getattr(e, "channel_id", None) == table], None,
                      result.guild_id, table)
        check_log([e for e in log if getattr(e, "channel_id", None) not in tables],
                  result.game_id, result.guild_id, result.channel_id)
        async with self._backend.write(f"record the finished game {result.game_id}") as tx:
            inserted = await tx.execute(
                queries.INSERT_RESULT,
                (
                    result.game_id,
                    result.guild_id,
                    result.channel_id,
                    result.edition,
                    result.finished_at,
                    result.rounds,
                    result.kind,
                ),
            )
            team_game = int(result.kind in TEAM_KINDS)
            tournament = int(result.kind == "tournament")
            if inserted == 0:
                logger.info("Game %s was already recorded; nothing changed", result.game_id)
                return False
            for player in result.players:
                await tx.execute(
                    queries.INSERT_PLAYER_RESULT,
                    (
                        result.game_id,
                        result.guild_id,
                        player.user_id,
                        player.score,
                        int(player.won),
                        player.rounds_won,
                        player.towers_grabbed,
                        player.best_round,
                        player.team,
                    ),
                )
                await tx.execute(
                    queries.ADD_TO_PLAYER_STATS,
                    (
                        result.guild_id,
                        player.user_id,
                        int(player.won),
                        player.rounds_won,
                        player.score,
                        player.towers_grabbed,
                        player.best_round,
                        team_game,
                        team_game * int(player.won),
                        tournament,
                        tournament * int(player.won),
                    ),
                )
            await insert_log(tx, log)
            await tx.execute(
                queries.DELETE_FINISHED_GAME,
                (result.guild_id, result.channel_id, result.game_id),
            )
            for channel_id in also_delete:
                await tx.execute(queries.DELETE_GUILD_GAME, (result.guild_id, channel_id))
        logger.info(
            "Recorded game %s in guild %d with %d players",
            result.game_id,
            result.guild_id,
            len(result.players),
        )
        return True

    async def leaderboard(
        self,
        guild_id: int,
        order: Literal["wins", "points"],
        limit: int = 10,
        offset: int = 0,
    ) -> list[PlayerStats]:
        """One page of the guild's leaderboard.

        "wins": games_won desc, points desc, user_id; "points": points desc, games_won desc,
        user_id. ``limit`` is 1..100, ``offset`` 0 or more.
        """
        sql = queries.LEADERBOARD.get(order)
        if sql is None:
            raise ValueError(f"order must be 'wins' or 'points', got {order!r}.")
        if not 1 <= limit <= LEADERBOARD_MAX_LIMIT:
            raise ValueError(f"limit must be from 1 to {LEADERBOARD_MAX_LIMIT}, got {limit!r}.")
        if offset < 0:
            raise ValueError(f"offset must be 0 or more, got {offset!r}.")
        rows = await self._backend.fetch_all(sql, (guild_id, limit, offset))
        return [PlayerStats.from_row(row) for row in rows]

    async def leaderboard_size(self, guild_id: int) -> int:
        """How many players have a leaderboard row in the guild."""
        row = await self._backend.fetch_one(queries.LEADERBOARD_SIZE, (guild_id,))
        return int(row["n"]) if row is not None else 0

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        row = await self._backend.fetch_one(queries.PLAYER_STATS, (guild_id, user_id))
        return PlayerStats.from_row(row) if row is not None else None
