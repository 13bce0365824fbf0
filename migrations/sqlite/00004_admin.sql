-- Operating a running cluster (issue 12): token scopes, what each node reports, and
-- named cluster values.
--
-- No new index on alarms. The admin reads walk what is there: a cross-owner page walks
-- the primary key (id order, newest first) and stops after the page; an owner's page
-- walks alarms_owner_status as List does; the due backlog is a range of alarms_due. The
-- counts by status read every alarm's status through the smallest covering index: an
-- index on status alone would be rewritten by every fire's outcome for the sake of a
-- count the operator samples seconds apart.

-- +goose Up

-- A token's scope replaces its admin flag: 'owner', 'admin' or 'admin:read'. Left open,
-- like event types: scopes arrive with features, SQLite cannot alter a CHECK in place,
-- and a scope the binary does not know grants nothing beyond its owner's routes
-- (domain.Token.CanReadAdmin). The old admin column stays, written as scope <> 'owner'
-- (see Down for what an older binary reads after a downgrade). This ADD COLUMN fails on
-- a second run, so the UPDATE never runs twice (see migrate.go).
ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'owner';
UPDATE api_tokens SET scope = 'admin' WHERE admin = 1;

-- What a node is (its build) and what it reported at its last heartbeat: the JSON of
-- domain.WorkerStats, replaced whole by each heartbeat. '{}' (or '') reads as zero stats.
ALTER TABLE workers ADD COLUMN version TEXT NOT NULL DEFAULT '';
ALTER TABLE workers ADD COLUMN stats   TEXT NOT NULL DEFAULT '{}';

-- Small named values every node shares (the dispatch pause gate, the last retention
-- run): opaque to the store, written rarely, read every tick. updated_at is unix
-- milliseconds, as in chronos_leases.
CREATE TABLE chronos_state (
    name       TEXT    NOT NULL PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE chronos_state;
ALTER TABLE workers DROP COLUMN stats;
ALTER TABLE workers DROP COLUMN version;
-- An older binary knows only admin: a read-only admin token must not come back as one
-- that may change things, so admin is what the scope allowed in full, not scope <> 'owner'.
UPDATE api_tokens SET admin = (scope = 'admin');
ALTER TABLE api_tokens DROP COLUMN scope;
