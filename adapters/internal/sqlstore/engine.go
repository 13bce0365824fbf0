// Package sqlstore is the part of the SQL stores that is the same on every database,
// written once over a dialect: reads and owner checks (Get, Events, List's dispatch and
// cursor), Mutate's read-modify-write, the write paths' control flow (Apply's result
// and notices, CreateBatch's idempotency answers, bulk loads and imports), retention
// and leases, tokens, sessions, cluster state, workers, endpoints, and the retry of
// transactions the database rolled back. A dialect supplies its statements (one
// statements.go per store), how it reaches the database (DB), how it maps driver
// errors, how it passes and reads times, its clock, and hooks for what it tunes itself
// (the claims, the batched writes' statements, the list pages).
package sqlstore

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Engine runs the shared algorithms for one store. T is how the driver reads a time
// column that may be NULL (sql.NullInt64, sql.NullTime, pgtype.Timestamptz).
type Engine[T any] struct {
	// Name prefixes the errors the engine makes ("sqlite", "postgres", "mysql").
	Name string
	// SQL is the dialect's text for every statement the engine runs.
	SQL *Statements
	// Read runs queries outside a transaction; Write runs single-statement writes.
	Read, Write DB
	// MapError turns a driver error into the port's errors (nil stays nil).
	MapError func(error) error
	// TimeArg is a time as a statement argument: NULL when zero, else as the column
	// keeps it (truncated to the store's precision).
	TimeArg func(time.Time) any
	// ToTime reads a nullable time column: the zero time for NULL, else UTC.
	ToTime func(T) time.Time
	// NowArg is the store's now as an argument: the injected clock's time, or what the
	// statement reads as "use the database clock" (NULL where it coalesces to it).
	NowArg func() any
	// Now reads the store's now (the injected clock's, or the database's) through db.
	Now func(ctx context.Context, db DB) (time.Time, error)
	// PayloadArg is an alarm's payload as the payload column keeps it.
	PayloadArg func([]byte) any
	// LaneArg, where the dialect stores each alarm's claim lane in a column (SQLite),
	// is the owner's lane, bound after sqlrow.AlarmColumns by every insert of an
	// alarm (AlarmArgs); nil where the lane is an index expression.
	LaneArg func(owner string) any

	// The chores and the lists (retention.go, list.go): what of them is more than a
	// statement's text.
	//
	// ChooseByIDs is the statement, and its arguments, that takes the alarms with these
	// ids for DeleteAlarms as ExpiredAlarms takes a batch (locks them, or deletes their
	// rows) and selects the ids of those that exist; nil where DeleteChosen takes the
	// ids as they are, unknown ones skipped.
	ChooseByIDs func(ids []string) (string, []any)
	// DeleteChosen deletes in tx the alarms taken (at least one) and all their events,
	// and counts both.
	DeleteChosen func(ctx context.Context, tx DB, ids []string) (ports.Deleted, error)
	// TrimStep is one step of the events sweep (p valid, in one transaction or one
	// statement): the events it deleted, the last alarm id it covered and how many.
	TrimStep func(ctx context.Context, p ports.TrimEvents) (events int, last string, covered int, err error)
	// TakeLease takes the named lease for holder if it is free, expired or holder's
	// already, until now+ttl, and says whether holder holds it.
	TakeLease func(ctx context.Context, name, holder string, ttl time.Duration) (bool, error)
	// OwnerPage is the statement and arguments of the owner API's page: the owner's
	// alarms of status ("" for every status) with ids below after ("" for the first
	// page), newest first, limit+1 of them at most.
	OwnerPage func(owner string, status domain.Status, after string, limit int) (string, []any)
	// FilteredPage is the same for every other page: f's scope sees something, and its
	// status is failed whenever it has FailedSince.
	FilteredPage func(f ports.ListFilter, after string, limit int) (string, []any)
	// Tags is how the dialect writes the statements on alarm_tags (tags.go).
	Tags TagSQL

	// Tx runs fn in one transaction and commits it, again from the start when the
	// database rolled it back as a victim (deadlock, serialization failure, busy). fn's
	// errors come back as they are.
	Tx func(ctx context.Context, fn func(tx DB) error) error
	// ScanAlarm reads one row of sqlrow.AlarmColumns; ScanAlarms reads every row, into
	// a slice of capacity hint.
	ScanAlarm  func(sqlrow.Scanner) (domain.Alarm, error)
	ScanAlarms func(rows sqlrow.Rows, hint int) ([]domain.Alarm, error)
	// LockAlarm reads the alarm with this id, locked until tx ends, and the store's now
	// read once the lock is held. No row is sql.ErrNoRows.
	LockAlarm func(ctx context.Context, tx DB, id string) (domain.Alarm, time.Time, error)
	// WriteTransition writes an unfenced transition and its events in tx.
	WriteTransition func(ctx context.Context, tx DB, t domain.Transition) error
	// StoredAlarm is a as a read of its row returns it (times at the store's precision).
	StoredAlarm func(domain.Alarm) domain.Alarm

	// The write paths (apply.go, create.go, bulk.go, lease.go): the engine's control
	// flow around each dialect's tuned batch statements. tx is a transaction of Tx.

	// Keep is a time as the store keeps it: UTC at its precision, zero kept zero.
	Keep func(time.Time) time.Time
	// NullKeys: an alarm without an idempotency key has NULL there, not '' (a unique
	// index without a predicate, which NULLs never collide in).
	NullKeys bool
	// ApplySorted: Apply hands ApplyBatch its transitions in alarm id order, the order
	// a database that locks rows must take them in for batches not to deadlock.
	ApplySorted bool
	// ApplyBatch writes ts (ids distinct), each fenced on its lease, and the events of
	// those that applied, and returns the ids that applied. Once it knows them it calls
	// notices in the same transaction, which inserts their notices; without a notice
	// in ts (HasNotice) it may run without an explicit transaction. An error means
	// nothing was written.
	ApplyBatch func(ctx context.Context, ts []domain.Transition, notices func(tx DB, applied map[string]bool) error) (map[string]bool, error)
	// InsertBatch inserts as (ids distinct, as stored) in tx, skipping each alarm
	// whose id or owner's idempotency key is taken (stored, or by an earlier alarm of
	// as), and returns the ids it inserted; found are the alarms it read by key on the
	// way, if any.
	InsertBatch func(ctx context.Context, tx DB, as []domain.Alarm) (inserted map[string]bool, found []domain.Alarm, err error)
	// AlarmsByKey reads the alarms of these owners' idempotency keys (distinct). Nil
	// when InsertBatch reads every key of its batch (MySQL, to tell its inserted rows).
	AlarmsByKey func(ctx context.Context, tx DB, keys []OwnerKey) ([]domain.Alarm, error)
	// InsertMany inserts as (at least one) in tx with every column as given; a taken
	// id or key is an error.
	InsertMany func(ctx context.Context, tx DB, as []domain.Alarm) error
	// InsertEvents appends es (at least one) in tx, numbered in the order given.
	InsertEvents func(ctx context.Context, tx DB, es []domain.Event) error
}

// mapError maps err once: errors the engine made, or already mapped, pass as they are.
func (e *Engine[T]) mapError(err error) error {
	if err == nil {
		return nil
	}
	if IsMapped(err) {
		return err
	}
	return e.MapError(err)
}
