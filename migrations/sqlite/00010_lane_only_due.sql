-- alarms_lane_due is the only due index (issue 24). Every query that walked alarms_due
-- (next_fire_at, id) now reads alarms_lane_due one range per lane, and where it needs
-- the due order across lanes (the plain claim, NextDue) merges the 64 ranges, reading
-- each only as far as the merge takes from it (adapters/sqlite/lanes.go, laneArms):
-- 64 seeks more per claim, never a scan of a backlog. In exchange a create and every
-- fire write one due index entry instead of two.
--
-- DDL only: a second run fails on the missing index (the rule in
-- adapters/sqlite/migrate.go).

-- +goose Up
DROP INDEX alarms_due;

-- +goose Down
CREATE INDEX alarms_due ON alarms (next_fire_at, id) WHERE status = 'active';
