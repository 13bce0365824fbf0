-- Trace context (issue 29): the W3C traceparent and tracestate an alarm was created in,
-- NULL when its create carried none. Every wake of the alarm sends a child of it
-- (domain/trace.go). Written by a create only (a transition never changes them) and
-- read with the alarm.
--
-- A NULL column without a default changes the catalog only: no table rewrite, and a row
-- without a trace stores nothing for them (a bit in its null bitmap). In no index, so
-- the claim stays a heap-only (HOT) update (00001).

-- +goose Up
ALTER TABLE alarms ADD COLUMN trace_parent text, ADD COLUMN trace_state text;

-- +goose Down
ALTER TABLE alarms DROP COLUMN trace_state, DROP COLUMN trace_parent;
