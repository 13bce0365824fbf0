-- Claim lanes (issue 24): a fair claim serves owners in turn, lane by lane.
--
-- An owner's lane, 0..63 (ports.Lanes), is a hash of the owner made of built-in
-- functions only, so the sqlite3 CLI (or any other program) can still write the file:
-- an index on a function registered from Go would make every write of an alarm fail
-- there. It is the code points of the first and the last 6 characters (0 past either
-- end) and the length, each times its own constant, summed, modulo the prime 1048573
-- (every product is far larger, so each term wraps and the low bits of the sum depend
-- on all of a character's bits), modulo 64. Owners of up to 12 characters are hashed
-- whole; longer ones that differ only in between share a lane, and are served first
-- come first served between themselves. The constants were picked, among random ones,
-- for spreading common families of names: owner-00..owner-63 fall in 49 lanes (at most
-- 3 in one), a random hash 41 on average. The sum stays below 2^63 for any text, so it
-- never turns into a REAL.
--
-- An index on the expression, not a generated column: SQLite computes a table's
-- generated columns for every row an UPDATE writes, a claim's too (it sets only the
-- lease), so the plain claim would pay for the hash on every alarm it leases; an index
-- expression is computed only when a column the index reads changes (a create, a fire
-- that moves next_fire_at or the status). The fair claim names the expression exactly as
-- here (adapters/sqlite/fair.go, laneExpr), since SQLite uses an index on an
-- expression only for that expression; it may never change while rows are indexed
-- under it.
--
-- alarms_lane_due: a fair claim's probe of one lane, its active alarms by due time.
-- Partial on the active rows, as alarms_due is, which the plain claim and NextDue keep
-- using. A second run fails on the existing index (the rule in
-- adapters/sqlite/migrate.go).

-- +goose Up
CREATE INDEX alarms_lane_due ON alarms (
    ((length(owner) * 733725
        + coalesce(unicode(substr(owner, 1, 1)), 0) * 889707
        + coalesce(unicode(substr(owner, 2, 1)), 0) * 432947
        + coalesce(unicode(substr(owner, 3, 1)), 0) * 333013
        + coalesce(unicode(substr(owner, 4, 1)), 0) * 920178
        + coalesce(unicode(substr(owner, 5, 1)), 0) * 150519
        + coalesce(unicode(substr(owner, 6, 1)), 0) * 1011057
        + coalesce(unicode(substr(owner, -1, 1)), 0) * 321749
        + coalesce(unicode(substr(owner, -2, 1)), 0) * 1044195
        + coalesce(unicode(substr(owner, -3, 1)), 0) * 265843
        + coalesce(unicode(substr(owner, -4, 1)), 0) * 883406
        + coalesce(unicode(substr(owner, -5, 1)), 0) * 21930
        + coalesce(unicode(substr(owner, -6, 1)), 0) * 608737) % 1048573 % 64),
    next_fire_at, id) WHERE status = 'active';

-- +goose Down
DROP INDEX alarms_lane_due;
