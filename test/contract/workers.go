package contract

import (
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var workerCases = []testCase{
	{"RegisterAndHeartbeat", testWorkerRegisterHeartbeat},
	{"ReRegisterReplaces", testWorkerReRegister},
	{"Deregister", testWorkerDeregister},
	{"HeartbeatUnknown", testWorkerHeartbeatUnknown},
	{"ListOldestFirst", testWorkerListOldestFirst},
}

func (e *env) register(w domain.Worker) {
	e.t.Helper()
	if err := e.store.RegisterWorker(e.ctx, w); err != nil {
		e.t.Fatalf("RegisterWorker(%s): %v", w.ID, err)
	}
}

func (e *env) workers() []domain.Worker {
	e.t.Helper()
	ws, err := e.store.ListWorkers(e.ctx)
	if err != nil {
		e.t.Fatalf("ListWorkers: %v", err)
	}
	return ws
}

// wantWorkers checks the registered workers, in order; started and beat are the
// expected stamps of each.
func (e *env) wantWorkers(what string, want []domain.Worker) {
	e.t.Helper()
	got := e.workers()
	if len(got) != len(want) {
		e.t.Errorf("%s: %d workers, want %d", what, len(got), len(want))
		return
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.ID || g.Host != w.Host || g.PID != w.PID || g.Version != w.Version || !reflect.DeepEqual(g.Stats, w.Stats) ||
			!e.sameTime(g.StartedAt, w.StartedAt) || !e.sameTime(g.HeartbeatAt, w.HeartbeatAt) {
			e.t.Errorf("%s: worker %d = {%s %s %d %q started %s beat %s %+v}, want {%s %s %d %q started %s beat %s %+v}", what, i,
				g.ID, g.Host, g.PID, g.Version, fmtTime(g.StartedAt), fmtTime(g.HeartbeatAt), g.Stats,
				w.ID, w.Host, w.PID, w.Version, fmtTime(w.StartedAt), fmtTime(w.HeartbeatAt), w.Stats)
		}
	}
}

// Registering stamps started_at and heartbeat_at with the store's now and keeps the
// version and stats; a heartbeat moves heartbeat_at with the clock, replaces the
// stats, and changes nothing else.
func testWorkerRegisterHeartbeat(t *testing.T, e *env) {
	w := domain.Worker{ID: "node-a-1", Host: "node-a", PID: 4242, Version: "v1.2.3", Stats: domain.WorkerStats{Claimed: 1}}
	e.register(w)
	w.StartedAt, w.HeartbeatAt = e.now(), e.now()
	e.wantWorkers("after register", []domain.Worker{w})

	e.clock.Advance(15 * time.Second)
	stats := domain.WorkerStats{InFlight: 3, Claimed: 1 << 40, Delivered: 7, Failed: 2, Stale: 1, Delivered1m: 5, Failed1m: 1, Delivered1h: 7, Failed1h: 2,
		Endpoints: []domain.EndpointLoad{{Owner: "shop", Name: "billing", Queued: 4, InFlight: 8, HeldBack: 12}}}
	if err := e.store.Heartbeat(e.ctx, w.ID, stats); err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	w.HeartbeatAt, w.Stats = e.now(), stats
	e.wantWorkers("after heartbeat", []domain.Worker{w})
}

// Registering an id again replaces the row (a restarted process).
func testWorkerReRegister(t *testing.T, e *env) {
	e.register(domain.Worker{ID: "w", Host: "old-host", PID: 1})
	e.clock.Advance(time.Minute)
	w := domain.Worker{ID: "w", Host: "new-host", PID: 2}
	e.register(w)
	w.StartedAt, w.HeartbeatAt = e.now(), e.now()
	e.wantWorkers("after re-register", []domain.Worker{w})
}

// Deregistering removes the worker; removing an unknown one is fine; a heartbeat for
// a removed worker is ErrNotFound.
func testWorkerDeregister(t *testing.T, e *env) {
	stay := domain.Worker{ID: "stay", Host: "h", PID: 1}
	e.register(stay)
	e.register(domain.Worker{ID: "go", Host: "h", PID: 2})
	for _, id := range []string{"go", "go", "never-registered"} {
		if err := e.store.DeregisterWorker(e.ctx, id); err != nil {
			t.Errorf("DeregisterWorker(%s): %v", id, err)
		}
	}
	stay.StartedAt, stay.HeartbeatAt = e.now(), e.now()
	e.wantWorkers("after deregister", []domain.Worker{stay})
	wantErr(t, "Heartbeat after deregister", e.store.Heartbeat(e.ctx, "go", domain.WorkerStats{}), ports.ErrNotFound)
}

// A heartbeat for a worker never registered is ErrNotFound and registers nothing.
func testWorkerHeartbeatUnknown(t *testing.T, e *env) {
	wantErr(t, "Heartbeat(unknown)", e.store.Heartbeat(e.ctx, "ghost", domain.WorkerStats{}), ports.ErrNotFound)
	e.wantWorkers("after a heartbeat for nobody", nil)
}

// ListWorkers is oldest first (by started_at, not by id).
func testWorkerListOldestFirst(t *testing.T, e *env) {
	var want []domain.Worker
	for _, id := range []string{"m", "c", "x"} {
		w := domain.Worker{ID: id, Host: "host-" + id, PID: len(want) + 100}
		e.register(w)
		w.StartedAt, w.HeartbeatAt = e.now(), e.now()
		want = append(want, w)
		e.clock.Advance(time.Second)
	}
	e.wantWorkers("ListWorkers", want)
}
