-- 0002: a move log per game, and games set aside (kept, never deleted) instead of dropped.
-- Portable SQL only, like 0001.

-- One row per logged event: seq 0 is the game's header (its start), then 1, 2, 3 ... one per
-- move. entry is JSON text the storage layer never looks into. The primary key makes writing
-- the same entry twice a no-op.
CREATE TABLE game_log (
    game_id    TEXT    NOT NULL,
    guild_id   BIGINT  NOT NULL,
    channel_id BIGINT  NOT NULL,
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    entry      TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (game_id, seq)
);
-- "Newest game logged in this channel" looks up headers by (guild, channel, time).
CREATE INDEX game_log_channel ON game_log (guild_id, channel_id, created_at);

-- A saved game taken out of play (damaged state, a failure while resuming, an operator's
-- request), kept for inspection or a later restore.
CREATE TABLE set_aside_games (
    channel_id   BIGINT NOT NULL,
    guild_id     BIGINT NOT NULL,
    game_id      TEXT   NOT NULL,
    state        TEXT   NOT NULL,
    reason       TEXT   NOT NULL,
    set_aside_at BIGINT NOT NULL,
    PRIMARY KEY (channel_id, game_id)
);
CREATE INDEX set_aside_games_guild ON set_aside_games (guild_id, set_aside_at);
