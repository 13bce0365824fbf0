-- Tokens over the admin API (issue 25): a note saying what a token is for, when it was
-- last used, and an owner's tokens listed without reading the others.
--
-- last_used_at is unix milliseconds like the other stamps; NULL until the first use.
-- It is written at most once a minute per token (domain.TokenUseResolution), in the
-- background of an authentication, never on a request's path. api_tokens_owner serves
-- GET /admin/v1/tokens?owner= in the list's order. A second run fails on the existing
-- column (the rule in adapters/sqlite/migrate.go).

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN last_used_at INTEGER;
CREATE INDEX api_tokens_owner ON api_tokens (owner, created_at, id);

-- +goose Down
DROP INDEX api_tokens_owner;
ALTER TABLE api_tokens DROP COLUMN last_used_at;
ALTER TABLE api_tokens DROP COLUMN note;
