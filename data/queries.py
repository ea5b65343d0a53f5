"""Every SQL statement the bot runs at run time (schema changes live in migrations/).

Portable SQL only, so the same statements can later run on PostgreSQL: ``?`` placeholders
(translate to ``$n`` in the PostgreSQL driver), ``INSERT ... ON CONFLICT (...) DO ...``,
``CASE`` instead of SQLite's two-argument ``MAX``, ``LIMIT ... OFFSET ...``.
Every statement touching guild data filters on ``guild_id`` (saved games are keyed by the
globally unique channel id, and ``LOAD_GAMES`` is the start-up sweep over all of them).
"""

from __future__ import annotations

from typing import Final, Literal

# --- guild settings ---------------------------------------------------------------------

GET_GUILD_SETTINGS: Final = """
SELECT guild_id, target, scoring, grab2_points, edition, turn_timer, mention_turn, shuffle_seats
FROM guild_settings
WHERE guild_id = ?
"""

UPSERT_GUILD_SETTINGS: Final = """
INSERT INTO guild_settings
    (guild_id, target, scoring, grab2_points, edition, turn_timer, mention_turn, shuffle_seats)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id) DO UPDATE SET
    target = excluded.target,
    scoring = excluded.scoring,
    grab2_points = excluded.grab2_points,
    edition = excluded.edition,
    turn_timer = excluded.turn_timer,
    mention_turn = excluded.mention_turn,
    shuffle_seats = excluded.shuffle_seats
"""

# --- saved games ------------------------------------------------------------------------

UPSERT_GAME: Final = """
INSERT INTO saved_games (channel_id, guild_id, game_id, state, updated_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (channel_id) DO UPDATE SET
    guild_id = excluded.guild_id,
    game_id = excluded.game_id,
    state = excluded.state,
    updated_at = excluded.updated_at
"""

DELETE_GAME: Final = "DELETE FROM saved_games WHERE channel_id = ?"

LOAD_GAMES: Final = """
SELECT channel_id, guild_id, game_id, state, updated_at
FROM saved_games
ORDER BY guild_id, channel_id
"""

LOAD_GAME: Final = """
SELECT channel_id, guild_id, game_id, state, updated_at
FROM saved_games
WHERE channel_id = ?
"""

# --- finished games ---------------------------------------------------------------------

INSERT_RESULT: Final = """
INSERT INTO game_results (game_id, guild_id, channel_id, edition, finished_at, rounds)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (game_id) DO NOTHING
"""

INSERT_PLAYER_RESULT: Final = """
INSERT INTO game_players
    (game_id, guild_id, user_id, score, won, rounds_won, towers_grabbed, best_round)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""

ADD_TO_PLAYER_STATS: Final = """
INSERT INTO player_stats
    (guild_id, user_id, games_played, games_won, rounds_won, points, towers_grabbed, best_round)
VALUES (?, ?, 1, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id, user_id) DO UPDATE SET
    games_played = player_stats.games_played + 1,
    games_won = player_stats.games_won + excluded.games_won,
    rounds_won = player_stats.rounds_won + excluded.rounds_won,
    points = player_stats.points + excluded.points,
    towers_grabbed = player_stats.towers_grabbed + excluded.towers_grabbed,
    best_round = CASE
        WHEN excluded.best_round > player_stats.best_round THEN excluded.best_round
        ELSE player_stats.best_round
    END
"""

# Only the saved game of the game being recorded: a new game already running in the same
# channel (different game_id) is left alone.
DELETE_FINISHED_GAME: Final = """
DELETE FROM saved_games
WHERE guild_id = ? AND channel_id = ? AND game_id = ?
"""

# --- leaderboard ------------------------------------------------------------------------

_STATS_COLUMNS: Final = (
    "guild_id, user_id, games_played, games_won, rounds_won, points, towers_grabbed, best_round"
)

LEADERBOARD: Final[dict[Literal["wins", "points"], str]] = {
    "wins": f"""
SELECT {_STATS_COLUMNS}
FROM player_stats
WHERE guild_id = ?
ORDER BY games_won DESC, points DESC, user_id ASC
LIMIT ? OFFSET ?
""",
    "points": f"""
SELECT {_STATS_COLUMNS}
FROM player_stats
WHERE guild_id = ?
ORDER BY points DESC, games_won DESC, user_id ASC
LIMIT ? OFFSET ?
""",
}

LEADERBOARD_SIZE: Final = "SELECT COUNT(*) AS n FROM player_stats WHERE guild_id = ?"

PLAYER_STATS: Final = f"""
SELECT {_STATS_COLUMNS}
FROM player_stats
WHERE guild_id = ? AND user_id = ?
"""
