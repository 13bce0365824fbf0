-- The admin's cross-owner page of a rare status (issue 13).
--
-- The alarms in the statuses a healthy cluster has few of (failed, paused, cancelled),
-- by status and id. Without it the page of "every owner's failed alarms" walked the
-- primary key newest first, testing each row, until it had a page: with none failed,
-- every alarm. AdminList without an owner, of one of these statuses (or failed since a
-- time), now walks this index from the cursor and stops after the page; with an owner,
-- alarms_owner_status already serves.
--
-- Partial, so a fire (active to active, or to fired) writes no entry in it: only an
-- alarm entering or leaving one of these statuses does. SQLite uses a partial index
-- only when the statement's WHERE implies the index's, term by term: a term of the
-- statement must appear among the OR-ed terms here, so they are written as
-- "status = '...'" terms (an IN list is one term, which "status = 'failed'" is not),
-- and the statements name the status as a literal, one per status (a parameter bound
-- after prepare implies nothing). The status leads the key, so that literal is this
-- index's condition and one status's entries come in id order.

-- +goose Up
CREATE INDEX alarms_rare_status ON alarms (status, id)
    WHERE status = 'failed' OR status = 'paused' OR status = 'cancelled';

-- +goose Down
DROP INDEX alarms_rare_status;
