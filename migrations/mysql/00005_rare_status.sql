-- The admin's cross-owner page of a rare status (issue 13). See docs/mysql.md, "Tables
-- and indexes".

-- +goose Up

-- The alarms in the statuses a healthy cluster has few of (failed, paused, cancelled),
-- by status and id. Without it the dashboard's page of "every owner's failed alarms"
-- walked the primary key newest first, testing each row, until it had a page: with
-- 1,000,000 alarms and ten failed it read all of them, 1.2 s a page (docs/mysql.md).
-- AdminList without an owner, of one of these statuses (or failed since a time), now
-- walks alarms_rare_status (pinned with FORCE INDEX, as every list page is) from the
-- cursor and stops after the page; with an owner, alarms_owner_status_list serves.
--
-- MySQL has no partial index, so a stored generated column stands in for one:
-- rare_status is the status while it is failed, paused or cancelled, and NULL
-- otherwise. InnoDB writes a secondary index entry only when its key changes, and an
-- active alarm's fire (active to active, or to fired) leaves rare_status NULL to NULL:
-- the hot path writes nothing to this index; only an alarm entering or leaving one of
-- these statuses does (as terminal_at in 00002). An index on (status, id) would be
-- rewritten at every fire that ends an alarm. Stored, as terminal_at is.
--
-- Adding a stored column copies the table (neither server adds one in place), and
-- writes to alarms wait until the copy is done: expect minutes for millions of alarms.
ALTER TABLE alarms
    ADD COLUMN rare_status VARCHAR(16)
        AS (CASE WHEN status IN ('failed', 'paused', 'cancelled') THEN status END) STORED,
    ADD INDEX alarms_rare_status (rare_status, id);

-- +goose Down
ALTER TABLE alarms DROP INDEX alarms_rare_status, DROP COLUMN rare_status;
