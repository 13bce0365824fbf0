-- Tokens over the admin API (issue 25): a note saying what a token is for, when it was
-- last used, and an owner's tokens listed without reading the others.
--
-- The note is text of at most 200 characters (app.MaxTokenNote). last_used_at is NULL
-- until the first use and written at most once a minute per token
-- (domain.TokenUseResolution), in the background of an authentication, never on a
-- request's path. api_tokens_owner serves GET /admin/v1/tokens?owner= in the list's
-- order.

-- +goose Up
ALTER TABLE api_tokens
    ADD COLUMN note         VARCHAR(200) NOT NULL DEFAULT '',
    ADD COLUMN last_used_at DATETIME(6)  NULL,
    ADD KEY api_tokens_owner (owner, created_at, id);

-- +goose Down
ALTER TABLE api_tokens
    DROP KEY api_tokens_owner,
    DROP COLUMN last_used_at,
    DROP COLUMN note;
