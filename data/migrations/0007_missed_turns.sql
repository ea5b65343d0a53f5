-- 0007: how many turns in a row a person may miss (their timer runs out) before a computer
-- player keeps their seat warm (RULES.md R-BOT-WARM). Every server starts at 2.
ALTER TABLE guild_settings ADD COLUMN missed_turns INTEGER NOT NULL DEFAULT 2
    CHECK (missed_turns BETWEEN 1 AND 10);
