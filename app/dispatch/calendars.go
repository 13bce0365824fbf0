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
	GetCalendars(ctx context.Context, owner string, names []string) ([]domain.Calendar, error)
	GetState(ctx context.Context, name string) (ports.State, bool, error)
}

// calendarRefresh is how often the cache looks at the "calendars" state value.
const calendarRefresh = time.Second

// calendarCache keeps calendars one by one, as last read, each dropped when its entry
// in the "calendars" log moves (every change writes one: owners.Calendars), all of an
// owner's when the owner's entries were folded into one, everything when the log was
// reset or cannot be read, and each at most app.CalendarCacheMaxAge old. Only series
// that name calendars ask, and a series reads only the calendars it names.
type calendarCache struct {
	src   CalendarSource
	watch *stateWatch

	mu        sync.Mutex
	entries   map[calendarKey]cachedCalendar
	seen      map[calendarKey]string // each entry's version in the log last applied
	reset     string                 // that log's Reset
	applied   bool                   // a log was applied since the cache was made
	drops     uint64                 // moves at every drop: a read begun before one is not kept
	lastSweep time.Time
}

// calendarKey is one owner's calendar; name "" stands for all of the owner's in the log.
type calendarKey struct{ owner, name string }

// cachedCalendar is one calendar as read; cal nil when the owner has none of that name.
type cachedCalendar struct {
	cal  *domain.Calendar
	read time.Time
}

func newCalendarCache(src CalendarSource) *calendarCache {
	if src == nil {
		return nil
	}
	return &calendarCache{
		src:     src,
		watch:   newStateWatch(src, app.CalendarsStateName, calendarRefresh),
		entries: map[calendarKey]cachedCalendar{},
	}
}

// forAlarm returns the calendars a names when it is a series naming some, nil
// otherwise (nothing read); those it does not hold, or holds too old, it reads, by
// name. An error means they could not be read: the firing must wait rather than
// deliver on a day that may be excluded.
func (c *calendarCache) forAlarm(ctx context.Context, a domain.Alarm) ([]domain.Calendar, error) {
	names := a.Series.ExcludeCalendars
	if c == nil || len(names) == 0 {
		return nil, nil
	}
	if c.watch.moved(ctx) {
		c.apply(c.watch.current())
	}
	now := time.Now()
	var (
		cals    []domain.Calendar
		missing []string
	)
	c.mu.Lock()
	c.sweep(now)
	for _, n := range names {
		got, ok := c.entries[calendarKey{a.Owner, n}]
		switch {
		case !ok || now.Sub(got.read) >= app.CalendarCacheMaxAge:
			missing = append(missing, n)
		case got.cal != nil:
			cals = append(cals, *got.cal)
		}
	}
	drops := c.drops
	c.mu.Unlock()
	if len(missing) == 0 {
		return cals, nil
	}
	read, err := c.src.GetCalendars(ctx, a.Owner, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.drops == drops { // a change seen meanwhile may postdate this read
		for _, n := range missing {
			c.entries[calendarKey{a.Owner, n}] = cachedCalendar{read: now}
		}
		for i := range read {
			c.entries[calendarKey{a.Owner, read[i].Name}] = cachedCalendar{cal: &read[i], read: now}
		}
	}
	c.mu.Unlock()
	return append(cals, read...), nil
}

// apply drops what the log value says changed since the log last applied.
func (c *calendarCache) apply(value string) {
	log, err := app.ParseCalendarChanges(value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || !c.applied || log.Reset != c.reset {
		clear(c.entries)
		c.drops++
	} else {
		for _, ch := range log.Changes {
			k := calendarKey{ch.Owner, ch.Name}
			if c.seen[k] == ch.Version {
				continue
			}
			c.drops++
			if ch.Name != "" {
				delete(c.entries, k)
				continue
			}
			for e := range c.entries {
				if e.owner == ch.Owner {
					delete(c.entries, e)
				}
			}
		}
	}
	c.applied, c.reset = err == nil, log.Reset
	c.seen = make(map[calendarKey]string, len(log.Changes))
	for _, ch := range log.Changes {
		c.seen[calendarKey{ch.Owner, ch.Name}] = ch.Version
	}
}

// sweep forgets, once per max age, the calendars read longer ago than that: they are
// read again when next asked for anyway, and the cache keeps only what is in use.
// Called with mu held.
func (c *calendarCache) sweep(now time.Time) {
	if now.Sub(c.lastSweep) < app.CalendarCacheMaxAge {
		return
	}
	c.lastSweep = now
	for k, e := range c.entries {
		if now.Sub(e.read) >= app.CalendarCacheMaxAge {
			delete(c.entries, k)
		}
	}
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
