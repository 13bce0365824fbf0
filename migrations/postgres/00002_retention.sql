-- Retention (docs/operations.md) and cluster leases.

-- +goose Up

-- Terminal alarms by their last change: retention deletes those older than the cutoff
-- by walking this index from its oldest entry, so a pass costs what it deletes, not the
-- table. Partial: active and paused alarms (the ones that change on every fire) are not
-- in it. A once alarm's final outcome adds one entry here; that outcome is never a
-- heap-only update anyway (it leaves alarms_due_idx), so it already writes an entry in
-- every index and this is one more of the same kind. Entries of deleted alarms stay
-- until VACUUM (autovacuum, or chronos's own upkeep where autovacuum is off).
CREATE INDEX alarms_terminal_idx ON alarms (updated_at)
    WHERE status IN ('fired', 'cancelled', 'failed');

-- Named leases: which node does a cluster-wide chore (retention) until when. A row per
-- chore; the holder renews it while it works and a node takes it over once it expires.
CREATE TABLE chronos_leases (
    name       text PRIMARY KEY,
    holder     text NOT NULL,
    expires_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE chronos_leases;
DROP INDEX alarms_terminal_idx;
