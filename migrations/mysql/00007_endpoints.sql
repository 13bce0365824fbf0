-- Endpoints (issue 16: wake delivery): an owner's named delivery targets, which only an
-- admin registers, and the endpoint each alarm's wakes go to. See docs/mysql.md,
-- "Tables and indexes".

-- +goose Up

-- One row per (owner, name), a handful per owner: written by admins, read whole by
-- every node's dispatcher (which caches them and reads them again when the "endpoints"
-- cluster state changes) and by primary key by a create that names one. owner and name
-- are VARBINARY like every key here (00001), so "by owner, then name" is byte order,
-- the same on every store, and the primary key serves it.
--
-- secrets: the signing secrets as a JSON array of strings, TEXT (not JSON: the store
-- writes and reads it whole). A short list (at most 10 of at most 256 bytes) that is
-- never queried inside: a table of its own would only add a join. They are stored as
-- given, not hashed: unlike an API token, which the server only has to recognise, a
-- secret is the key the node signs every wake with, so the node must have it. No admin
-- view shows them (a size and a SHA-256 each), and the owner's view leaves them out.
-- timeout_ms: one delivery's bound, in milliseconds; 0 for the node's --delivery-timeout.
-- max_in_flight: 0 for no cap of the endpoint's own; rate_per_second: 0 for unpaced.
-- url and failure_url ('' for none) are VARCHARs of the domain's 2048-byte limit, not
-- TEXT, so failure_url can have a plain default.
CREATE TABLE endpoints (
    owner           VARBINARY(255) NOT NULL,
    name            VARBINARY(64)  NOT NULL,
    url             VARCHAR(2048)  NOT NULL,
    secrets         TEXT           NOT NULL,
    timeout_ms      INT            NOT NULL DEFAULT 0,
    max_in_flight   INT            NOT NULL DEFAULT 0,
    rate_per_second DOUBLE         NOT NULL DEFAULT 0,
    failure_url     VARCHAR(2048)  NOT NULL DEFAULT '',
    created_at      DATETIME(6)    NOT NULL,
    updated_at      DATETIME(6)    NOT NULL,
    PRIMARY KEY (owner, name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The endpoint an alarm's wakes go to, '' for the server's --wake-url: an endpoint name
-- (64 bytes at most, domain/endpoint.go). No foreign key: an endpoint may be deleted
-- while alarms name it (their wakes then fail, recorded, until one of that name exists
-- again), and the key's check would cost every create. A VARCHAR with a constant
-- default, added at the end of the row, is INSTANT on MariaDB 10.6+ and MySQL 8.0.12+
-- (as in 00006): the table is not copied, and a server that could only copy it refuses
-- instead. No index: nothing looks alarms up by endpoint.
ALTER TABLE alarms ADD COLUMN endpoint VARCHAR(64) NOT NULL DEFAULT '', ALGORITHM = INSTANT;

-- +goose Down
ALTER TABLE alarms DROP COLUMN endpoint;
DROP TABLE endpoints;
