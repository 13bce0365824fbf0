-- The attempt log (issue 29): what each delivery attempt came to at the receiver, kept
-- on the event that already records the attempt (fired, retry_scheduled, failed,
-- skipped, attempt_delivered, attempt_failed), so an attempt costs no row and no index
-- entry of its own. An event whose duration_us is not NULL is an attempt; the others
-- keep NULLs (a byte of record header each). ADD COLUMN only edits the schema: no
-- rewrite, however many events there are. The transport error stays in message.
-- response_truncated is 0 or 1. See docs/architecture.md, "The attempt log".

-- +goose Up
ALTER TABLE alarm_events ADD COLUMN duration_us INTEGER;
ALTER TABLE alarm_events ADD COLUMN http_status INTEGER;
ALTER TABLE alarm_events ADD COLUMN response_type TEXT;
ALTER TABLE alarm_events ADD COLUMN response_body BLOB;
ALTER TABLE alarm_events ADD COLUMN response_truncated INTEGER;

-- +goose Down
ALTER TABLE alarm_events DROP COLUMN response_truncated;
ALTER TABLE alarm_events DROP COLUMN response_body;
ALTER TABLE alarm_events DROP COLUMN response_type;
ALTER TABLE alarm_events DROP COLUMN http_status;
ALTER TABLE alarm_events DROP COLUMN duration_us;
