-- alarms_lane_due is the only due index (issue 24). See docs/mysql.md, "Fair claims".

-- +goose Up

-- alarms_due (status, next_fire_at) goes: every reader of it now reads alarms_lane_due
-- (status, lane, next_fire_at), one range or dive per lane. A plain claim shares its
-- batch between the lanes that have due alarms, as fair claims do (adapters/mysql/
-- fair_claim.go, lockShared), NextDue takes the least of each lane's first unleased
-- entry, and the counts read the lane index instead. In exchange a create and every
-- fire (status and next_fire_at change) write one due index entry instead of two.
-- Dropped in place: metadata only, writes go on.
ALTER TABLE alarms DROP INDEX alarms_due, ALGORITHM = INPLACE, LOCK = NONE;

-- +goose Down
ALTER TABLE alarms ADD INDEX alarms_due (status, next_fire_at), ALGORITHM = INPLACE, LOCK = NONE;
