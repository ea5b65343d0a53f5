"""Play again offers (data/rematches.py): kept per finished game, used once (compare and
set), given back, read only within their guild, pruned with the move logs."""

from __future__ import annotations

from data import Database, SavedGame

OFFER = SavedGame(channel_id=10, guild_id=1, game_id="a1b2c3", state='{"seats": []}',
                  updated_at=1_000)


async def test_an_offer_is_used_once_and_can_be_given_back(db: Database) -> None:
    assert await db.load_rematch(1, "a1b2c3") is None
    await db.save_rematch(OFFER)
    assert await db.load_rematch(1, "a1b2c3") == (OFFER, False)
    assert await db.load_rematch(2, "a1b2c3") is None, "another guild's game"
    assert await db.use_rematch(1, "a1b2c3")
    assert not await db.use_rematch(1, "a1b2c3"), "a second press takes nothing"
    assert await db.load_rematch(1, "a1b2c3") == (OFFER, True)
    assert await db.use_rematch(1, "a1b2c3", used=False)
    assert await db.load_rematch(1, "a1b2c3") == (OFFER, False)
    await db.use_rematch(1, "a1b2c3")
    await db.save_rematch(OFFER)  # the game recorded again (its recording was redone)
    assert await db.load_rematch(1, "a1b2c3") == (OFFER, False)


async def test_offers_are_pruned_with_the_move_logs(db: Database) -> None:
    await db.save_rematch(OFFER)
    await db.save_rematch(SavedGame(channel_id=11, guild_id=1, game_id="d4e5f6", state="{}",
                                    updated_at=5_000))
    await db.prune_logs(2_000)
    assert await db.load_rematch(1, "a1b2c3") is None
    assert await db.load_rematch(1, "d4e5f6") is not None
