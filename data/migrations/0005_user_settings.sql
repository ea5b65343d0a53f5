-- 0005: a person's own display preferences (they follow the person across servers; nobody
-- else sees them). Portable SQL only, like 0001.

CREATE TABLE user_settings (
    user_id       BIGINT  NOT NULL PRIMARY KEY,
    high_contrast INTEGER NOT NULL DEFAULT 0 CHECK (high_contrast IN (0, 1))
);
