-- Tags (issue 28): an alarm's key/value pairs, a row each, kept here alone (the alarms
-- row has no copy, so no tuned statement on alarms changes). The primary key reads and
-- deletes an alarm's tags, and checks a pair of one alarm; alarm_tags_filter serves the
-- list's tag filter: the alarms of one owner's pair, by id, newest first from a cursor.
-- Every create, update, delete and retention of an alarm writes here in its own
-- transaction (adapters/internal/sqlstore/tags.go).

-- +goose Up
CREATE TABLE alarm_tags (
    alarm_id  TEXT NOT NULL,
    owner     TEXT NOT NULL,
    tag_key   TEXT NOT NULL,
    tag_value TEXT NOT NULL,
    PRIMARY KEY (alarm_id, tag_key)
) STRICT, WITHOUT ROWID;
CREATE INDEX alarm_tags_filter ON alarm_tags (owner, tag_key, tag_value, alarm_id);

-- +goose Down
DROP TABLE alarm_tags;
