-- The attempt log (issue 29): what each delivery attempt came to at the receiver, kept
-- on the event that already records the attempt (fired, retry_scheduled, failed,
-- skipped, attempt_delivered, attempt_failed), so an attempt costs no row and no index
-- entry of its own. An event whose duration_us is not NULL is an attempt; the others
-- keep NULLs, which cost a bit each in the row's NULL bitmap. Adding NULLable columns
-- without a default only changes the catalogue: no rewrite, however many events there
-- are. The transport error stays in message. See docs/architecture.md, "The attempt log".

-- +goose Up
ALTER TABLE alarm_events
    ADD COLUMN duration_us        bigint,
    ADD COLUMN http_status        integer,
    ADD COLUMN response_type      text,
    ADD COLUMN response_body      bytea,
    ADD COLUMN response_truncated boolean;

-- +goose Down
ALTER TABLE alarm_events
    DROP COLUMN response_truncated,
    DROP COLUMN response_body,
    DROP COLUMN response_type,
    DROP COLUMN http_status,
    DROP COLUMN duration_us;
