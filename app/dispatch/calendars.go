package dispatch

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// CalendarSource is where the dispatcher reads the owners' exclusion calendars: a
// ports.Store is one. A series' calendars are read when its occurrence comes due, not
// copied into it, so an edit applies to the next occurrence of every series using it.
type CalendarSource interface {
	ListCalendars(ctx context.Context, owner string) ([]domain.Calendar, error)
	GetState(ctx context.Context, name string) (ports.State, bool, error)
}

// calendarRefresh is how often the cache looks at the "calendars" state value.
const calendarRefresh = time.Second

// calendarCache keeps each owner's calendars as last read, all dropped when the
// "calendars" state value moves (every change writes a new one: owners.Calendars),
// and each at most app.CalendarCacheMaxAge old. Only series that name calendars ask.
type calendarCache struct {
	src   CalendarSource
	watch *stateWatch

	mu     sync.Mutex
	owners map[string]cachedCalendars
}

type cachedCalendars struct {
	cals []domain.Calendar
	read time.Time
}

func newCalendarCache(src CalendarSource) *calendarCache {
	if src == nil {
		return nil
	}
	return &calendarCache{
		src:    src,
		watch:  newStateWatch(src, app.CalendarsStateName, calendarRefresh),
		owners: map[string]cachedCalendars{},
	}
}

// forAlarm returns the calendars of a's owner when a is a series naming some, nil
// otherwise (nothing read). An error means they could not be read: the firing must
// wait rather than deliver on a day that may be excluded.
func (c *calendarCache) forAlarm(ctx context.Context, a domain.Alarm) ([]domain.Calendar, error) {
	if c == nil || len(a.Series.ExcludeCalendars) == 0 {
		return nil, nil
	}
	if c.watch.moved(ctx) {
		c.mu.Lock()
		clear(c.owners)
		c.mu.Unlock()
	}
	now := time.Now()
	version := c.watch.current()
	c.mu.Lock()
	got, ok := c.owners[a.Owner]
	c.mu.Unlock()
	if ok && now.Sub(got.read) < app.CalendarCacheMaxAge {
		return got.cals, nil
	}
	cals, err := c.src.ListCalendars(ctx, a.Owner)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.watch.current() == version { // a change seen meanwhile may postdate this read
		c.owners[a.Owner] = cachedCalendars{cals: cals, read: now}
	}
	c.mu.Unlock()
	return cals, nil
}

// calendarsUnavailable is how long a firing whose calendars could not be read waits
// before it is claimed again.
const calendarsUnavailable = 5 * time.Second

// beginFiring starts the firing of a claimed alarm with its owner's calendars. When
// they cannot be read the wake is held back (Firing.Skip is the deferral): a wake sent
// on a day its calendar excludes could not be taken back.
func (d *Dispatcher) beginFiring(ctx context.Context, a domain.Alarm, now time.Time) domain.Firing {
	if d.calendars == nil || len(a.Series.ExcludeCalendars) == 0 {
		return domain.Begin(a, now, d.cfg.Policy) // the hot path: no lookup, no timer
	}
	cctx, cancel := context.WithTimeout(ctx, d.cfg.storeTimeout())
	defer cancel()
	cals, err := d.calendars.forAlarm(cctx, a)
	if err != nil {
		d.log.Warn("reading the owner's calendars failed; the occurrence waits",
			zap.String("alarm", a.ID), zap.String("owner", a.Owner), zap.Error(err))
		f := domain.Begin(a, now, d.cfg.Policy)
		held := domain.Decide(domain.Firing{Alarm: a}, domain.Deferred(calendarsUnavailable, "calendars unavailable: "+err.Error()), now, d.cfg.Policy)
		f.Skip, f.Advance = &held, nil
		return f
	}
	return domain.BeginExcluding(a, cals, now, d.cfg.Policy)
}
