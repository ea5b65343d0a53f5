-- 0001: initial schema.
-- Portable SQL only (SQLite now, PostgreSQL later): BIGINT for Discord snowflakes and unix
-- timestamps (seconds), INTEGER 0/1 for booleans, CHECK constraints mirror the dataclass rules.

CREATE TABLE guild_settings (
    guild_id      BIGINT  NOT NULL PRIMARY KEY,
    target        INTEGER NOT NULL CHECK (target BETWEEN 100 AND 5000),
    scoring       TEXT    NOT NULL CHECK (scoring IN ('standard', 'alternative')),
    grab2_points  INTEGER NOT NULL CHECK (grab2_points IN (20, 50)),
    edition       TEXT    NOT NULL CHECK (edition IN ('power-grab', 'classic')),
    turn_timer    INTEGER NOT NULL CHECK (turn_timer BETWEEN 10 AND 600),
    mention_turn  INTEGER NOT NULL CHECK (mention_turn IN (0, 1)),
    shuffle_seats INTEGER NOT NULL CHECK (shuffle_seats IN (0, 1))
);

-- One game in progress per channel; state is the engine's opaque JSON text.
CREATE TABLE saved_games (
    channel_id BIGINT NOT NULL PRIMARY KEY,
    guild_id   BIGINT NOT NULL,
    game_id    TEXT   NOT NULL,
    state      TEXT   NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX saved_games_guild ON saved_games (guild_id);

-- Finished games; the primary key makes recording idempotent.
CREATE TABLE game_results (
    game_id     TEXT    NOT NULL PRIMARY KEY,
    guild_id    BIGINT  NOT NULL,
    channel_id  BIGINT  NOT NULL,
    edition     TEXT    NOT NULL CHECK (edition IN ('power-grab', 'classic')),
    finished_at BIGINT  NOT NULL,
    rounds      INTEGER NOT NULL CHECK (rounds >= 0)
);
CREATE INDEX game_results_guild ON game_results (guild_id, finished_at);

CREATE TABLE game_players (
    game_id        TEXT    NOT NULL REFERENCES game_results (game_id) ON DELETE CASCADE,
    guild_id       BIGINT  NOT NULL,
    user_id        BIGINT  NOT NULL,
    score          INTEGER NOT NULL CHECK (score >= 0),
    won            INTEGER NOT NULL CHECK (won IN (0, 1)),
    rounds_won     INTEGER NOT NULL CHECK (rounds_won >= 0),
    towers_grabbed INTEGER NOT NULL CHECK (towers_grabbed >= 0),
    best_round     INTEGER NOT NULL CHECK (best_round >= 0),
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX game_players_user ON game_players (guild_id, user_id);

-- Leaderboard: running totals per (guild, user), maintained by record_game.
CREATE TABLE player_stats (
    guild_id       BIGINT  NOT NULL,
    user_id        BIGINT  NOT NULL,
    games_played   INTEGER NOT NULL CHECK (games_played >= 0),
    games_won      INTEGER NOT NULL CHECK (games_won >= 0),
    rounds_won     INTEGER NOT NULL CHECK (rounds_won >= 0),
    points         BIGINT  NOT NULL CHECK (points >= 0),
    towers_grabbed INTEGER NOT NULL CHECK (towers_grabbed >= 0),
    best_round     INTEGER NOT NULL CHECK (best_round >= 0),
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX player_stats_by_wins ON player_stats (guild_id, games_won DESC, points DESC, user_id);
CREATE INDEX player_stats_by_points ON player_stats (guild_id, points DESC, games_won DESC, user_id);
