-- Endpoints (issue 16: wake delivery): an owner's named delivery targets, which only an
-- admin registers, and the endpoint each alarm's wakes go to. See docs/postgres.md,
-- "Tables and indexes".

-- +goose Up

-- One row per (owner, name), a handful per owner: written by admins, read whole by
-- every node's dispatcher (which caches them and reads them again when the "endpoints"
-- cluster state changes) and by primary key by a create that names one. owner and name
-- compare as bytes (COLLATE "C"), so "by owner, then name" is the same order on every
-- store, and the primary key serves it.
--
-- secrets: the endpoint's signing secrets as a JSON array of strings, as text. A short
-- list (at most 10) that is always read and written whole and never queried inside: a
-- table of its own would only add a join. They are stored as given, not hashed: unlike
-- an API token, which the server only has to recognise, a secret is the key the node
-- signs every wake with, so the node must have it. No admin view shows them (a size and
-- a SHA-256 each), and the owner's view leaves them out.
-- timeout_ms: one delivery's bound, in milliseconds; 0 for the node's --delivery-timeout.
-- max_in_flight: 0 for no cap of the endpoint's own; rate_per_second: 0 for unpaced.
-- failure_url: '' for none.
CREATE TABLE endpoints (
    owner           text COLLATE "C" NOT NULL,
    name            text COLLATE "C" NOT NULL,
    url             text NOT NULL,
    secrets         text NOT NULL,
    timeout_ms      integer NOT NULL DEFAULT 0,
    max_in_flight   integer NOT NULL DEFAULT 0,
    rate_per_second double precision NOT NULL DEFAULT 0,
    failure_url     text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (owner, name)
);

-- The endpoint an alarm's wakes go to, '' for the server's --wake-url. No foreign key:
-- an endpoint may be deleted while alarms name it (their wakes then fail, recorded,
-- until one of that name exists again), and the key's check would cost every create.
--
-- A column with a constant default changes the catalog only: no table rewrite, whatever
-- the table holds. The claim stays a heap-only (HOT) update (00001): it writes
-- claimed_by and claimed_at, and this column is in no index (nor written by any
-- transition: only a create sets it).
ALTER TABLE alarms ADD COLUMN endpoint text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE alarms DROP COLUMN endpoint;
DROP TABLE endpoints;
