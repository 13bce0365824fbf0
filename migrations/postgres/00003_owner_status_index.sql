-- List with a status filter, bounded (docs/postgres.md, "Listing").

-- +goose Up

-- An owner's alarms of one status, newest first: GET /v1/alarms?status=active walks
-- this index backwards from the cursor and stops after the page. Without it the filter
-- ran over alarms_owner_id_idx, reading every alarm of the owner until it had a page:
-- ten active alarms among a million fired ones cost a walk of the million. The price is
-- one more index entry per outcome that changes status (a fire's outcome is never a
-- heap-only update anyway: it changes next_fire_at or status); measured in
-- docs/benchmarks.md. fillfactor 50 as alarms_owner_id_idx, for the same reason.
CREATE INDEX alarms_owner_status_id_idx ON alarms (owner, status, id) WITH (fillfactor = 50);

-- +goose Down
DROP INDEX alarms_owner_status_id_idx;
