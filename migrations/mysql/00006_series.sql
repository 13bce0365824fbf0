-- A cron series' options and state (issue 15: schedules beyond cron). See docs/mysql.md,
-- "Tables and indexes".

-- +goose Up

-- series: the options of domain.Series (misfire policy, catch-up bounds, breaker, start,
-- end, max fires, jitter) as a small JSON object, NULL when none is set. Only the domain
-- reads them, never a query, so one column instead of eight keeps the row the claim
-- reads narrow, and an option added later needs no migration. TEXT, not JSON: the store
-- writes and reads it whole (adapters/internal/sqlrow/series.go).
--
-- fire_count, skip_streak, paused_reason, paused_until: the series' state, written by
-- every transition like status and failure_count. paused_until is when a paused series
-- resumes by itself, NULL for a series paused without an end and for every other alarm.
-- paused_reason is a VARCHAR, not TEXT: MySQL allows a TEXT column only an expression
-- default, and adds no such column instantly (below). The domain keeps a reason within
-- its 1000 characters (an owner's note is at most 500); a longer one is refused.
--
-- Added at the end of the row and with constant defaults, the columns are INSTANT on
-- MariaDB 10.6+ and MySQL 8.0.12+: the table is not copied, and its rows are not
-- touched until they are next written. ALGORITHM=INSTANT says so: a server that could
-- only copy the table (minutes for millions of alarms, writes waiting meanwhile) refuses
-- instead, and the operator chooses when to run the copy.
ALTER TABLE alarms
    ADD COLUMN series        TEXT          NULL,
    ADD COLUMN fire_count    INT           NOT NULL DEFAULT 0,
    ADD COLUMN skip_streak   INT           NOT NULL DEFAULT 0,
    ADD COLUMN paused_reason VARCHAR(1000) NOT NULL DEFAULT '',
    ADD COLUMN paused_until  DATETIME(6)   NULL,
    ALGORITHM = INSTANT;

-- DuePauses: the paused series whose pause has ended, earliest first (pinned with FORCE
-- INDEX). MySQL has no partial index, but the range "paused_until <= ?" starts after
-- the NULLs, so the walk reads only rows that have an end: its cost grows with neither
-- the alarms paused without one nor any other alarm. InnoDB writes a secondary index
-- entry only when its key changes: a claim never changes paused_until, and a fire of an
-- alarm that is not paused leaves it NULL, so the hot path writes nothing here. Built
-- in place while writes go on (LOCK=NONE); an index cannot be added instantly.
ALTER TABLE alarms ADD INDEX alarms_paused_until (paused_until), ALGORITHM = INPLACE, LOCK = NONE;

-- +goose Down
ALTER TABLE alarms DROP INDEX alarms_paused_until;
ALTER TABLE alarms
    DROP COLUMN paused_until,
    DROP COLUMN paused_reason,
    DROP COLUMN skip_streak,
    DROP COLUMN fire_count,
    DROP COLUMN series;
