package ports

import (
	"context"

	"github.com/chronoshq/chronos/domain"
)

// Exporter and Importer are optional: a store implements them so that `chronos export`
// can read everything it keeps and `chronos import` can write it into another store,
// of any kind, with every field as it was (docs/migrating-stores.md). What the other
// ports already read and write whole is not repeated here: endpoints are read with
// EndpointStore.ListEndpoints(""), tokens with TokenStore.ListTokens("") and written
// with CreateToken (which keeps every field it is given), cluster values with
// StateStore. Callers check for them with a type assertion and say plainly that the
// store cannot be exported or imported otherwise; adapters that implement them assert
// so at compile time, and the contract suite's Export cases round-trip every field
// through them (skipping, and saying so, on a store without them).
//
// Neither reads a consistent snapshot of the whole database across calls: the export
// is meant for a store no node is writing to (the command warns when workers are
// registered).
type Exporter interface {
	// ExportAlarms returns up to limit alarms of every owner whose id sorts after
	// after ("" from the start), in id order (byte-wise, as the stores' keys compare),
	// each exactly as stored: status, lease, counts, series options and state, payload
	// byte for byte. An empty slice means there are no more. limit >= 1. Its cost is the
	// rows it returns (the primary key), never a walk of the table per call.
	ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error)

	// ExportEvents returns up to limit stored events, ordered by alarm id, then event
	// id (each alarm's history oldest first), of the alarms whose ids lie in
	// (after.AlarmID, through] and of after.AlarmID itself past after.ID: a keyset walk
	// that a caller continues from the last event returned. Each carries every stored
	// field, its Receipt too (the attempt log, as Attempts reads it; nil on an event that
	// records no attempt), so ImportEvents rebuilds the attempt log. Only stored events: no
	// created event is made up (domain.CreatedEvent), while one that an older version
	// stored is returned like any other. Events whose alarm is gone (the stores have no
	// foreign key) are returned too; the caller decides. Each event carries its stored
	// ID, which is the cursor. limit >= 1. Its cost is the rows it returns (an index on
	// (alarm_id, id)).
	ExportEvents(ctx context.Context, after EventCursor, through string, limit int) ([]domain.Event, error)

	// ExportCalendars returns up to limit calendars of every owner whose (owner, name)
	// sorts after after's (the zero value: from the start), in (owner, name) order
	// (byte-wise, as the stores' keys compare), each exactly as stored: lists as
	// CalendarStore returns them, CreatedAt and UpdatedAt. An empty slice means there
	// are no more. limit >= 1. Its cost is the rows it returns (the primary key). One
	// owner's calendars are CalendarStore.ListCalendars.
	ExportCalendars(ctx context.Context, after CalendarCursor, limit int) ([]domain.Calendar, error)
}

// CalendarCursor is where ExportCalendars continues: after the calendar Name of Owner.
// The zero value starts at the first calendar.
type CalendarCursor struct {
	Owner, Name string
}

// EventCursor is where ExportEvents continues: after the event ID of alarm AlarmID. The
// zero value starts at the first event.
type EventCursor struct {
	AlarmID string
	ID      int64
}

// Importer writes rows exactly as another store exported them, bypassing what the
// regular writes decide for themselves (stamps, leases, created events). Each call is
// one transaction, all or nothing; a store may split it into several statements
// (parameter and packet limits), never into several transactions.
type Importer interface {
	// ImportAlarms inserts every alarm of as with every field exactly as given (times at
	// the store's precision): status, lease, counts, series options and state, payload
	// byte for byte. No created event is written (as CreateMany). An id, or an owner's
	// idempotency key, that is already stored or repeated within as is ErrConflict, and
	// then nothing is written. An empty slice writes nothing.
	ImportAlarms(ctx context.Context, as []domain.Alarm) error

	// ImportEvents appends es to their alarms' histories in the order given, so each
	// alarm's history keeps its order: the store gives them new ids, increasing in that
	// order (es[i].ID is ignored). Every field else is kept (times at the store's
	// precision), each Receipt as Apply writes one: Attempts reads it back. Their alarms should exist: a store with a foreign key from events to
	// alarms refuses an event of an unknown alarm (ErrConflict or ErrNotFound), and
	// then nothing is written. An empty slice writes nothing.
	ImportEvents(ctx context.Context, es []domain.Event) error

	// ImportEndpoints inserts es with every field exactly as given, CreatedAt and
	// UpdatedAt included (no stamping with the store's now); secrets exactly, in order.
	// An (owner, name) already stored or repeated within es is ErrConflict, and then
	// nothing is written. An empty slice writes nothing.
	ImportEndpoints(ctx context.Context, es []domain.Endpoint) error

	// ImportCalendars inserts cs (validated and normalised by the caller) with every
	// field exactly as given, CreatedAt and UpdatedAt included (no stamping with the
	// store's now). An (owner, name) already stored or repeated within cs is
	// ErrConflict, and then nothing is written. It writes no series' index entries:
	// ImportAlarms writes those from each series' ExcludeCalendars, so calendars and
	// series may be imported in either order (chronos import writes the calendars
	// first, as an owner's creates need them). An empty slice writes nothing.
	ImportCalendars(ctx context.Context, cs []domain.Calendar) error
}
