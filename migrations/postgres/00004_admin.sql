-- Operating a running cluster (issue 12): token scopes, what each node reports, and
-- named cluster values. See docs/postgres.md, "Admin queries".

-- +goose Up

-- A token's scope replaces the admin flag: 'owner', 'admin', or 'admin:read' (the admin
-- routes that change nothing). Tokens that were admin keep every admin route. The old
-- column stays and the store keeps writing it as scope <> 'owner', so it never
-- contradicts the scope; no binary that reads it can open this schema (an older binary
-- refuses a newer schema version), and the Down migration decides what it becomes.
ALTER TABLE api_tokens
    ADD COLUMN scope text NOT NULL DEFAULT 'owner'
        CHECK (scope IN ('owner', 'admin', 'admin:read'));
UPDATE api_tokens SET scope = 'admin' WHERE admin;

-- What a node reports at every heartbeat. stats is the JSON of domain.WorkerStats, as
-- text: the store writes and reads it whole and never queries inside it.
ALTER TABLE workers
    ADD COLUMN version text NOT NULL DEFAULT '',
    ADD COLUMN stats   text NOT NULL DEFAULT '{}';

-- Named values every node shares (the dispatch pause gate, the last retention run): a
-- handful of rows, each written rarely and read by primary key every tick. Opaque to
-- the store; the app keeps JSON in value.
CREATE TABLE chronos_state (
    name       text PRIMARY KEY,
    value      text NOT NULL,
    updated_at timestamptz NOT NULL
);

-- No index for the admin queries, on purpose: every one of them is served by an index
-- alarms already has, and every index of alarms costs a write per fire.
--   * The cross-owner list walks alarms_pkey backwards from the cursor and stops after
--     the page; its filters (status, kind, label prefix, failed since) are checked on
--     the rows it walks, so a page costs the alarms it skips over, which the port allows
--     (an operator's occasional query, not the API's hot path).
--   * With an owner it walks alarms_owner_status_id_idx, one walk per status merged,
--     exactly as List does.
--   * AdminGet, AdminMutate, AdminEvents and DeleteAlarms go by id (alarms_pkey,
--     alarm_events_pkey).
--   * CountAlarms reads every alarm's status once (the port says callers sample it) and
--     the due backlog from alarms_due_idx.

-- +goose Down
DROP TABLE chronos_state;
ALTER TABLE workers DROP COLUMN stats, DROP COLUMN version;
-- The admin flag is all an older binary sees: only full admin tokens keep it. A
-- read-only admin token must not gain the routes that change things by a downgrade; it
-- becomes an owner token.
UPDATE api_tokens SET admin = (scope = 'admin');
ALTER TABLE api_tokens DROP COLUMN scope;
