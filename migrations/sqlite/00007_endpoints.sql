-- Endpoints (issue 16: wake delivery): an owner's named delivery targets, which only an
-- admin registers, and the endpoint each alarm's wakes go to.
--
-- endpoints: one row per (owner, name), a handful per owner, written by admins, read
-- whole by every dispatcher (which caches them and reads them again when the
-- "endpoints" cluster state changes) and by primary key by a create that names one. The
-- primary key also serves the list's order, by owner, then name (BINARY: bytes).
--
-- secrets: the signing secrets as a JSON array of strings. A short list (at most 10)
-- that is always read and written whole and never queried inside: a table of its own
-- would only add a join. They are stored as given, not hashed: unlike an API token,
-- which the server only has to recognise, a secret is the key the node signs every wake
-- with, so the node must have it. No admin view shows them (a size and a SHA-256 each),
-- and the owner's view leaves them out.
-- timeout_ms: one delivery's bound, in milliseconds; 0 for the node's --delivery-timeout.
-- max_in_flight: 0 for no cap of the endpoint's own; rate_per_second: 0 for unpaced.
-- failure_url: '' for none. created_at, updated_at: unix milliseconds, as every time here.
--
-- alarms.endpoint: the endpoint an alarm's wakes go to, '' for the server's --wake-url.
-- No foreign key: an endpoint may be deleted while alarms name it (their wakes then
-- fail, recorded, until one of that name exists again). ADD COLUMN with a constant
-- default rewrites no row, and fails on a second run (the rule in
-- adapters/sqlite/migrate.go), as CREATE TABLE does.

-- +goose Up
CREATE TABLE endpoints (
    owner           TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    url             TEXT    NOT NULL,
    secrets         TEXT    NOT NULL,
    timeout_ms      INTEGER NOT NULL DEFAULT 0,
    max_in_flight   INTEGER NOT NULL DEFAULT 0,
    rate_per_second REAL    NOT NULL DEFAULT 0,
    failure_url     TEXT    NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (owner, name)
) STRICT;

ALTER TABLE alarms ADD COLUMN endpoint TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE alarms DROP COLUMN endpoint;
DROP TABLE endpoints;
