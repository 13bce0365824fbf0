// Package sqlite is the chronos store on an embedded SQLite database (modernc.org/sqlite,
// pure Go, no cgo): zero setup for a single node, and safe for several processes
// sharing one file on one host.
//
// Shape:
//   - One writer connection for every write transaction, each BEGIN IMMEDIATE (writes
//     queue in Go, and across processes on SQLite's write lock), plus a pool of
//     read-only connections for queries. WAL lets the two run side by side.
//   - Claims choose and stamp due rows in one UPDATE ... RETURNING under the write lock,
//     so no two claimers, in any process, get one alarm for one lease.
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
