-- chronos schema for PostgreSQL. See docs/postgres.md for why each index exists.

-- +goose Up

-- Ids are compared and ordered as bytes (COLLATE "C"): List pages by id, and a
-- linguistic collation would order mixed-case or punctuated ids differently from the
-- other stores (and index them less compactly).
CREATE TABLE alarms (
    id              text COLLATE "C" PRIMARY KEY WITH (fillfactor = 50),
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
CREATE INDEX alarms_owner_id_idx ON alarms (owner, id) WITH (fillfactor = 50);

-- fillfactor 50 on the primary key and the owner index. A fire's outcome is never a
-- heap-only update (it changes next_fire_at or status, which alarms_due_idx uses), so
-- it adds a second entry with the same key to both indexes. Ids are time-ordered and
-- created ones are appended at the right, leaving pages 90% full by default; the first
-- fire of nearly every alarm then found its page full and ran a bottom-up deletion pass
-- (reading heap pages to find the dead versions) or split it. With half of each page
-- free the new entry fits: Apply of 1,000 outcomes 17.5 -> 13.9 ms (docs/benchmarks.md).
-- The price is indexes up to twice the size; vacuum removes the dead entries later.

-- Idempotent create: one alarm per (owner, key); alarms without a key are not indexed.
CREATE UNIQUE INDEX alarms_owner_idempotency_key_idx ON alarms (owner, idempotency_key)
    WHERE idempotency_key <> '';

-- No foreign key to alarms, on purpose. The store writes an event only in the statement
-- that inserts or updates its alarm's row (Create, CreateMany's transaction, Apply's
-- fenced UPDATE feeding the INSERT), so an event for a missing alarm cannot arise there,
-- and the key bought nothing else: its check ran for every event (a query per row plus
-- a FOR KEY SHARE lock written into the alarm row the same statement had just updated)
-- and was a third of Apply's time in a burn-down (docs/benchmarks.md). Whatever deletes
-- alarms (retention, an admin delete) must therefore delete their events itself: delete
-- the alarm rows first, then, in a later statement, the events of those ids. Not in one
-- statement: its snapshot predates the row locks the DELETE may wait for, and would miss
-- the events of an Apply that committed meanwhile. Once the alarm row is gone no store
-- statement can add an event for it (Apply finds no row: stale).
--
-- The primary key is (alarm_id, id), not id alone: it is the index an alarm's history
-- is read by, in order, and a second index on id would cost an insert per event and
-- serve no query. id comes from an identity column, so it is unique by itself and
-- increases in insertion order.
CREATE TABLE alarm_events (
    id            bigint GENERATED ALWAYS AS IDENTITY,
    alarm_id      text COLLATE "C" NOT NULL,
    type          text NOT NULL,
    at            timestamptz NOT NULL,
    attempt       integer NOT NULL DEFAULT 0,
    scheduled_for timestamptz,
    worker        text NOT NULL DEFAULT '',
    message       text NOT NULL DEFAULT '',
    PRIMARY KEY (alarm_id, id)
);

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
