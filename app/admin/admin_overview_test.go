package admin_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// workersStore answers what the overview reads: no alarms, no shared state, and the
// workers the test registered. Any other call panics (the embedded nil Store).
type workersStore struct {
	ports.Store
	now     time.Time
	workers []domain.Worker
}

func (s *workersStore) Now(context.Context) (time.Time, error) { return s.now, nil }
func (s *workersStore) ListWorkers(context.Context) ([]domain.Worker, error) {
	return s.workers, nil
}
func (s *workersStore) CountAlarms(context.Context, time.Duration) (ports.AlarmCounts, error) {
	return ports.AlarmCounts{ByStatus: map[domain.Status]int64{}, Now: s.now}, nil
}
func (s *workersStore) GetState(context.Context, string) (ports.State, bool, error) {
	return ports.State{}, false, nil
}

// The overview sums the endpoints the live workers report queuing by owner and name
// (a worker that went silent is left out), busiest first, at most 20 of them.
func TestOverviewSumsQueuingEndpoints(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	load := func(owner, name string, queued, inFlight int, heldBack int64) domain.EndpointLoad {
		return domain.EndpointLoad{Owner: owner, Name: name, Queued: queued, InFlight: inFlight, HeldBack: heldBack}
	}
	worker := func(id string, beat time.Time, loads ...domain.EndpointLoad) domain.Worker {
		return domain.Worker{ID: id, HeartbeatAt: beat, Stats: domain.WorkerStats{Endpoints: loads}}
	}
	store := &workersStore{now: now, workers: []domain.Worker{
		worker("a", now, load("shop", "billing", 3, 8, 10), load("shop", "mail", 0, 4, 0)),
		worker("b", now, load("shop", "billing", 2, 8, 5), load("blog", "billing", 1, 1, 0)),
		worker("c", now),
		worker("silent", now.Add(-time.Hour), load("shop", "mail", 50, 4, 99), load("gone", "hook", 9, 9, 9)),
	}}
	adm := admin.New(store, app.NewStoreClock(), chores.NewDispatchGate(store, time.Second, nil, nil), nil,
		admin.Config{Lease: time.Minute, WorkerTimeout: 30 * time.Second}, nil)
	o, err := adm.Overview(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.EndpointLoad{
		load("shop", "billing", 5, 16, 15), // the same endpoint on two workers: summed
		load("blog", "billing", 1, 1, 0),   // another owner's endpoint of that name: apart
		load("shop", "mail", 0, 4, 0),
	}
	if o.LiveWorkers != 3 || !reflect.DeepEqual(o.QueuingEndpoints, want) {
		t.Errorf("overview of %d live workers: queuing %+v, want %+v", o.LiveWorkers, o.QueuingEndpoints, want)
	}

	// Many endpoints queuing: the 20 busiest.
	store.workers = nil
	for w := range 3 {
		var loads []domain.EndpointLoad
		for i := range domain.MaxWorkerEndpoints {
			loads = append(loads, load("o", fmt.Sprintf("e%02d", w*domain.MaxWorkerEndpoints+i), w*domain.MaxWorkerEndpoints+i+1, 0, 0))
		}
		store.workers = append(store.workers, worker(fmt.Sprint(w), now, loads...))
	}
	if o, err = adm.Overview(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(o.QueuingEndpoints); n != domain.MaxQueuingEndpoints || o.QueuingEndpoints[0].Name != "e29" || o.QueuingEndpoints[n-1].Name != "e10" {
		t.Errorf("of 30 endpoints queuing: %+v, want the 20 busiest, e29 to e10", o.QueuingEndpoints)
	}
}
