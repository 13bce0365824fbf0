package ports

import "context"

// Backuper is optional: a store implements it when its whole database is a file on
// this host that the store can copy, consistently and while it serves (SQLite).
// PostgreSQL's and MySQL's databases are backed up by their servers' own tools
// (pg_dump or continuous archiving; mysqldump or the binary log), so their stores do
// not implement it. Callers check for it with a type assertion and say so.
type Backuper interface {
	// Backup writes a copy of the database as it was at one instant to the new file
	// path and returns the copy's size in bytes. It must:
	//   - not stop writers for the copy's duration (a read snapshot, not a lock);
	//   - check the copy before it appears at path, and leave nothing at path (nor
	//     any temporary file) when it fails;
	//   - refuse, wrapping ErrConflict, a path that exists: it never replaces a file.
	Backup(ctx context.Context, path string) (int64, error)
}

// DiskSizer is optional: a store implements it when its database is on this host's
// disk, to report how much of it the database takes (the metrics' chronos_store_bytes).
type DiskSizer interface {
	// DiskBytes is the database's size on disk now, its write-ahead log included. It
	// reads file sizes, not tables: cheap enough for every scrape.
	DiskBytes() (int64, error)
}
