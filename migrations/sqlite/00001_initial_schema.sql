-- The chronos schema for SQLite (applied by goose; see adapters/sqlite).
--
-- Conventions, and why:
--  * Timestamps are INTEGER unix milliseconds in UTC, NULL when unset (a zero time.Time in
--    Go). Integers compare and index cheaply, cannot carry a time zone or a format
--    ambiguity, and millisecond precision is what the store declares (TimePrecision = 1ms):
--    the adapter truncates to the millisecond before every write and returns what it
--    stored, so a lease read back fences exactly.
--  * Optional text is NOT NULL DEFAULT '' (the domain's "unset"), except claimed_by, which
--    is NULL when unclaimed so the lease is one visibly absent pair.
--  * STRICT tables (SQLite >= 3.37) refuse values of the wrong type instead of coercing.
--  * CHECK constraints guard the enums the domain rehydrates; event types are left open
--    because new ones arrive with features, and SQLite cannot alter a CHECK in place.

-- +goose Up
CREATE TABLE alarms (
    id              TEXT    NOT NULL PRIMARY KEY,
    owner           TEXT    NOT NULL,
    label           TEXT    NOT NULL DEFAULT '',
    kind            TEXT    NOT NULL CHECK (kind IN ('once', 'cron')),
    fire_at         INTEGER,
    cron_expr       TEXT    NOT NULL DEFAULT '',
    timezone        TEXT    NOT NULL DEFAULT '',
    next_fire_at    INTEGER,
    scheduled_for   INTEGER,
    conversation_id TEXT    NOT NULL DEFAULT '',
    wake_message    TEXT    NOT NULL DEFAULT '',
    -- BLOB, not TEXT: the payload comes back byte for byte, with no encoding applied.
    payload         BLOB    NOT NULL,
    status          TEXT    NOT NULL CHECK (status IN ('active', 'paused', 'fired', 'cancelled', 'failed')),
    delivery        TEXT    NOT NULL CHECK (delivery IN ('at_least_once', 'at_most_once')),
    idempotency_key TEXT    NOT NULL DEFAULT '',
    max_failures    INTEGER NOT NULL,
    failure_count   INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT    NOT NULL DEFAULT '',
    claimed_by      TEXT,
    claimed_at      INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    last_fired_at   INTEGER,
    -- An active alarm without a due time would never fire, silently.
    CHECK (status <> 'active' OR next_fire_at IS NOT NULL),
    -- The lease is both halves or neither (domain.Rehydrate refuses a half-set lease).
    CHECK ((claimed_by IS NULL) = (claimed_at IS NULL))
) STRICT;

-- The claim path: only active rows are ever claimable, so the index holds only them and
-- stays as small as the live backlog, whatever the history of fired alarms. id breaks
-- ties, so the claim's ORDER BY is read straight off the index.
CREATE INDEX alarms_due ON alarms (next_fire_at, id) WHERE status = 'active';

-- Owner listing, newest first by time-ordered id (keyset pagination).
CREATE INDEX alarms_owner ON alarms (owner, id);

-- Idempotent create: one key per owner; alarms without a key do not take part.
CREATE UNIQUE INDEX alarms_owner_idempotency_key ON alarms (owner, idempotency_key)
    WHERE idempotency_key <> '';

-- AUTOINCREMENT so event ids only ever grow, even after the newest rows are trimmed by
-- retention: the history's order is the id order.
CREATE TABLE alarm_events (
    id            INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    alarm_id      TEXT    NOT NULL REFERENCES alarms (id) ON DELETE CASCADE,
    type          TEXT    NOT NULL,
    at            INTEGER NOT NULL,
    attempt       INTEGER NOT NULL DEFAULT 0,
    scheduled_for INTEGER,
    worker        TEXT    NOT NULL DEFAULT '',
    message       TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX alarm_events_alarm ON alarm_events (alarm_id, id);

-- API tokens: only the hash of the secret is stored.
CREATE TABLE api_tokens (
    id         TEXT    NOT NULL PRIMARY KEY,
    owner      TEXT    NOT NULL,
    admin      INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
    hash       TEXT    NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
) STRICT;

-- Dispatcher processes and their heartbeats.
CREATE TABLE workers (
    id           TEXT    NOT NULL PRIMARY KEY,
    host         TEXT    NOT NULL DEFAULT '',
    pid          INTEGER NOT NULL DEFAULT 0,
    started_at   INTEGER NOT NULL,
    heartbeat_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE workers;
DROP TABLE api_tokens;
DROP TABLE alarm_events;
DROP TABLE alarms;
