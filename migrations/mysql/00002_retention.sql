-- Retention (docs/operations.md) and cluster leases.

-- +goose Up

-- When a terminal alarm (fired, cancelled, failed) last changed; NULL while it is live.
-- Retention deletes those older than the cutoff by one range of its index, so a pass
-- costs what it deletes, not the table. A generated column rather than an index on
-- (status, updated_at): every fire's outcome changes updated_at, and InnoDB rewrites a
-- secondary index entry only when its value changes, so an index on updated_at would be
-- one more write per fire; terminal_at changes once per alarm, when it ends. (MySQL has
-- no partial index, which is how PostgreSQL and SQLite get the same effect.)
ALTER TABLE alarms
    ADD COLUMN terminal_at DATETIME(6)
        AS (CASE WHEN status IN ('fired', 'cancelled', 'failed') THEN updated_at END) STORED,
    ADD INDEX alarms_terminal (terminal_at);

-- Named leases: which node does a cluster-wide chore (retention) until when.
CREATE TABLE chronos_leases (
    name       VARBINARY(255) NOT NULL,
    holder     VARBINARY(255) NOT NULL,
    expires_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- +goose Down
DROP TABLE chronos_leases;
ALTER TABLE alarms DROP INDEX alarms_terminal, DROP COLUMN terminal_at;
