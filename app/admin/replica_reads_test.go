package admin_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// alarmsReader answers the admin's reads with one alarm, named after where it was read,
// or with err; it counts the reads it was asked.
type alarmsReader struct {
	name   string
	active int64 // the count of active alarms it answers
	err    error
	lag    time.Duration
	reads  int
}

func (r *alarmsReader) List(context.Context, ports.ListFilter) ([]domain.Alarm, string, error) {
	r.reads++
	return []domain.Alarm{{ID: r.name}}, "", r.err
}
func (r *alarmsReader) Get(context.Context, ports.Scope, string) (domain.Alarm, error) {
	r.reads++
	return domain.Alarm{ID: r.name}, r.err
}
func (r *alarmsReader) Events(context.Context, ports.Scope, string, int) ([]domain.Event, error) {
	r.reads++
	return []domain.Event{{Type: domain.EventType(r.name)}}, r.err
}
func (r *alarmsReader) Attempts(context.Context, ports.AttemptsQuery) ([]domain.Event, string, error) {
	r.reads++
	return []domain.Event{{Type: domain.EventType(r.name)}}, "", r.err
}
func (r *alarmsReader) CountAlarms(context.Context, time.Duration) (ports.AlarmCounts, error) {
	r.reads++
	return ports.AlarmCounts{ByStatus: map[domain.Status]int64{domain.StatusActive: r.active}}, r.err
}
func (r *alarmsReader) GetState(context.Context, string) (ports.State, bool, error) {
	return ports.State{}, false, r.err
}
func (r *alarmsReader) ReplicationLag(context.Context) (time.Duration, error) { return r.lag, r.err }

// primaryStore is the workersStore with alarmsReader's reads.
type primaryStore struct {
	*workersStore
	*alarmsReader
}

func (s primaryStore) CountAlarms(ctx context.Context, lease time.Duration) (ports.AlarmCounts, error) {
	return s.alarmsReader.CountAlarms(ctx, lease)
}
func (s primaryStore) GetState(ctx context.Context, name string) (ports.State, bool, error) {
	return s.alarmsReader.GetState(ctx, name)
}

type settableClock struct{ now time.Time }

func (c *settableClock) Now() time.Time { return c.now }

// The admin's lists, alarms, histories and counts come from the replica; from the
// primary when the replica has not replayed the alarm asked for, or fails (and then for
// a while without asking it); never when the request itself is wrong.
func TestAdminReadsGoToTheReplica(t *testing.T) {
	ctx := t.Context()
	clock := &settableClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	primary := &alarmsReader{name: "primary", active: 1}
	replica := &alarmsReader{name: "replica", active: 2, lag: 2 * time.Second}
	store := primaryStore{&workersStore{now: clock.now}, primary}
	adm := admin.New(store, clock, chores.NewDispatchGate(store, time.Second, nil, nil), nil,
		admin.Config{Lease: time.Minute, WorkerTimeout: 30 * time.Second, Replica: replica}, nil)
	from := func(what string) string {
		t.Helper()
		var got string
		var err error
		switch what {
		case "list":
			var alarms []domain.Alarm
			alarms, _, err = adm.List(ctx, ports.ListFilter{Scope: ports.AnyOwner})
			if len(alarms) > 0 {
				got = alarms[0].ID
			}
		case "get":
			var a domain.Alarm
			a, err = adm.Get(ctx, "a1")
			got = a.ID
		case "events":
			var events []domain.Event
			events, err = adm.Events(ctx, "a1", 0)
			if len(events) > 0 {
				got = string(events[0].Type)
			}
		case "overview":
			var o domain.Overview
			o, err = adm.Overview(ctx)
			got = map[int64]string{1: "primary", 2: "replica"}[o.ByStatus[domain.StatusActive]]
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return got
	}
	reads := []string{"list", "get", "events", "overview"}
	for _, what := range reads {
		if got := from(what); got != "replica" {
			t.Errorf("%s with the replica up read the %s; want the replica", what, got)
		}
	}
	if o, _ := adm.Overview(ctx); o.Replica == nil || !o.Replica.Available || o.Replica.Lag != 2*time.Second {
		t.Errorf("overview's replica: %+v, want available, 2s behind", o.Replica)
	}

	replica.err = fmt.Errorf("postgres: %w", ports.ErrNotFound)
	if got := from("get"); got != "primary" {
		t.Errorf("an alarm the replica has not replayed yet was read from the %s; want the primary", got)
	}
	replica.err = &domain.ValidationError{Field: "cursor", Message: "unparseable"}
	before := primary.reads
	if _, _, err := adm.List(ctx, ports.ListFilter{Scope: ports.AnyOwner}); !errors.As(err, new(*domain.ValidationError)) || primary.reads != before {
		t.Errorf("a list the replica refused as invalid: %v, primary asked %d times; want the refusal, the primary never asked", err, primary.reads-before)
	}

	replica.err = fmt.Errorf("postgres: %w: connection refused", ports.ErrUnavailable)
	for _, what := range reads {
		if got := from(what); got != "primary" {
			t.Errorf("%s with the replica down read the %s; want the primary", what, got)
		}
	}
	o, _ := adm.Overview(ctx)
	if o.Replica == nil || o.Replica.Available || o.Replica.Error == "" {
		t.Errorf("overview's replica while it is down: %+v, want unavailable with why", o.Replica)
	}
	asked := replica.reads
	clock.now = clock.now.Add(10 * time.Second)
	from("list")
	if replica.reads != asked {
		t.Errorf("the replica was asked again %d times within 15 s of failing; want it left alone", replica.reads-asked)
	}
	replica.err = nil
	clock.now = clock.now.Add(10 * time.Second)
	if got := from("list"); got != "replica" {
		t.Errorf("15 s after the replica failed and with it back, a list read the %s; want the replica", got)
	}
	if o, _ := adm.Overview(ctx); o.Replica == nil || !o.Replica.Available {
		t.Errorf("overview's replica once back: %+v, want available", o.Replica)
	}
}
