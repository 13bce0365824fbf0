-- Retention (docs/operations.md) and cluster leases.

-- +goose Up

-- Terminal alarms by their last change: retention deletes those older than the cutoff
-- with one range per terminal status, so a pass costs what it deletes, not the table.
-- MySQL has no partial index, so status leads, as in alarms_due; active rows are in it
-- too, and a fire's outcome (which changes updated_at) moves their entry: one more
-- secondary index entry rewritten per fire, like alarms_due's.
CREATE INDEX alarms_terminal ON alarms (status, updated_at);

-- Named leases: which node does a cluster-wide chore (retention) until when.
CREATE TABLE chronos_leases (
    name       VARBINARY(255) NOT NULL,
    holder     VARBINARY(255) NOT NULL,
    expires_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- +goose Down
DROP TABLE chronos_leases;
DROP INDEX alarms_terminal ON alarms;
