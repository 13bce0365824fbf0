-- A cron series' options and state (issue 15: schedules beyond cron). See
-- docs/postgres.md, "Tables and indexes".

-- +goose Up

-- series: the options of domain.Series (misfire policy, catch-up bounds, breaker, start,
-- end, max fires, jitter) as a small JSON object, NULL when none is set. Only the domain
-- reads them, never a query, so one column instead of eight keeps the row the claim
-- reads and rewrites narrow, and an option added later needs no migration. text, not
-- json: the store writes and reads it whole (adapters/internal/sqlrow/series.go).
--
-- fire_count, skip_streak, paused_reason, paused_until: the series' state, written by
-- every transition like status and failure_count. paused_until is when a paused series
-- resumes by itself, NULL for a series paused without an end and for every other alarm.
--
-- Every column is NULL or has a constant default, so ADD COLUMN changes the catalog
-- only: no table rewrite, whatever the table holds.
ALTER TABLE alarms
    ADD COLUMN series        text,
    ADD COLUMN fire_count    integer NOT NULL DEFAULT 0,
    ADD COLUMN skip_streak   integer NOT NULL DEFAULT 0,
    ADD COLUMN paused_reason text NOT NULL DEFAULT '',
    ADD COLUMN paused_until  timestamptz;

-- DuePauses: the paused series whose pause has ended, earliest first. Partial, so only
-- the rows that have an end are in it: its cost grows with neither the alarms paused
-- without an end nor any other alarm, and "paused_until <= $1" implies the predicate
-- (the operator is strict) even in the generic plans the store's sessions use.
--
-- The claim stays a heap-only (HOT) update (00001): it writes claimed_by and claimed_at,
-- and none of the new columns is indexed but paused_until, which a claim never changes.
-- Transitions write paused_until too, and one that leaves it as it was (NULL to NULL, for
-- every alarm that is not paused) is no less heap-only on its account.
CREATE INDEX alarms_paused_until_idx ON alarms (paused_until) WHERE paused_until IS NOT NULL;

-- +goose Down
DROP INDEX alarms_paused_until_idx;
ALTER TABLE alarms
    DROP COLUMN paused_until,
    DROP COLUMN paused_reason,
    DROP COLUMN skip_streak,
    DROP COLUMN fire_count,
    DROP COLUMN series;
