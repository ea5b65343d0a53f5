"""Play again: what a finished game leaves for its button (its seats and settings, the
session's JSON as a :class:`SavedGame`), and whether the button was used (it works once).

An offer is written when the game's result is recorded and is kept as long as the game's
move log (pruned with it, ``prune``). ``use_rematch`` is a compare and set: of two presses
at once, one takes the offer.
"""

from __future__ import annotations

import logging

from data import queries
from data.backend import Backend
from data.models import SavedGame

logger = logging.getLogger(__name__)


class Rematches:
    """The Play again offers of finished games."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    async def save_rematch(self, game: SavedGame) -> None:
        """Offer Play again for the finished ``game`` (``updated_at``: when it ended); an
        offer saved again for the same game is fresh (unused)."""
        async with self._backend.write(f"save the Play again of game {game.game_id}") as tx:
            await tx.execute(queries.UPSERT_REMATCH, (game.game_id, game.guild_id,
                                                      game.channel_id, game.state,
                                                      game.updated_at))

    async def load_rematch(self, guild_id: int, game_id: str) -> tuple[SavedGame, bool] | None:
        """The offer of ``game_id`` in ``guild_id`` and whether it was used, or None."""
        row = await self._backend.fetch_one(queries.LOAD_REMATCH, (guild_id, game_id))
        if row is None:
            return None
        return SavedGame.from_row(row), bool(row["used"])

    async def use_rematch(self, guild_id: int, game_id: str, used: bool = True) -> bool:
        """Mark the offer used (or, ``used=False``, give it back); False if it already was
        (or there is none)."""
        async with self._backend.write(f"use the Play again of game {game_id}") as tx:
            changed = await tx.execute(queries.USE_REMATCH,
                                       (int(used), guild_id, game_id, int(not used)))
        return changed == 1

    async def prune(self, older_than: int) -> int:
        """Delete the offers of games that ended before ``older_than`` (unix seconds)."""
        async with self._backend.write("prune old Play again offers") as tx:
            deleted = await tx.execute(queries.PRUNE_REMATCHES, (older_than,))
        if deleted:
            logger.info("Pruned %d Play again offers older than %d", deleted, older_than)
        return deleted
