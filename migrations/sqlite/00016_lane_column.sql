-- An alarm's claim lane is a column (issue 24), written once at its insert, no longer an
-- expression of alarms_lane_due. SQLite computes an index expression for the old and the
-- new row of every write that changes a column the index reads, so every fire (its
-- status or next_fire_at) paid for the hash of its owner twice, on the single writer:
-- about a fifth of an UPDATE of a batch's outcomes. The column keeps the hash of 00008,
-- word for word (adapters/sqlite/lanes.go, laneOf, computes it in each INSERT), so an
-- owner's alarms stay in one lane across this migration.
--
-- A program that inserts alarms itself (the sqlite3 CLI) and leaves lane out puts them
-- in lane 0: still claimed, only served with lane 0's owners.
--
-- The UPDATE rewrites every row once (seconds per million alarms). DDL first: a second
-- run fails on the existing column (the rule in adapters/sqlite/migrate.go).

-- +goose Up
ALTER TABLE alarms ADD COLUMN lane INTEGER NOT NULL DEFAULT 0;
UPDATE alarms SET lane = ((length(owner) * 733725
        + coalesce(unicode(substr(owner, 1, 1)), 0) * 889707
        + coalesce(unicode(substr(owner, 2, 1)), 0) * 432947
        + coalesce(unicode(substr(owner, 3, 1)), 0) * 333013
        + coalesce(unicode(substr(owner, 4, 1)), 0) * 920178
        + coalesce(unicode(substr(owner, 5, 1)), 0) * 150519
        + coalesce(unicode(substr(owner, 6, 1)), 0) * 1011057
        + coalesce(unicode(substr(owner, -1, 1)), 0) * 321749
        + coalesce(unicode(substr(owner, -2, 1)), 0) * 1044195
        + coalesce(unicode(substr(owner, -3, 1)), 0) * 265843
        + coalesce(unicode(substr(owner, -4, 1)), 0) * 883406
        + coalesce(unicode(substr(owner, -5, 1)), 0) * 21930
        + coalesce(unicode(substr(owner, -6, 1)), 0) * 608737) % 1048573 % 64);
DROP INDEX alarms_lane_due;
CREATE INDEX alarms_lane_due ON alarms (lane, next_fire_at, id) WHERE status = 'active';

-- +goose Down
DROP INDEX alarms_lane_due;
CREATE INDEX alarms_lane_due ON alarms (
    ((length(owner) * 733725
        + coalesce(unicode(substr(owner, 1, 1)), 0) * 889707
        + coalesce(unicode(substr(owner, 2, 1)), 0) * 432947
        + coalesce(unicode(substr(owner, 3, 1)), 0) * 333013
        + coalesce(unicode(substr(owner, 4, 1)), 0) * 920178
        + coalesce(unicode(substr(owner, 5, 1)), 0) * 150519
        + coalesce(unicode(substr(owner, 6, 1)), 0) * 1011057
        + coalesce(unicode(substr(owner, -1, 1)), 0) * 321749
        + coalesce(unicode(substr(owner, -2, 1)), 0) * 1044195
        + coalesce(unicode(substr(owner, -3, 1)), 0) * 265843
        + coalesce(unicode(substr(owner, -4, 1)), 0) * 883406
        + coalesce(unicode(substr(owner, -5, 1)), 0) * 21930
        + coalesce(unicode(substr(owner, -6, 1)), 0) * 608737) % 1048573 % 64),
    next_fire_at, id) WHERE status = 'active';
ALTER TABLE alarms DROP COLUMN lane;
