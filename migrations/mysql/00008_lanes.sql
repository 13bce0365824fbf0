-- Claim lanes (issue 24: fair claims). See docs/mysql.md, "Fair claims".

-- +goose Up

-- lane: which of ports.Lanes = 64 claim lanes the alarm is in, a hash of its owner, so
-- every alarm of one owner is in one lane. A generated column: no insert path changes,
-- and the rows already stored have their lane at once. CRC32 is deterministic (allowed
-- in a generated column on both servers) and never negative, so % 64 is 0..63.
--
-- VIRTUAL, not STORED: a virtual column is added INSTANT on MariaDB 10.6+ and MySQL 8.0
-- (metadata only), where a stored one is added only by copying the table, writes
-- waiting meanwhile (ALGORITHM=COPY; see 00005); and the only reader, the lane probe,
-- reads the value from the index below, which InnoDB keeps materialized. The server
-- computes CRC32 of the owner when it writes an entry of that index, which is nothing
-- beside the write itself. The price: MariaDB 10.11 refuses ALGORITHM=INSTANT for an
-- ADD COLUMN while a virtual column is indexed, so a later migration that adds a column
-- instantly drops alarms_lane_due first and builds it again after (in place, LOCK=NONE).
ALTER TABLE alarms
    ADD COLUMN lane TINYINT UNSIGNED AS (CRC32(owner) % 64) VIRTUAL,
    ALGORITHM = INSTANT;

-- The fair claim's lane probe: one lane's active alarms in due order, a range on
-- (status, lane, next_fire_at) as alarms_due is on (status, next_fire_at) (MySQL has no
-- partial index, so status leads). The same index gives the lanes that have due alarms
-- by a loose index scan (one dive per lane). alarms_due stays: plain claims and NextDue
-- read it. This is one more index entry to write per create and to rewrite per fire
-- (status and next_fire_at change); a claim's lease stamp does not touch it. Built in
-- place while writes go on (LOCK=NONE), as alarms_paused_until was in 00006.
ALTER TABLE alarms ADD INDEX alarms_lane_due (status, lane, next_fire_at), ALGORITHM = INPLACE, LOCK = NONE;

-- +goose Down
ALTER TABLE alarms DROP INDEX alarms_lane_due;
ALTER TABLE alarms DROP COLUMN lane;
