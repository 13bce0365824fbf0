-- Trace context (issue 29): the W3C traceparent and tracestate an alarm was created in,
-- NULL when its create carried none. Every wake of the alarm sends a child of it
-- (domain/trace.go). Written by a create only (a transition never changes them) and
-- read with the alarm; in no index, so no claim or transition writes more than before.
-- NULL without a default: SQLite changes the schema only, no row is rewritten.

-- +goose Up
ALTER TABLE alarms ADD COLUMN trace_parent TEXT;
ALTER TABLE alarms ADD COLUMN trace_state TEXT;

-- +goose Down
ALTER TABLE alarms DROP COLUMN trace_state;
ALTER TABLE alarms DROP COLUMN trace_parent;
