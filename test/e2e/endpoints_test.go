//go:build e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// aTimeout is endpoint A's delivery timeout: each of its wakes takes that long to fail.
const aTimeout = 2 * time.Second

// TestEndpointsKeepReceiversApart is issue 16's isolation test: two endpoints of one
// owner, A whose receiver never answers and B whose answers at once, 500 alarms each,
// all due together. B's wakes arrive on time while A's take their timeouts and A's
// breaker opens; once A answers again, every A wake is delivered; nothing is lost and
// the breaker kept A's alarms from burning their retries while it was open.
func TestEndpointsKeepReceiversApart(t *testing.T) {
	store := newStoreURL(t, onPostgres)
	b := NewReceiver(t, e2eSecret)
	hung := NewReceiver(t, e2eSecret)
	var aDown atomic.Bool
	aDown.Store(true)
	done := make(chan struct{})
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if aDown.Load() {
			// Never answers: the node's timeout ends it. The body is read first, or the
			// server would not notice the node hang up.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		hung.srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	t.Cleanup(func() { close(done) }) // runs first: no handler outlives the test

	admin := CreateToken(t, store, "ops", "--admin")
	owner := CreateToken(t, store, "e2e")
	node := StartNode(t, "n1", NodeConfig{Store: store, WakeURL: b.URL, Secret: e2eSecret, Extra: faultFlags(
		"--backoff-base", "500ms", "--backoff-cap", "2s", "--max-failures", "20",
		"--endpoint-breaker-failures", "10", "--endpoint-breaker-cooldown", "1s", "--endpoint-allow-cidr", receiverRange)})
	ops, c := NewClient(t, admin), NewClient(t, owner)
	for _, ep := range []string{
		fmt.Sprintf(`{"name":"a","url":%q,"secrets":[%q],"timeout_seconds":%g,"max_in_flight":10}`, a.URL, e2eSecret, aTimeout.Seconds()),
		fmt.Sprintf(`{"name":"b","url":%q,"secrets":[%q]}`, b.URL, e2eSecret),
	} {
		if status, raw := ops.do(node, http.MethodPost, "/admin/v1/owners/e2e/endpoints", ep, nil); status != http.StatusCreated {
			t.Fatalf("creating endpoint: HTTP %d %s", status, raw)
		}
	}

	due := time.Now().Add(3 * time.Second).UTC()
	for _, name := range []string{"a", "b"} {
		for batch := range 5 {
			body := `{"alarms":[`
			for i := range 100 {
				if i > 0 {
					body += ","
				}
				body += fmt.Sprintf(`{"kind":"once","fire_at":%q,"endpoint":%q,"label":"%s-%d"}`, due.Format(time.RFC3339Nano), name, name, batch*100+i)
			}
			body += `]}`
			if status, raw := c.do(node, http.MethodPost, "/v1/alarms/batch", body, nil); status != http.StatusOK {
				t.Fatalf("batch create: HTTP %d %s", status, raw)
			}
		}
	}

	// B: every wake on time, while A hangs.
	waitFor(t, 20*time.Second, "500 wakes at B", func() bool { return len(b.Deliveries()) >= 500 })
	var lags []time.Duration
	for _, d := range b.Deliveries() {
		lags = append(lags, d.Arrived.Sub(d.ScheduledFor))
	}
	slices.Sort(lags)
	p99 := lags[len(lags)*99/100]
	// The figure (issue 16 asks for p99 < 200 ms; docs/benchmarks.md and CHANGELOG
	// quote the runs) depends on the machine; what this test asserts is that B was not
	// held up by A: a B wake waiting behind A's would wait at least A's timeout.
	t.Logf("B: %d wakes, lag p50 %s p99 %s", len(lags), lags[len(lags)/2], p99)
	if p99 >= aTimeout/2 {
		t.Errorf("B's wakes: lag p99 %s while A hung; a B wake held up behind A's would wait its %s timeout", p99, aTimeout)
	}

	time.Sleep(4 * time.Second) // A's breaker opens and stays open a while
	aDown.Store(false)
	recovered := time.Now()
	// A's wakes held back while it hung are due again at its pace, a step of its 2 s
	// timeout over its max_in_flight after the last one held back, up to the router's
	// paceMaxWait of a minute from when each was held back: the last of them can come
	// due a minute after A answers again (most runs: 10-15 s). Two minutes leave room.
	waitFor(t, 2*time.Minute, "500 wakes at A after it recovered", func() bool { return len(hung.Deliveries()) >= 500 })
	t.Logf("A: all 500 delivered %s after it answered again", time.Since(recovered).Round(time.Millisecond))

	in := OpenInspector(t, onPostgres, store, "e2e")
	alarms := in.Alarms("")
	var failedAttempts int
	for _, al := range alarms {
		if al.Status != domain.StatusFired {
			t.Errorf("alarm %s (%s) is %s", al.ID, al.Label, al.Status)
		}
	}
	var idList []string
	for _, al := range alarms {
		idList = append(idList, al.ID)
	}
	for _, evs := range in.Events(idList) {
		for _, e := range evs {
			if e.Type == domain.EventRetryScheduled {
				failedAttempts++
			}
		}
	}
	// Without the breaker every A alarm would have failed at least once (500); with it,
	// the failures are the ones in flight before it opened (max_in_flight at a time, a
	// wave or three as the first ones time out together) and the probes: 11–30 here.
	t.Logf("A: %d failed attempts in all", failedAttempts)
	if failedAttempts > 100 {
		t.Errorf("%d failed attempts recorded: the open breaker did not hold A's wakes back", failedAttempts)
	}
	for name, r := range map[string]*Receiver{"a": hung, "b": b} {
		seen := map[string]bool{}
		for _, d := range r.Deliveries() {
			if d.Status == http.StatusOK && seen[d.OccurrenceKey] {
				t.Errorf("%s: %s delivered twice", name, d.OccurrenceKey)
			}
			seen[d.OccurrenceKey] = true
			if !d.SignatureOK {
				t.Errorf("%s: a wake with a bad signature", name)
			}
		}
	}
	stopAll(t, []*Node{node})
}
