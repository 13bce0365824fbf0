// Package sqlite is the chronos store on an embedded SQLite database (modernc.org/sqlite,
// pure Go, no cgo): zero setup for a single node, and safe for several processes
// sharing one file on one host.
//
// Shape:
//   - One writer connection for every write transaction, each BEGIN IMMEDIATE (writes
//     queue in Go, and across processes on SQLite's write lock), plus a pool of
//     read-only connections for queries. WAL lets the two run side by side.
//   - Claims choose and stamp due rows in one UPDATE ... RETURNING under the write lock,
//     so no two claimers, in any process, get one alarm for one lease. alarms_lane_due
//     is the only due index (migration 00010): a plain claim and NextDue merge its 64
//     lanes' ranges in due order, each read only as far as the merge takes from it
//     (lanes.go).
//   - Fair claims (ports.FairClaim) choose in one SELECT, a UNION ALL of one probe per
//     lane of alarms_lane_due that SQLite runs in lane order until the batch is full,
//     then lease the chosen rows by id in the same transaction (fair.go). An owner's
//     lane is a hash of built-in functions (migration 00008 says how it spreads owners
//     and where it does not), kept in the alarm's lane column (migration 00016): not a
//     generated column, which every UPDATE (a claim's lease too) would compute, nor an
//     index expression, which every fire would. Each INSERT binds the lane computed in
//     Go (laneOf), the same hash as the migrations' SQL (laneSQL).
//   - Apply writes a whole batch of fenced transitions and their events in one
//     transaction, through statements prepared once.
//   - Times are the process clock (or an injected one), stored as UTC unix milliseconds:
//     the store declares DatabaseClock false and TimePrecision 1ms, and truncates before
//     it writes so that what callers hold equals what is stored.
//   - Wake hints are not supported (SQLite has nothing to carry them between processes);
//     dispatchers poll with their tick and NextDue.
//
// Durability: WAL with synchronous=NORMAL survives a crash of the process (chronos's
// failure model) without losing a commit; a power loss may lose the last commits before
// it, never corrupt the file. See dsn.go for each connection setting and why.
//
// Store URLs: sqlite://relative/path.db or sqlite:///absolute/path.db (see ParseURL).
// The schema is migrated by Migrate (`chronos migrate`) or Open with Options.Migrate;
// otherwise Open refuses a database not at the embedded schema version.
package sqlite
