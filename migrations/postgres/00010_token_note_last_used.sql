-- Tokens over the admin API (issue 25): a note saying what a token is for, when it was
-- last used, and an owner's tokens listed without reading the others.
--
-- last_used_at is NULL until the first use and written at most once a minute per token
-- (domain.TokenUseResolution), in the background of an authentication, never on a
-- request's path; the column is in no index, so that write is a HOT update.
-- api_tokens_owner serves GET /admin/v1/tokens?owner= in the list's order.

-- +goose Up
ALTER TABLE api_tokens
    ADD COLUMN note         text NOT NULL DEFAULT '',
    ADD COLUMN last_used_at timestamptz;
CREATE INDEX api_tokens_owner ON api_tokens (owner, created_at, id);

-- +goose Down
DROP INDEX api_tokens_owner;
ALTER TABLE api_tokens DROP COLUMN last_used_at, DROP COLUMN note;
