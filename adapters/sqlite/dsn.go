package sqlite

import (
	"fmt"
	"strings"
	"time"
)

// busyTimeout is how long a connection waits for another connection's (or process's)
// lock before giving up with SQLITE_BUSY. Writers hold the lock for one short
// transaction, so this is only reached when something is badly stuck.
const busyTimeout = 5 * time.Second

// Connection settings, applied by the driver to every connection it opens (through DSN
// parameters, so a connection the pool replaces gets them too):
//
//   - journal_mode=WAL: readers never block the writer and the writer never blocks
//     readers; several processes on one host may share the file. WAL is a property of
//     the database file, so only the writer sets it (readers inherit it, and a reader
//     pool opened on an unmigrated file to check its version writes nothing).
//   - synchronous=NORMAL: in WAL mode a commit is appended to the WAL without an fsync;
//     the WAL is synced at checkpoints. A commit is durable against a crash of the
//     process (our failure model: kill -9, panics, OOM), because the data is in the OS
//     page cache. A power loss or kernel crash may roll back the last transactions
//     committed before it, never corrupt the file. FULL would fsync every commit and
//     cut write throughput several-fold; choose a journaling filesystem on battery-backed
//     or replicated storage if power loss must not lose a wake.
//   - foreign_keys=ON: SQLite leaves them off by default; events must name a real alarm.
//   - busy_timeout: wait for a lock instead of failing at once.
//   - _txlock=immediate (writer only): every transaction starts with BEGIN IMMEDIATE,
//     taking the write lock up front. A deferred transaction that reads and then writes
//     can fail with SQLITE_BUSY_SNAPSHOT when another process committed in between, and
//     the busy timeout does not help there; IMMEDIATE serializes writers instead.
//   - query_only (readers only): a reader pool can never write by mistake.
func writerDSN(path string) string {
	return dsn(path,
		"_pragma=busy_timeout("+millis(busyTimeout)+")",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_pragma=foreign_keys(ON)",
		"_txlock=immediate",
	)
}

func readerDSN(path string) string {
	return dsn(path,
		"_pragma=busy_timeout("+millis(busyTimeout)+")",
		"_pragma=synchronous(NORMAL)",
		"_pragma=foreign_keys(ON)",
		"_pragma=query_only(1)",
	)
}

func dsn(path string, params ...string) string {
	// The driver treats a name starting with "file:" as an SQLite URI; keep a plain
	// relative path plain.
	if strings.HasPrefix(path, "file:") {
		path = "./" + path
	}
	return path + "?" + strings.Join(params, "&")
}

func millis(d time.Duration) string { return fmt.Sprint(d.Milliseconds()) }
