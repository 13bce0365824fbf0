-- List by (owner, status, id), one index for every page.

-- +goose Up

-- An owner's alarms of one status, newest first: a status-filtered page walks this
-- index from the cursor and stops after the page, instead of reading every alarm of the
-- owner through alarms_owner until it has enough of that status. An unfiltered page is
-- five such walks, one per status, merged; so alarms_owner (owner, id) serves nothing
-- any more and goes, and a fire's outcome still writes as many index entries as before.
CREATE INDEX alarms_owner_status ON alarms (owner, status, id);
DROP INDEX alarms_owner;

-- +goose Down
CREATE INDEX alarms_owner ON alarms (owner, id);
DROP INDEX alarms_owner_status;
