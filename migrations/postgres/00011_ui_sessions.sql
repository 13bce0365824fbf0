-- Dashboard sessions kept on the server (issue 25, M2). The cookie carries a random
-- 32-byte id; this table keeps only its SHA-256 (hash, hex), with the hash of the admin
-- token it was opened with, so reading the database (a backup, a read-only user) yields
-- nothing a browser could present. Until now the cookie was signed with a key kept in
-- chronos_state next to the token hashes it carried: the database alone made a cookie.
--
-- token_hash: the admin token's hash as api_tokens keeps it; every request checks that
-- token, so revoking it ends its sessions. ui_sessions_expiry serves the sweep of
-- expired rows (DeleteExpiredSessions).
--
-- The old key and the signed-out session ids go: every cookie signed with that key is
-- void from now on (sign in again).

-- +goose Up
CREATE TABLE ui_sessions (
    hash       text        PRIMARY KEY,
    token_hash text        NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at);
DELETE FROM chronos_state WHERE name = 'ui-session-key' OR name LIKE 'ui-signed-out/%';

-- +goose Down
-- An older binary makes a new key on its first sign-in; everyone signs in again.
DROP TABLE ui_sessions;
