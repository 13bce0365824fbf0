-- Operating a running cluster (issue 12): token scopes, what each node runs and reports,
-- and small named values shared by the cluster.

-- +goose Up

-- What a token may do: 'owner', 'admin' or 'admin:read' (domain.Scope). The old boolean
-- admin column stays, and this binary writes it as scope <> 'owner': binaries before this
-- one only showed it (chronos token list), so one rolled back to still shows something
-- sane. Every token that was admin becomes 'admin', the only admin there was.
ALTER TABLE tokens ADD COLUMN scope VARCHAR(16) NOT NULL DEFAULT 'owner' AFTER owner;
UPDATE tokens SET scope = 'admin' WHERE admin;

-- The node's chronos version, and its stats as of the last heartbeat: the JSON of
-- domain.WorkerStats (encoding/json), which SQL never looks into; '{}' (every row
-- registered before this migration) reads as zero stats. A VARCHAR, not TEXT, so the
-- default is a plain literal on every supported server (MySQL before 8.0.13 allows no
-- default on TEXT); nine integers take under 300 bytes of it.
ALTER TABLE workers
    ADD COLUMN version VARCHAR(255)  NOT NULL DEFAULT '' AFTER pid,
    ADD COLUMN stats   VARCHAR(2048) NOT NULL DEFAULT '{}' AFTER version;

-- Named values every node reads at each tick and an operator writes rarely (the dispatch
-- pause gate, the last retention run). The value is the app's JSON, kept as given;
-- updated_at is the store's now at the last write. Keyed like chronos_leases.
CREATE TABLE chronos_state (
    name       VARBINARY(255) NOT NULL,
    value      MEDIUMTEXT     NOT NULL,
    updated_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- No index for the admin queries, on purpose:
--   * AdminList with an owner walks alarms_owner_list, or alarms_owner_status_list when
--     it filters on a status (failed_since is status 'failed'), as List does. Across
--     owners it walks the primary key newest first and tests each row, so a page costs
--     the alarms it passes over, which the port allows for an operator's list. An index
--     per filter (status, kind, label, failed_since by id) would be one more entry to
--     write for every create, and to rewrite at every status change, on the path every
--     alarm takes, for a query an operator runs now and then.
--   * CountAlarms groups alarms_due (status, next_fire_at), the smallest index that
--     carries status, and counts the due backlog as one range of it, as the claim reads.
--   * DeleteAlarms deletes by primary key, then the events through alarm_events_alarm.

-- +goose Down
DROP TABLE chronos_state;
ALTER TABLE workers DROP COLUMN stats, DROP COLUMN version;
-- Only 'admin' stays admin: an 'admin:read' token must not come back as 'admin' if this
-- migration is applied again.
UPDATE tokens SET admin = (scope = 'admin');
ALTER TABLE tokens DROP COLUMN scope;
