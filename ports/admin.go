package ports

import (
	"context"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// AdminStore is the operator's side: every owner's alarms, read and changed by id alone,
// and counted. The admin API is its only caller, behind an admin-scoped token.
type AdminStore interface {
	AdminReader

	// AdminMutate is Mutate without the owner check: the same atomic read-decide-apply.
	AdminMutate(ctx context.Context, id string, fn MutateFunc) (domain.Alarm, error)

	// DeleteAlarms deletes the alarms with these ids, whatever their status or lease,
	// and all their events, in one transaction: the alarm rows first, then the events
	// of the ids deleted (see RetentionStore for why in that order). Unknown ids are
	// skipped. A worker still delivering a deleted alarm finds its outcome stale. At
	// most MaxDeleteIDs ids per call.
	DeleteAlarms(ctx context.Context, ids []string) (Deleted, error)
}

// AdminReader is the operator's reads, which a read replica may serve too (ReadReplica).
type AdminReader interface {
	// AdminList returns every owner's alarms matching f, newest first (by id), paged
	// like List: at most min(f.Limit, MaxListLimit), f.Limit <= 0 meaning
	// DefaultListLimit, and a cursor that is "" on the last page. An unparseable cursor
	// is a *domain.ValidationError on "cursor". A page's cost may grow with the alarms
	// it skips over that do not match f (an admin filter is not always backed by an
	// index); with f.Owner set it uses the owner's index as List does.
	AdminList(ctx context.Context, f AdminFilter) (alarms []domain.Alarm, nextCursor string, err error)

	// AdminGet returns the alarm with this id, whoever owns it. ErrNotFound when unknown.
	AdminGet(ctx context.Context, id string) (domain.Alarm, error)

	// AdminEvents is Events without the owner check.
	AdminEvents(ctx context.Context, id string, limit int) ([]domain.Event, error)

	// CountAlarms counts alarms by status, and the due backlog: active alarms whose
	// next_fire_at is at or before the store's now and that no worker holds a live
	// lease on, with the earliest such next_fire_at. It reads every alarm's status (an
	// index walk at best), so callers sample it (seconds apart), never per request.
	CountAlarms(ctx context.Context, lease time.Duration) (AlarmCounts, error)
}

// MaxDeleteIDs bounds one DeleteAlarms call.
const MaxDeleteIDs = 1000

// AdminFilter narrows AdminList. Zero fields do not filter.
type AdminFilter struct {
	Owner       string
	Status      domain.Status
	Kind        domain.Kind
	LabelPrefix string // alarms whose label starts with it (byte-wise)
	// FailedSince: status failed, failed (updated_at) at or after it, compared at the
	// store's TimePrecision (truncated first), so an alarm that failed at exactly this
	// instant is included.
	FailedSince time.Time
	Limit       int
	Cursor      string
}

// AlarmCounts is what CountAlarms saw.
type AlarmCounts struct {
	ByStatus  map[domain.Status]int64 // every status in domain.Statuses, zero included
	Due       int64                   // due and not held by a live lease
	OldestDue time.Time               // the earliest due next_fire_at among those; zero when Due is 0
	Now       time.Time               // the store's now the counts were taken at
}
