-- The attempt log (issue 29): what each delivery attempt came to at the receiver, kept
-- on the event that already records the attempt (fired, retry_scheduled, failed,
-- skipped, attempt_delivered, attempt_failed), so an attempt costs no row and no index
-- entry of its own. An event whose duration_us is not NULL is an attempt; the others
-- keep NULLs (a bit each in the row's NULL bitmap). NULLable columns without a default
-- added last are an INSTANT change on MariaDB 10.4 and later (no rebuild of the
-- table, however many events it holds) unless the table is ROW_FORMAT=COMPRESSED. The
-- transport error stays in message. See docs/architecture.md, "The attempt log".

-- +goose Up
ALTER TABLE alarm_events
    ADD COLUMN duration_us        BIGINT         NULL,
    ADD COLUMN http_status        INT            NULL,
    ADD COLUMN response_type      VARBINARY(255) NULL,
    ADD COLUMN response_body      BLOB           NULL,
    ADD COLUMN response_truncated BOOLEAN        NULL;

-- +goose Down
ALTER TABLE alarm_events
    DROP COLUMN response_truncated,
    DROP COLUMN response_body,
    DROP COLUMN response_type,
    DROP COLUMN http_status,
    DROP COLUMN duration_us;
