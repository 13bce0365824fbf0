-- chronos schema for MySQL 8.0+ and MariaDB 10.6+ (see docs/mysql.md).
--
-- Conventions, and why:
--   * Every time is a UTC DATETIME(6). DATETIME never converts through the session time
--     zone (TIMESTAMP does), and 6 fractional digits match the store's 1µs precision.
--   * Keys and identifiers (ids, owners, worker names, idempotency keys, token hashes)
--     are VARBINARY: compared byte for byte, case- and trailing-space-sensitive. MySQL
--     and MariaDB share no NO PAD binary utf8mb4 collation, and with a PAD SPACE one
--     "key" and "key " would be the same idempotency key, or the same owner.
--   * Human text is utf8mb4 (4-byte characters included) with a binary collation.
--   * payload is a MEDIUMBLOB, not JSON or text: it must come back byte for byte. MySQL's
--     JSON type re-serialises the document (key order, whitespace, duplicate keys), and
--     a utf8mb4 text column refuses the invalid UTF-8 that encoding/json accepts inside
--     strings. 64 KiB, the payload limit, is one byte more than a BLOB holds.

-- +goose Up
CREATE TABLE alarms (
    id              VARBINARY(255) NOT NULL,
    owner           VARBINARY(255) NOT NULL,
    label           VARCHAR(200)   NOT NULL,
    kind            VARCHAR(16)    NOT NULL,
    fire_at         DATETIME(6)    NULL,
    cron_expr       TEXT           NOT NULL,
    timezone        VARCHAR(255)   NOT NULL,
    next_fire_at    DATETIME(6)    NOT NULL,
    scheduled_for   DATETIME(6)    NOT NULL,
    conversation_id VARCHAR(200)   NOT NULL,
    wake_message    MEDIUMTEXT     NOT NULL,
    payload         MEDIUMBLOB     NOT NULL,
    status          VARCHAR(16)    NOT NULL,
    delivery        VARCHAR(16)    NOT NULL,
    -- NULL when the alarm has no key: NULLs never collide in a unique index, which
    -- stands in for PostgreSQL's partial unique index.
    idempotency_key VARBINARY(800) NULL,
    max_failures    INT            NOT NULL,
    failure_count   INT            NOT NULL,
    last_error      MEDIUMTEXT     NOT NULL,
    claimed_by      VARBINARY(255) NULL,
    claimed_at      DATETIME(6)    NULL,
    created_at      DATETIME(6)    NOT NULL,
    updated_at      DATETIME(6)    NOT NULL,
    last_fired_at   DATETIME(6)    NULL,
    PRIMARY KEY (id),
    UNIQUE KEY alarms_owner_idempotency (owner, idempotency_key),
    -- The claim: status = 'active' AND next_fire_at <= now ORDER BY next_fire_at. MySQL
    -- has no partial index, so status leads and the range runs on next_fire_at.
    KEY alarms_due (status, next_fire_at),
    -- List, newest first by id, with and without a status filter.
    KEY alarms_owner_list (owner, id),
    KEY alarms_owner_status_list (owner, status, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- No foreign key to alarms, on purpose. The store writes an event only in the
-- transaction that inserts or updates its alarm's row, holding that row's lock (Create,
-- CreateMany, Apply, Mutate), so an event for a missing alarm cannot arise there, and the
-- key bought nothing else: its check looked the alarm up again for every event, about a
-- tenth of a burn-down's throughput (docs/benchmarks.md). Whatever deletes alarms
-- (retention, an admin delete) must therefore delete their events itself: delete the
-- alarm rows first, then, in a later statement, the events of those ids. Once an alarm's
-- row is gone no store statement can add an event for it (Apply finds no row: stale).
CREATE TABLE alarm_events (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    alarm_id      VARBINARY(255)  NOT NULL,
    type          VARCHAR(32)     NOT NULL,
    at            DATETIME(6)     NOT NULL,
    attempt       INT             NOT NULL,
    scheduled_for DATETIME(6)     NULL,
    worker        VARBINARY(255)  NOT NULL,
    message       MEDIUMTEXT      NOT NULL,
    PRIMARY KEY (id),
    KEY alarm_events_alarm (alarm_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE tokens (
    id         VARBINARY(255) NOT NULL,
    owner      VARBINARY(255) NOT NULL,
    admin      BOOLEAN        NOT NULL,
    hash       VARBINARY(255) NOT NULL,
    created_at DATETIME(6)    NOT NULL,
    revoked_at DATETIME(6)    NULL,
    PRIMARY KEY (id),
    UNIQUE KEY tokens_hash (hash)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE workers (
    id           VARBINARY(255) NOT NULL,
    host         VARCHAR(255)   NOT NULL,
    pid          INT            NOT NULL,
    started_at   DATETIME(6)    NOT NULL,
    heartbeat_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- +goose Down
DROP TABLE workers;
DROP TABLE tokens;
DROP TABLE alarm_events;
DROP TABLE alarms;
