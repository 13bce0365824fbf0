-- Claim lanes for fair claims (issue 24). See docs/postgres.md, "Fair claims".

-- CREATE INDEX CONCURRENTLY cannot run in a transaction block, so goose runs this file's
-- statements one by one on its migration session (which holds the migration lock) and
-- records the version after the last one. If the build fails or is interrupted, the
-- version is not recorded, and the next `chronos migrate` runs the file again.
-- +goose NO TRANSACTION

-- +goose Up

-- Every alarm's lane, one of ports.Lanes = 64, is a hash of its owner: a fair claim visits
-- the lanes in turn and takes a few due alarms from each, so one owner's backlog holds
-- back only the owners that share its lane. The lane is an expression of this index, not
-- a column: PostgreSQL 15 has only stored generated columns, and adding one rewrites the
-- table and rebuilds every index under an ACCESS EXCLUSIVE lock (7 s per million alarms,
-- every claim, create and read waiting). hashtext is immutable, as an index expression
-- needs; "& 63" keeps the low six bits, also of a negative hash (abs() fails on the
-- smallest). fairClaimSQL repeats the expression exactly, so that the planner matches it.
--
-- The index is a fair claim's probe of one lane: that lane's active alarms in due order,
-- read from the oldest and stopped after the few it takes, as alarms_due_idx serves the
-- plain claim (and NextDue, which keep it). Partial on the same predicate, so it is
-- written by the same updates: a create, a fire that stays active; never a claim (which
-- changes neither owner nor next_fire_at, and stays heap-only), nor a fire that ends the
-- alarm. Default fillfactor, as alarms_due_idx: a fire that stays active moves its entry
-- later in the lane, it does not add one beside the old (the case fillfactor 50 serves in
-- alarms_pkey, 00001).
--
-- CONCURRENTLY: the build scans the table twice and waits for the transactions open on
-- it, but takes no lock that blocks claims, creates or reads (docs/postgres.md, "Fair
-- claims", has the time it takes). A build that failed leaves an invalid index of this
-- name behind, never used by a query but still written; the DROP clears it for the rerun.
DROP INDEX CONCURRENTLY IF EXISTS alarms_lane_due_idx;
CREATE INDEX CONCURRENTLY alarms_lane_due_idx ON alarms ((hashtext(owner) & 63), next_fire_at)
	WHERE status = 'active';

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS alarms_lane_due_idx;
