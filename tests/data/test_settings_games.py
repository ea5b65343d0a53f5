"""Guild settings (defaults, upsert, validation) and saved games (survive a restart)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from data import Database, DatabaseWriteError, GuildSettings, SavedGame, UserSettings
from support.data import REJECTED, opened

# --- guild settings ---------------------------------------------------------------------


async def test_defaults_when_the_guild_has_no_row(db: Database) -> None:
    settings = await db.get_guild_settings(42)
    assert settings == GuildSettings(guild_id=42)
    assert (
        settings.target,
        settings.scoring,
        settings.grab2_points,
        settings.edition,
        settings.turn_timer,
        settings.mention_turn,
        settings.shuffle_seats,
    ) == (500, "standard", 20, "power-grab", 90, True, False)


async def test_settings_upsert_and_survive_reopen(db_path: str) -> None:
    async with opened(db_path) as db:
        await _settings_first_session(db)
    async with opened(db_path) as db:
        got = await db.get_guild_settings(1)
        assert got == GuildSettings(guild_id=1, target=100, turn_timer=600)
        assert isinstance(got.mention_turn, bool) and isinstance(got.shuffle_seats, bool)


async def _settings_first_session(db: Database) -> None:
    first = GuildSettings(
        guild_id=1,
        target=1000,
        scoring="alternative",
        grab2_points=50,
        edition="classic",
        turn_timer=30,
        mention_turn=False,
        shuffle_seats=True,
    )
    await db.set_guild_settings(first)
    assert await db.get_guild_settings(1) == first
    second = GuildSettings(guild_id=1, target=100, turn_timer=600)
    await db.set_guild_settings(second)  # same guild: update, not a second row
    assert await db.get_guild_settings(1) == second
    assert await db.get_guild_settings(2) == GuildSettings(guild_id=2)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("target", 99),
        ("target", 5001),
        ("target", "500"),
        ("scoring", "golf"),
        ("grab2_points", 30),
        ("edition", "flip"),
        ("turn_timer", 0),
        ("turn_timer", 9),
        ("turn_timer", 601),
        ("mention_turn", 1),
        ("shuffle_seats", "yes"),
    ],
)
def test_invalid_settings_are_rejected_with_the_setting_named(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field) as info:
        GuildSettings(guild_id=1, **{field: value})
    message = str(info.value)
    assert message.endswith(".") and "\n" not in message


@pytest.mark.parametrize(
    "kwargs",
    [
        {"target": 100},
        {"target": 5000},
        {"turn_timer": 10},
        {"turn_timer": 600},
        {"grab2_points": 50},
        {"scoring": "alternative"},
        {"edition": "classic"},
    ],
)
def test_boundary_settings_are_accepted(kwargs: dict[str, Any]) -> None:
    GuildSettings(guild_id=1, **kwargs)


async def test_schema_rejects_invalid_settings_that_bypass_validation(db: Database) -> None:
    settings = GuildSettings(guild_id=1)
    object.__setattr__(settings, "turn_timer", 0)
    with pytest.raises(DatabaseWriteError) as info:
        await db.set_guild_settings(settings)
    assert isinstance(info.value.__cause__, REJECTED)
    assert await db.get_guild_settings(1) == GuildSettings(guild_id=1)


# --- saved games ------------------------------------------------------------------------


def _game(channel_id: int, guild_id: int = 1, game_id: str = "g", at: int = 1) -> SavedGame:
    state = json.dumps({"channel": channel_id, "turn": "111", "hand": ["R7", "W"], "é": "ü"})
    return SavedGame(channel_id, guild_id, f"{game_id}-{channel_id}", state, at)


async def test_games_survive_close_and_reopen(db_path: str) -> None:
    games = [_game(10, guild_id=1), _game(11, guild_id=1), _game(20, guild_id=2)]
    async with opened(db_path) as db:
        for game in games:
            await db.save_game(game)
    async with opened(db_path) as db:
        assert sorted(await db.load_games(), key=lambda g: g.channel_id) == games
        assert await db.load_game(20) == games[2]


async def test_save_game_replaces_the_channel_s_game(db: Database) -> None:
    await db.save_game(_game(10, at=1))
    newer = SavedGame(10, 1, "other", '{"round": 2}', 99)
    await db.save_game(newer)
    assert await db.load_game(10) == newer
    assert await db.load_games() == [newer]


async def test_delete_game(db_path: str) -> None:
    async with opened(db_path) as db:
        await db.save_game(_game(10))
        await db.save_game(_game(11))
        await db.delete_game(10)
        await db.delete_game(12345)  # nothing saved there: no error
        assert await db.load_game(10) is None
    async with opened(db_path) as db:
        assert [g.channel_id for g in await db.load_games()] == [11]


async def test_load_game_of_an_unknown_channel_is_none(db: Database) -> None:
    assert await db.load_game(1) is None
    assert await db.load_games() == []


async def test_large_state_round_trips_exactly(db: Database) -> None:
    state = json.dumps({"log": ["x" * 100] * 20_000, "rng": [2**62, -1, 0.5]})
    game = SavedGame(10, 1, "big", state, 7)
    await db.save_game(game)
    assert (await db.load_game(10)) == game


def test_saved_game_validation() -> None:
    with pytest.raises(ValueError, match="game_id"):
        SavedGame(1, 1, "", "{}", 0)
    with pytest.raises(ValueError, match="state"):
        SavedGame(1, 1, "g", {"a": 1}, 0)  # type: ignore[arg-type]


async def test_a_persons_own_settings_default_save_and_refuse_bad_values(db: Database) -> None:
    """Issue 11: the high-contrast look is a person's own choice, the same everywhere."""
    assert await db.get_user_settings(7) == UserSettings(7, high_contrast=False)
    await db.set_user_settings(UserSettings(7, high_contrast=True))
    assert (await db.get_user_settings(7)).high_contrast is True
    assert (await db.get_user_settings(8)).high_contrast is False, "one person's only"
    await db.set_user_settings(UserSettings(7, high_contrast=False))
    assert (await db.get_user_settings(7)).high_contrast is False
    with pytest.raises(ValueError, match="high_contrast"):
        UserSettings(7, high_contrast=1)  # type: ignore[arg-type]
