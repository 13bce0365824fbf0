-- List by (owner, status, id), one index for every page (docs/postgres.md, "Listing").

-- +goose Up

-- An owner's alarms of one status, newest first: GET /v1/alarms?status=active walks
-- this index backwards from the cursor and stops after the page. With only (owner, id)
-- the filter read every alarm of the owner until it had a page: ten active alarms among
-- a million fired ones cost a walk of the million. An unfiltered page is five such walks,
-- one per status, merged; so (owner, id) serves nothing any more and goes: every fire's
-- outcome is a new row version with an entry in each index, and this keeps the count of
-- indexes an outcome writes as it was. fillfactor 50 as the index it replaces, for the
-- same reason (00001).
CREATE INDEX alarms_owner_status_id_idx ON alarms (owner, status, id) WITH (fillfactor = 50);
DROP INDEX alarms_owner_id_idx;

-- +goose Down
CREATE INDEX alarms_owner_id_idx ON alarms (owner, id) WITH (fillfactor = 50);
DROP INDEX alarms_owner_status_id_idx;
