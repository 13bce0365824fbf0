-- Retention (docs/operations.md) and cluster leases.

-- +goose Up

-- Terminal alarms by their last change (milliseconds): retention deletes those older
-- than the cutoff by walking this index from its oldest entry. Partial: active and
-- paused alarms are not in it.
CREATE INDEX alarms_terminal ON alarms (updated_at)
    WHERE status IN ('fired', 'cancelled', 'failed');

-- Named leases: which process does a chore (retention) until when (milliseconds).
CREATE TABLE chronos_leases (
    name       TEXT    NOT NULL PRIMARY KEY,
    holder     TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE chronos_leases;
DROP INDEX alarms_terminal;
