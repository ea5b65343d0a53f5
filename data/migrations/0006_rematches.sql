-- 0006: what a finished game leaves for its Play again button: its seats and settings (the
-- session's JSON, as saved_games keeps a game in progress), and whether the button was used
-- (it works once). Kept as long as the game's move log (pruned with it). Portable SQL only.

CREATE TABLE rematches (
    game_id    TEXT    NOT NULL PRIMARY KEY,
    guild_id   BIGINT  NOT NULL,
    channel_id BIGINT  NOT NULL,
    state      TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1))
);
