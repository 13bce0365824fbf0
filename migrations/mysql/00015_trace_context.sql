-- Trace context (issue 29): the W3C traceparent and tracestate an alarm was created in,
-- NULL when its create carried none. Every wake of the alarm sends a child of it
-- (domain/trace.go). Written by a create only (a transition never changes them) and
-- read with the alarm; in no index.
--
-- ASCII: the domain keeps only a version-00 traceparent (55 characters) and a tracestate
-- of at most 512 printable ASCII bytes, so a byte a character keeps both within the
-- row's size limit. Added at the end of the row, NULL without a default, the columns are
-- INSTANT (metadata only: the table is not copied, no row is touched), and a server that
-- could only copy the table refuses instead (see 00006).
--
-- MariaDB 10.11 refuses an instant ADD COLUMN while the virtual lane column is indexed
-- (00008, docs/mysql.md "Fair claims"), so alarms_lane_due is dropped first and built
-- again after, in place while writes go on (LOCK=NONE). Until it is back, a claim of a
-- node still running (FORCE INDEX (alarms_lane_due)) fails and is retried: run the
-- migration with the dispatchers paused (chronos admin pause) or stopped.

-- +goose Up
ALTER TABLE alarms DROP INDEX alarms_lane_due, ALGORITHM = INPLACE, LOCK = NONE;
ALTER TABLE alarms
    ADD COLUMN trace_parent VARCHAR(55)  CHARACTER SET ascii COLLATE ascii_bin NULL,
    ADD COLUMN trace_state  VARCHAR(512) CHARACTER SET ascii COLLATE ascii_bin NULL,
    ALGORITHM = INSTANT;
ALTER TABLE alarms ADD INDEX alarms_lane_due (status, lane, next_fire_at), ALGORITHM = INPLACE, LOCK = NONE;

-- +goose Down
ALTER TABLE alarms DROP COLUMN trace_state, DROP COLUMN trace_parent;
