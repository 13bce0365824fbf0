package dispatch_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/owners"
	"github.com/chronoshq/chronos/domain"
)

// A calendar changed while its series runs applies to the series' next occurrence on
// every dispatcher, the series row untouched by the change: the dispatcher's cache
// follows the "calendars" state the change bumps. Today excluded, the series records
// one excluded event and waits for tomorrow; no wake is sent meanwhile.
func TestCalendarChangeReachesARunningSeries(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cals := owners.NewCalendars(e.store, e.sclock, domain.CalendarLimits{}, nil)
	if _, err := cals.Put(ctx, domain.Calendar{Owner: "alice", Name: "days", Timezone: "UTC"}); err != nil {
		t.Fatal(err)
	}
	r := newReceiver(t, nil)
	cfg := testConfig("w1")
	cfg.Calendars = e.store
	e.start(t, e.waker(t, r), cfg)
	a := e.create(t, domain.Spec{Kind: domain.KindCron, CronExpr: "@every 1s", Series: domain.Series{ExcludeCalendars: []string{"days"}}})
	eventually(t, 5*time.Second, "a wake of the series", func() bool { return len(r.received()) > 0 })

	today := time.Now().UTC().Format("2006-01-02")
	if _, err := cals.Put(ctx, domain.Calendar{Owner: "alice", Name: "days", Timezone: "UTC", ExcludeDates: []string{today}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "an excluded event", func() bool {
		return slices.Contains(eventTypes(e.events(t, a.ID)), domain.EventExcluded)
	})
	got := e.get(t, a.ID)
	midnight := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	if got.Status != domain.StatusActive || got.ScheduledFor.Before(midnight) || got.ScheduledFor.After(midnight.Add(time.Second)) {
		t.Errorf("after the change the series is %s at %s, want active at %s", got.Status, got.ScheduledFor, midnight)
	}
	n := len(r.received())
	time.Sleep(1500 * time.Millisecond)
	if more := len(r.received()) - n; more > 0 {
		t.Errorf("%d wakes sent on an excluded day", more)
	}
}

// Changes made at once, on several nodes, are each recorded in the calendars' log, so
// every dispatcher drops each changed calendar (and no other): none is lost to another
// written at the same moment, and none makes the others give up.
func TestCalendarChangesAtOnceAreAllRecorded(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	nodes := []*owners.Calendars{
		owners.NewCalendars(e.store, e.sclock, domain.CalendarLimits{}, nil),
		owners.NewCalendars(e.store, e.sclock, domain.CalendarLimits{}, nil),
	}
	const changes = 24
	var wg sync.WaitGroup
	for i := range changes {
		wg.Go(func() {
			c := domain.Calendar{Owner: fmt.Sprint("owner", i%3), Name: fmt.Sprint("cal", i), Timezone: "UTC"}
			if _, err := nodes[i%2].Put(ctx, c); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st, _, err := e.store.GetState(ctx, app.CalendarsStateName)
	if err != nil {
		t.Fatal(err)
	}
	log, err := app.ParseCalendarChanges(st.Value)
	if err != nil {
		t.Fatal(err)
	}
	if log.Reset != "" {
		t.Errorf("the log was reset (every cached calendar dropped) rather than each change recorded")
	}
	recorded := map[string]bool{}
	for _, c := range log.Changes {
		recorded[c.Owner+"/"+c.Name] = true
	}
	for i := range changes {
		if k := fmt.Sprintf("owner%d/cal%d", i%3, i); !recorded[k] {
			t.Errorf("the change of %s is not in the log (reset %q)", k, log.Reset)
		}
	}
}
