-- 0003: sheet 004 (the Victory Lap edition, partner play, tournaments) and games in threads.
-- Portable SQL only, like 0001. A CHECK constraint can't be changed in place, so the two
-- tables whose edition CHECK gains 'victory-lap' are rebuilt (create, copy, drop, rename).
-- game_players references game_results with ON DELETE CASCADE: its rows are copied aside
-- first, so dropping the old game_results deletes nothing that is not put back.

-- Server defaults: the new edition, and whether /uno new opens its game in a thread.
CREATE TABLE guild_settings_v3 (
    guild_id      BIGINT  NOT NULL PRIMARY KEY,
    target        INTEGER NOT NULL CHECK (target BETWEEN 100 AND 5000),
    scoring       TEXT    NOT NULL CHECK (scoring IN ('standard', 'alternative')),
    grab2_points  INTEGER NOT NULL CHECK (grab2_points IN (20, 50)),
    edition       TEXT    NOT NULL CHECK (edition IN ('power-grab', 'classic', 'victory-lap')),
    turn_timer    INTEGER NOT NULL CHECK (turn_timer BETWEEN 10 AND 600),
    mention_turn  INTEGER NOT NULL CHECK (mention_turn IN (0, 1)),
    shuffle_seats INTEGER NOT NULL CHECK (shuffle_seats IN (0, 1)),
    threads       INTEGER NOT NULL DEFAULT 0 CHECK (threads IN (0, 1))
);
INSERT INTO guild_settings_v3
    (guild_id, target, scoring, grab2_points, edition, turn_timer, mention_turn, shuffle_seats,
     threads)
SELECT guild_id, target, scoring, grab2_points, edition, turn_timer, mention_turn,
       shuffle_seats, 0
FROM guild_settings;
DROP TABLE guild_settings;
ALTER TABLE guild_settings_v3 RENAME TO guild_settings;

-- Finished games: the new edition, and what kind of game it was.
CREATE TABLE game_players_copy AS SELECT * FROM game_players;
DROP TABLE game_players;

CREATE TABLE game_results_v3 (
    game_id     TEXT    NOT NULL PRIMARY KEY,
    guild_id    BIGINT  NOT NULL,
    channel_id  BIGINT  NOT NULL,
    edition     TEXT    NOT NULL CHECK (edition IN ('power-grab', 'classic', 'victory-lap')),
    finished_at BIGINT  NOT NULL,
    rounds      INTEGER NOT NULL CHECK (rounds >= 0),
    kind        TEXT    NOT NULL DEFAULT 'solo'
                CHECK (kind IN ('solo', 'partners', 'rotating', 'tournament'))
);
INSERT INTO game_results_v3 (game_id, guild_id, channel_id, edition, finished_at, rounds, kind)
SELECT game_id, guild_id, channel_id, edition, finished_at, rounds, 'solo'
FROM game_results;
DROP TABLE game_results;
ALTER TABLE game_results_v3 RENAME TO game_results;
CREATE INDEX game_results_guild ON game_results (guild_id, finished_at);

-- team: the player's team (0, 1, ...) in a partner game; NULL when everyone played alone or
-- partners changed from hand to hand.
CREATE TABLE game_players (
    game_id        TEXT    NOT NULL REFERENCES game_results (game_id) ON DELETE CASCADE,
    guild_id       BIGINT  NOT NULL,
    user_id        BIGINT  NOT NULL,
    score          INTEGER NOT NULL CHECK (score >= 0),
    won            INTEGER NOT NULL CHECK (won IN (0, 1)),
    rounds_won     INTEGER NOT NULL CHECK (rounds_won >= 0),
    towers_grabbed INTEGER NOT NULL CHECK (towers_grabbed >= 0),
    best_round     INTEGER NOT NULL CHECK (best_round >= 0),
    team           INTEGER CHECK (team IS NULL OR team >= 0),
    PRIMARY KEY (game_id, user_id)
);
INSERT INTO game_players
    (game_id, guild_id, user_id, score, won, rounds_won, towers_grabbed, best_round, team)
SELECT game_id, guild_id, user_id, score, won, rounds_won, towers_grabbed, best_round, NULL
FROM game_players_copy;
DROP TABLE game_players_copy;
CREATE INDEX game_players_user ON game_players (guild_id, user_id);

-- Leaderboard: partner games (fixed or rotating partners) and tournaments, counted apart.
ALTER TABLE player_stats ADD COLUMN team_games INTEGER NOT NULL DEFAULT 0
    CHECK (team_games >= 0);
ALTER TABLE player_stats ADD COLUMN team_wins INTEGER NOT NULL DEFAULT 0
    CHECK (team_wins >= 0);
ALTER TABLE player_stats ADD COLUMN tournaments_played INTEGER NOT NULL DEFAULT 0
    CHECK (tournaments_played >= 0);
ALTER TABLE player_stats ADD COLUMN tournament_wins INTEGER NOT NULL DEFAULT 0
    CHECK (tournament_wins >= 0);
