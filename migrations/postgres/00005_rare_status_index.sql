-- The admin's cross-owner page of a rare status (issue 13). See docs/postgres.md,
-- "Admin queries".

-- +goose Up

-- The alarms in the statuses a healthy cluster has few of (failed, paused, cancelled),
-- by status and id. Without it the dashboard's page of "every owner's failed alarms" walked
-- alarms_pkey backwards, testing each row's status, until it had a page: with 1,000,000
-- alarms and none failed it read all of them, p50 577 ms a page (docs/benchmarks.md,
-- "The dashboard at scale"). AdminList without an owner, of one of these statuses (or
-- failed since a time), now walks this index backwards from the cursor and stops after
-- the page; with an owner, alarms_owner_status_id_idx already serves.
--
-- Partial, so it costs nothing on the hot path: an active alarm's fire (a new row
-- version that stays active or becomes fired) writes no entry here, only an alarm
-- entering one of these statuses does; the claim's lease stays a heap-only update (id
-- and status are indexed already). The other statuses need no such index: active and
-- fired are most alarms, so the primary key's walk finds a page of them at once.
--
-- The planner uses a partial index only for a query whose WHERE implies its predicate,
-- and "status = $1" implies nothing in a generic plan (the store's sessions use generic
-- plans only, docs/postgres.md): the store's statements name the status as a literal,
-- one statement per status. The status leads the key, so that literal is this index's
-- condition and its entries of one status come in id order: on (id) alone, a generic
-- plan made on an empty table took "status = 'failed'" as a condition on the second
-- column of alarms_owner_status_id_idx instead, read that whole index and sorted what
-- it found (TestPlansWithoutStatistics). status is a few bytes an entry, in an index
-- of few entries.
CREATE INDEX alarms_rare_status_idx ON alarms (status, id)
    WHERE status IN ('failed', 'paused', 'cancelled');

-- +goose Down
DROP INDEX alarms_rare_status_idx;
