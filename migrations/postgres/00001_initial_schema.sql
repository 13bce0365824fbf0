-- chronos schema for PostgreSQL. See docs/postgres.md for why each index exists.

-- +goose Up

-- Ids are compared and ordered as bytes (COLLATE "C"): List pages by id, and a
-- linguistic collation would order mixed-case or punctuated ids differently from the
-- other stores (and index them less compactly).
CREATE TABLE alarms (
    id              text COLLATE "C" PRIMARY KEY,
    owner           text NOT NULL,
    label           text NOT NULL DEFAULT '',
    kind            text NOT NULL CHECK (kind IN ('once', 'cron')),
    fire_at         timestamptz,
    cron_expr       text NOT NULL DEFAULT '',
    timezone        text NOT NULL DEFAULT '',
    next_fire_at    timestamptz,
    scheduled_for   timestamptz,
    conversation_id text NOT NULL DEFAULT '',
    wake_message    text NOT NULL DEFAULT '',
    -- json, not jsonb: json keeps the text exactly as given (whitespace, key order,
    -- duplicate keys), and the payload is echoed back byte-for-byte.
    payload         json NOT NULL DEFAULT 'null',
    status          text NOT NULL CHECK (status IN ('active', 'paused', 'fired', 'cancelled', 'failed')),
    delivery        text NOT NULL CHECK (delivery IN ('at_least_once', 'at_most_once')),
    idempotency_key text NOT NULL DEFAULT '',
    max_failures    integer NOT NULL,
    failure_count   integer NOT NULL DEFAULT 0,
    last_error      text NOT NULL DEFAULT '',
    claimed_by      text,
    claimed_at      timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    last_fired_at   timestamptz,
    CONSTRAINT alarms_lease_whole CHECK ((claimed_by IS NULL) = (claimed_at IS NULL))
) WITH (fillfactor = 50);
-- The claim changes only claimed_by and claimed_at, which no index covers, so it can be
-- a heap-only (HOT) update: no new entry in any of the three indexes, less for vacuum.
-- HOT needs room on the row's own page for the new version. A row with a small payload
-- takes ~330 bytes, so 10% free (fillfactor 90) fits two new versions per page of ~25
-- rows, and a burn-down made 6% of its claims HOT; with half the page free every claim
-- was HOT and a claim of 1,000 rows took 9 ms instead of 20 (docs/benchmarks.md). The
-- price is a table twice the size, which matters little next to its indexes and history.

-- The claim walks this index in due order and stops after the batch: its cost does not
-- grow with the number of alarms not yet due, nor with terminal ones.
CREATE INDEX alarms_due_idx ON alarms (next_fire_at) WHERE status = 'active';

-- Owner-scoped listing, newest first, paged by id.
CREATE INDEX alarms_owner_id_idx ON alarms (owner, id);

-- Idempotent create: one alarm per (owner, key); alarms without a key are not indexed.
CREATE UNIQUE INDEX alarms_owner_idempotency_key_idx ON alarms (owner, idempotency_key)
    WHERE idempotency_key <> '';

CREATE TABLE alarm_events (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    alarm_id      text COLLATE "C" NOT NULL REFERENCES alarms (id) ON DELETE CASCADE,
    type          text NOT NULL,
    at            timestamptz NOT NULL,
    attempt       integer NOT NULL DEFAULT 0,
    scheduled_for timestamptz,
    worker        text NOT NULL DEFAULT '',
    message       text NOT NULL DEFAULT ''
);

-- An alarm's history in order; also serves the foreign key's cascade.
CREATE INDEX alarm_events_alarm_id_idx ON alarm_events (alarm_id, id);

CREATE TABLE api_tokens (
    id         text PRIMARY KEY,
    owner      text NOT NULL,
    admin      boolean NOT NULL DEFAULT false,
    hash       text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);

CREATE TABLE workers (
    id           text PRIMARY KEY,
    host         text NOT NULL DEFAULT '',
    pid          integer NOT NULL DEFAULT 0,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE workers;
DROP TABLE api_tokens;
DROP TABLE alarm_events;
DROP TABLE alarms;
