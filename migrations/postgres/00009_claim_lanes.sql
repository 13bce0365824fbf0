-- Claim lanes for fair claims (issue 24). See docs/postgres.md, "Fair claims".

-- +goose Up

-- Every alarm's lane, one of ports.Lanes = 64, a hash of its owner: a fair claim visits
-- the lanes in turn and takes a few due alarms from each, so one owner's backlog holds
-- back only the owners that share its lane. hashtext is immutable, as a generated column
-- needs; "& 63" keeps the low six bits, also of a negative hash (abs() fails on the
-- smallest). Generated: no insert path names it, and the migration fills existing rows.
--
-- STORED is the only kind PostgreSQL 15 has, so adding it rewrites the table (and
-- rebuilds its indexes) under an ACCESS EXCLUSIVE lock: claims, creates and reads wait
-- until it is done (docs/postgres.md, "Fair claims", has the time it takes). The claim
-- stays a heap-only (HOT) update (00001): it never changes owner, so lane keeps its value.
ALTER TABLE alarms ADD COLUMN lane smallint GENERATED ALWAYS AS (hashtext(owner) & 63) STORED;

-- A fair claim's probe of one lane: that lane's active alarms in due order, read from
-- the oldest and stopped after the few it takes, as alarms_due_idx serves the plain
-- claim (and NextDue, which keep it). Partial on the same predicate, so it is written by
-- the same updates: a create, a fire that stays active; never a claim, nor a fire that
-- ends the alarm. Default fillfactor, as alarms_due_idx: a fire that stays active moves
-- its entry later in the lane, it does not add one beside the old (the case fillfactor
-- 50 serves in alarms_pkey, 00001).
CREATE INDEX alarms_lane_due_idx ON alarms (lane, next_fire_at) WHERE status = 'active';

-- +goose Down
DROP INDEX alarms_lane_due_idx;
ALTER TABLE alarms DROP COLUMN lane;
