package owners

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// CalendarStore is what the calendar use cases call: the calendars, and the cluster
// state value every change is recorded in (app.CalendarsStateName). A ports.Store is
// one.
type CalendarStore interface {
	ports.CalendarStore
	ports.StateStore
}

// Calendars is an owner's exclusion calendars: put (create or replace), read, list,
// delete. Every change is recorded in the "calendars" state, so the dispatchers drop
// that calendar from their caches within a second and the next occurrence of every
// series using it follows it.
type Calendars struct {
	store   CalendarStore
	clock   ports.Clock
	limits  domain.CalendarLimits
	log     *zap.Logger
	changes *changeLog

	mu      sync.Mutex
	listing map[string]bool // owners with a List running on this node
}

// NewCalendars builds the use cases, holding every owner to limits (the zero value:
// none); log may be nil.
func NewCalendars(store CalendarStore, clock ports.Clock, limits domain.CalendarLimits, log *zap.Logger) *Calendars {
	if log == nil {
		log = zap.NewNop()
	}
	return &Calendars{store: store, clock: clock, limits: limits, log: log, changes: &changeLog{store: store, clock: clock},
		listing: map[string]bool{}}
}

// Put validates c (a *domain.ValidationError naming the field, also for a calendar
// over the limit of entries) and stores it, replacing the owner's calendar of that
// name if there is one; a new one past the owner's limit of calendars is refused
// (domain.CalendarsOverLimit).
func (s *Calendars) Put(ctx context.Context, c domain.Calendar) (domain.Calendar, error) {
	if err := s.limits.CheckEntries(c); err != nil {
		return domain.Calendar{}, err
	}
	if err := domain.ValidateCalendar(c); err != nil {
		return domain.Calendar{}, err
	}
	stored, err := s.store.PutCalendar(ctx, domain.NormalizeCalendar(c), s.limits.PerOwner)
	if err != nil {
		return domain.Calendar{}, err
	}
	s.changed(ctx, c.Owner, c.Name, "put")
	return stored, nil
}

// Get returns the owner's calendar (ports.ErrNotFound when there is none).
func (s *Calendars) Get(ctx context.Context, owner, name string) (domain.Calendar, error) {
	return s.store.GetCalendar(ctx, owner, name)
}

// listBusyRetry is the Retry-After of a List refused while the owner's previous one
// runs: a list reads for a fraction of a second.
const listBusyRetry = time.Second

// List returns the owner's calendars by name. A list holds every entry of every
// calendar at once (with the limits' defaults, some 14 MB while it is read and
// answered), so a node runs one per owner at a time: another meanwhile is refused with
// domain.ErrRateLimited, and many clients of one owner cannot fill a node's memory.
func (s *Calendars) List(ctx context.Context, owner string) ([]domain.Calendar, error) {
	s.mu.Lock()
	running := s.listing[owner]
	s.listing[owner] = true
	s.mu.Unlock()
	if running {
		return nil, &domain.LimitError{Kind: domain.ErrRateLimited, RetryAfter: listBusyRetry,
			Message: "a list of this owner's calendars is being read on this node; retry when it has ended"}
	}
	defer func() {
		s.mu.Lock()
		delete(s.listing, owner)
		s.mu.Unlock()
	}()
	return s.store.ListCalendars(ctx, owner)
}

// Delete removes the owner's calendar, refused (a *ports.CalendarInUseError) while an
// active or paused series names it.
func (s *Calendars) Delete(ctx context.Context, owner, name string) error {
	if err := s.store.DeleteCalendar(ctx, owner, name); err != nil {
		return err
	}
	s.changed(ctx, owner, name, "deleted")
	return nil
}

// changed records the change in the calendars' state (changeLog) and waits for it to
// be written, as long as ctx lets it. A record that fails is logged: the calendar is
// stored, and the dispatchers' caches still expire (app.CalendarCacheMaxAge).
func (s *Calendars) changed(ctx context.Context, owner, name, action string) {
	if err := s.changes.record(ctx, calendarChange{owner, name, action}); err != nil {
		s.log.Warn("recording a calendar change failed; dispatchers see it when their cache expires",
			zap.String("owner", owner), zap.String("calendar", name), zap.Error(err))
	}
}
