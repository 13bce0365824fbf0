-- A cron series' options and state (issue 15: schedules beyond cron).
--
-- series: the options of domain.Series (misfire policy, catch-up bounds, breaker, start,
-- end, max fires, jitter) as a small JSON object, NULL when none is set. Only the domain
-- reads them, never a query, so one column instead of eight keeps the rows the claim
-- reads narrow, and an option added later needs no migration.
--
-- fire_count, skip_streak, paused_reason, paused_until: the series' state, written by
-- every transition like status and failure_count. paused_until is unix milliseconds like
-- every time here (00001), NULL for a series paused without an end and for every other
-- alarm. ADD COLUMN with a constant default rewrites no row, and fails on a second run
-- (the rule in adapters/sqlite/migrate.go).

-- +goose Up
ALTER TABLE alarms ADD COLUMN series        TEXT;
ALTER TABLE alarms ADD COLUMN fire_count    INTEGER NOT NULL DEFAULT 0;
ALTER TABLE alarms ADD COLUMN skip_streak   INTEGER NOT NULL DEFAULT 0;
ALTER TABLE alarms ADD COLUMN paused_reason TEXT    NOT NULL DEFAULT '';
ALTER TABLE alarms ADD COLUMN paused_until  INTEGER;

-- DuePauses: the paused series whose pause has ended, earliest first. Partial, so only
-- the rows that have an end are in it: its cost grows with neither the alarms paused
-- without an end nor any other alarm. SQLite uses it for "paused_until <= ?": any
-- comparison of the column satisfies an index's "IS NOT NULL" term, bound parameter
-- or not.
CREATE INDEX alarms_paused_until ON alarms (paused_until) WHERE paused_until IS NOT NULL;

-- +goose Down
DROP INDEX alarms_paused_until;
ALTER TABLE alarms DROP COLUMN paused_until;
ALTER TABLE alarms DROP COLUMN paused_reason;
ALTER TABLE alarms DROP COLUMN skip_streak;
ALTER TABLE alarms DROP COLUMN fire_count;
ALTER TABLE alarms DROP COLUMN series;
