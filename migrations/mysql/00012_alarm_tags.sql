-- Tags (issue 28): an alarm's key/value pairs, a row each, kept here alone (the alarms
-- row has no copy, so no tuned statement on alarms changes). The primary key reads and
-- deletes an alarm's tags, and checks a pair of one alarm; alarm_tags_filter serves the
-- list's tag filter: the alarms of one owner's pair, by id, newest first from a cursor.
-- The value is bytes (at most 200 characters of UTF-8): a PAD SPACE collation would
-- match "pro" to "pro ". Every create, update, delete and retention of an alarm writes
-- here in its own transaction (adapters/internal/sqlstore/tags.go).

-- +goose Up
CREATE TABLE alarm_tags (
    alarm_id  VARBINARY(255) NOT NULL,
    owner     VARBINARY(255) NOT NULL,
    tag_key   VARBINARY(64)  NOT NULL,
    tag_value VARBINARY(800) NOT NULL,
    PRIMARY KEY (alarm_id, tag_key),
    KEY alarm_tags_filter (owner, tag_key, tag_value, alarm_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- +goose Down
DROP TABLE alarm_tags;
