-- List with a status filter, bounded.

-- +goose Up

-- An owner's alarms of one status, newest first: a status-filtered page walks this
-- index from the cursor and stops after the page, instead of reading every alarm of the
-- owner through alarms_owner until it has enough of that status.
CREATE INDEX alarms_owner_status ON alarms (owner, status, id);

-- +goose Down
DROP INDEX alarms_owner_status;
