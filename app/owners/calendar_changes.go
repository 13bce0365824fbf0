package owners

import (
	"context"
	"sync"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/ports"
)

// calendarChange is one change to record: its calendar, and "put" or "deleted".
type calendarChange struct{ owner, name, action string }

// changeLog writes a node's calendar changes into the cluster's "calendars" log (the
// state app.CalendarsStateName), several at a time: the changes made while one write
// runs wait for the next, which adds them all in one read and compare-and-set. So a
// node's own changes never race each other for the value however many come at once
// (an owner's flood of PUTs included), and only other nodes' writes can make a
// compare-and-set fail.
type changeLog struct {
	store ports.StateStore
	clock ports.Clock

	mu      sync.Mutex
	next    *changeBatch // the changes waiting for the next write; nil: none
	writing bool         // a goroutine writes batches until none waits
}

// changeBatch is the changes one write adds; done is closed once it ended, err its
// failure.
type changeBatch struct {
	changes []calendarChange
	done    chan struct{}
	err     error
}

// recordTries bounds how often one write reads the log again after another node's
// write got in first; past it, the write starts a log that drops everything.
const recordTries = 10

// record adds c to the next write and waits for it, or for ctx to end (the write goes
// on without the caller).
func (l *changeLog) record(ctx context.Context, c calendarChange) error {
	l.mu.Lock()
	if l.next == nil {
		l.next = &changeBatch{done: make(chan struct{})}
	}
	b := l.next
	b.changes = append(b.changes, c)
	start := !l.writing
	l.writing = true
	l.mu.Unlock()
	if start {
		go l.writeAll()
	}
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeAll writes batches until none waits.
func (l *changeLog) writeAll() {
	for {
		l.mu.Lock()
		b := l.next
		l.next = nil
		if b == nil {
			l.writing = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), app.StoreCallTimeout)
		b.err = l.write(ctx, b.changes)
		cancel()
		close(b.done)
	}
}

// write adds changes to the log, read and written back in one compare-and-set, so
// that no change is lost to another node's written at the same time. When the others
// keep getting in first, or the log has a shape no reader knows, it writes a log that
// drops every cached calendar instead.
func (l *changeLog) write(ctx context.Context, changes []calendarChange) error {
	for range recordTries {
		cur, _, err := l.store.GetState(ctx, app.CalendarsStateName)
		if err != nil {
			return err
		}
		log, err := app.ParseCalendarChanges(cur.Value)
		if err != nil {
			log = app.ResetCalendarChanges()
		}
		if swapped, err := l.store.SwapState(ctx, app.CalendarsStateName, cur.Value, l.with(log, changes).Encode()); err != nil || swapped {
			return err
		}
	}
	return l.store.PutState(ctx, app.CalendarsStateName, l.with(app.ResetCalendarChanges(), changes).Encode())
}

func (l *changeLog) with(log app.CalendarChanges, changes []calendarChange) app.CalendarChanges {
	now := l.clock.Now()
	for _, c := range changes {
		log = log.With(c.owner, c.name, c.action, now)
	}
	return log
}
