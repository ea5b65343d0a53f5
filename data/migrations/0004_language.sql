-- 0004: the language of a server's public game text ('en' or 'fr'); NULL (the default)
-- follows the server's Discord locale. Private replies always follow the user's locale.
ALTER TABLE guild_settings ADD COLUMN language TEXT
    CHECK (language IS NULL OR language IN ('en', 'fr'));
