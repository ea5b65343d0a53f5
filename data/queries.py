"""Every SQL statement the bot runs at run time (schema changes live in migrations/).

Portable SQL only, so the same statements can later run on PostgreSQL: ``?`` placeholders
(translate to ``$n`` in the PostgreSQL driver), ``INSERT ... ON CONFLICT (...) DO ...``,
``CASE`` instead of SQLite's two-argument ``MAX``, ``LIMIT ... OFFSET ...``.
Every statement touching guild data filters on ``guild_id`` (saved games are keyed by the
globally unique channel id; ``LOAD_GAMES``, ``SET_ASIDE_GAMES`` and ``PRUNE_LOGS`` are
bot-wide sweeps over all guilds).
"""

from __future__ import annotations

from typing import Final, Literal

# --- guild settings ---------------------------------------------------------------------

GET_GUILD_SETTINGS: Final = """
SELECT guild_id, target, scoring, grab2_points, edition, turn_timer, mention_turn, shuffle_seats,
       threads, language, missed_turns
FROM guild_settings
WHERE guild_id = ?
"""

UPSERT_GUILD_SETTINGS: Final = """
INSERT INTO guild_settings
    (guild_id, target, scoring, grab2_points, edition, turn_timer, mention_turn, shuffle_seats,
     threads, language, missed_turns)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id) DO UPDATE SET
    target = excluded.target,
    scoring = excluded.scoring,
    grab2_points = excluded.grab2_points,
    edition = excluded.edition,
    turn_timer = excluded.turn_timer,
    mention_turn = excluded.mention_turn,
    shuffle_seats = excluded.shuffle_seats,
    threads = excluded.threads,
    language = excluded.language,
    missed_turns = excluded.missed_turns
"""

# --- a person's own settings --------------------------------------------------------------

GET_USER_SETTINGS: Final = """
SELECT user_id, high_contrast
FROM user_settings
WHERE user_id = ?
"""

UPSERT_USER_SETTINGS: Final = """
INSERT INTO user_settings (user_id, high_contrast)
VALUES (?, ?)
ON CONFLICT (user_id) DO UPDATE SET
    high_contrast = excluded.high_contrast
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



def load_games_of_shards(shards: int) -> str:
    """``LOAD_GAMES`` of the servers of some shards only (Discord's shard of a server:
    ``(guild_id >> 22) % shard_count``): parameters the shard count, then the ``shards``
    shard ids. The rows of other shards are never read out of the database, but for the
    few keyed by their own channel (``guild_id = channel_id``: a group DM's game, served by
    shard 0, or a server's first channel), which the caller assigns."""
    marks = ", ".join("?" * shards)
    return f"""
SELECT channel_id, guild_id, game_id, state, updated_at
FROM saved_games
WHERE (guild_id >> 22) % ? IN ({marks}) OR guild_id = channel_id
ORDER BY guild_id, channel_id
"""


LOAD_GAME: Final = """
SELECT channel_id, guild_id, game_id, state, updated_at
FROM saved_games
WHERE channel_id = ?
"""

# --- finished games ---------------------------------------------------------------------

INSERT_RESULT: Final = """
INSERT INTO game_results (game_id, guild_id, channel_id, edition, finished_at, rounds, kind)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (game_id) DO NOTHING
"""

INSERT_PLAYER_RESULT: Final = """
INSERT INTO game_players
    (game_id, guild_id, user_id, score, won, rounds_won, towers_grabbed, best_round, team)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

ADD_TO_PLAYER_STATS: Final = """
INSERT INTO player_stats
    (guild_id, user_id, games_played, games_won, rounds_won, points, towers_grabbed, best_round,
     team_games, team_wins, tournaments_played, tournament_wins)
VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id, user_id) DO UPDATE SET
    games_played = player_stats.games_played + 1,
    team_games = player_stats.team_games + excluded.team_games,
    team_wins = player_stats.team_wins + excluded.team_wins,
    tournaments_played = player_stats.tournaments_played + excluded.tournaments_played,
    tournament_wins = player_stats.tournament_wins + excluded.tournament_wins,
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

DELETE_GUILD_GAME: Final = """
DELETE FROM saved_games
WHERE guild_id = ? AND channel_id = ?
"""

# --- leaderboard ------------------------------------------------------------------------

_STATS_COLUMNS: Final = (
    "guild_id, user_id, games_played, games_won, rounds_won, points, towers_grabbed, best_round,"
    " team_games, team_wins, tournaments_played, tournament_wins"
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

# --- move log ---------------------------------------------------------------------------

_LOG_COLUMNS: Final = "game_id, guild_id, channel_id, seq, entry, created_at"

# A move's sequence number decides: writing the same (game_id, seq) again keeps the latest
# entry, as the snapshot written with it is the latest. Saving the same thing twice stores
# it once (a save whose COMMIT had an unknown outcome is written again: data/postgres.py),
# and a move the bot undid after a save that failed for it, but was stored, is replaced by
# the move made in its place.
INSERT_LOG_ENTRY: Final = f"""
INSERT INTO game_log ({_LOG_COLUMNS})
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (game_id, seq) DO UPDATE SET
    guild_id = excluded.guild_id,
    channel_id = excluded.channel_id,
    entry = excluded.entry,
    created_at = excluded.created_at
"""

GAME_LOG: Final = f"""
SELECT {_LOG_COLUMNS}
FROM game_log
WHERE guild_id = ? AND game_id = ?
ORDER BY seq ASC
"""

# The header (seq 0) and the newest ? moves, oldest first.
GAME_LOG_LAST: Final = f"""
SELECT {_LOG_COLUMNS}
FROM game_log
WHERE guild_id = ? AND game_id = ? AND seq = 0
UNION ALL
SELECT {_LOG_COLUMNS}
FROM (
    SELECT {_LOG_COLUMNS}
    FROM game_log
    WHERE guild_id = ? AND game_id = ? AND seq > 0
    ORDER BY seq DESC
    LIMIT ?
) AS newest
ORDER BY seq ASC
"""

# Ties on the start time are broken by game_id so the answer never depends on row order.
LATEST_GAME_ID: Final = """
SELECT game_id
FROM game_log
WHERE guild_id = ? AND channel_id = ? AND seq = 0
ORDER BY created_at DESC, game_id DESC
LIMIT 1
"""

# Logs of games started before ? that are neither saved (still running) nor set aside.
PRUNE_LOGS: Final = """
DELETE FROM game_log
WHERE game_id IN (
    SELECT header.game_id
    FROM game_log AS header
    WHERE header.seq = 0
      AND header.created_at < ?
      AND NOT EXISTS (SELECT 1 FROM saved_games AS s WHERE s.game_id = header.game_id)
      AND NOT EXISTS (SELECT 1 FROM set_aside_games AS a WHERE a.game_id = header.game_id)
)
"""

# --- Play again: a finished game's seats and settings -----------------------------------

# A game recorded again (its recording was undone and redone) offers Play again afresh.
UPSERT_REMATCH: Final = """
INSERT INTO rematches (game_id, guild_id, channel_id, state, created_at, used)
VALUES (?, ?, ?, ?, ?, 0)
ON CONFLICT (game_id) DO UPDATE SET
    state = excluded.state,
    created_at = excluded.created_at,
    used = 0
"""

LOAD_REMATCH: Final = """
SELECT game_id, guild_id, channel_id, state, created_at AS updated_at, used
FROM rematches
WHERE guild_id = ? AND game_id = ?
"""

# Compare and set: only one press takes an unused offer.
USE_REMATCH: Final = """
UPDATE rematches SET used = ?
WHERE guild_id = ? AND game_id = ? AND used = ?
"""

PRUNE_REMATCHES: Final = """
DELETE FROM rematches WHERE created_at < ?
"""

# --- set-aside games --------------------------------------------------------------------

_SET_ASIDE_COLUMNS: Final = "channel_id, guild_id, game_id, state, reason, set_aside_at"

# Setting the same game aside again keeps its newest state (a move overwrites).
INSERT_SET_ASIDE: Final = f"""
INSERT INTO set_aside_games ({_SET_ASIDE_COLUMNS})
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (channel_id, game_id) DO UPDATE SET
    guild_id = excluded.guild_id,
    state = excluded.state,
    reason = excluded.reason,
    set_aside_at = excluded.set_aside_at
"""

DELETE_SET_ASIDE_SOURCE: Final = "DELETE FROM saved_games WHERE channel_id = ? AND game_id = ?"

SET_ASIDE_GAMES: Final = f"""
SELECT {_SET_ASIDE_COLUMNS}
FROM set_aside_games
ORDER BY set_aside_at ASC, channel_id ASC, game_id ASC
"""

SET_ASIDE_GAMES_OF_GUILD: Final = f"""
SELECT {_SET_ASIDE_COLUMNS}
FROM set_aside_games
WHERE guild_id = ?
ORDER BY set_aside_at ASC, channel_id ASC, game_id ASC
"""

# --- opening ----------------------------------------------------------------------------

# Run at open inside BEGIN IMMEDIATE ... ROLLBACK: a real write that leaves nothing behind,
# so a database SQLite quietly opened read-only is refused at start-up, not at the first save.
WRITE_CHECK: Final = "CREATE TABLE open_write_check (x INTEGER)"
