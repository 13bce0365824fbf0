package ports

import "errors"

// Portable store errors. Adapters map driver errors to these in one place (their
// mapError) and wrap them with detail; callers test with errors.Is. Context errors
// (context.Canceled, context.DeadlineExceeded) are returned untouched, never mapped.
var (
	// ErrNotFound: no such row, or a row the caller's owner may not see. The two are
	// deliberately indistinguishable so ids of other owners leak nothing.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a uniqueness rule refused the write (and no dedupe applied).
	ErrConflict = errors.New("conflict")
	// ErrLeaseLost: a fenced write found the lease gone or re-taken by another worker.
	// Batched Apply reports stale transitions in ApplyResult instead of returning this.
	ErrLeaseLost = errors.New("lease lost")
	// ErrUnsupported: the store declared (in Capabilities) that it cannot do this.
	ErrUnsupported = errors.New("unsupported by this store")
	// ErrUnavailable: the database could not be reached, refused the connection, was
	// shutting down, or kept a lock past the store's timeout. Nothing was applied, and
	// the same call may succeed later: callers retry (the HTTP API answers 503).
	ErrUnavailable = errors.New("store unavailable")
	// ErrStorageFull: the database has no room for the write (its disk, or a quota or
	// size limit, is full). Nothing was applied, and the same call may succeed once
	// space is freed. Adapters return it wrapped together with ErrUnavailable, so a
	// caller that retries an unavailable store retries this too; the HTTP API answers
	// 503 and says the disk is full.
	ErrStorageFull = errors.New("storage full")
	// ErrBusy: a cluster-wide chore the caller asked for is being done by another node
	// (it holds the chore's lease); the same call may succeed later. The API answers 409.
	ErrBusy = errors.New("busy on another node")
	// ErrSchemaVersion: the database schema is older or newer than this binary expects.
	ErrSchemaVersion = errors.New("schema version mismatch")
)
