-- The tokens table takes the name it has on PostgreSQL and SQLite, api_tokens, so the
-- three stores' SQL names the same tables (issue 14). RENAME TABLE only renames: the
-- rows, the columns and the unique key tokens_hash stay as they are.

-- +goose Up
RENAME TABLE tokens TO api_tokens;

-- +goose Down
RENAME TABLE api_tokens TO tokens;
