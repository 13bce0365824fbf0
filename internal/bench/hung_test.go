package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// The hung-endpoint report's arithmetic: the fast endpoint's wakes split around the hung
// period (as the quiet owners' around a burst), the hung owner's acknowledged wakes
// apart, and the p99 added: with minus without.
func TestMeasureHung(t *testing.T) {
	due := time.Unix(1_000, 0)
	at := func(d time.Duration) int64 { return due.Add(d).UnixNano() }
	log := OwnerLogData{
		Burst: 1, // a hung wake acknowledged: reported, never mixed with the fast ones
		Quiet: [][2]int64{
			{at(-time.Second), at(-time.Second + 2*time.Millisecond)},           // before: 2 ms
			{at(-5 * time.Millisecond), at(45 * time.Millisecond)},              // due before, waited into the period: during, 50 ms
			{at(time.Second), at(time.Second + 10*time.Millisecond)},            // during: 10 ms
			{at(3 * time.Second), at(3*time.Second + 200*time.Millisecond)},     // due at the period's end: during, 200 ms
			{at(3*time.Second + 1), at(3*time.Second + 1 + 4*time.Millisecond)}, // after: 4 ms
		},
	}
	h := measureHung(log, due, due.Add(3*time.Second))
	if h.PeriodMs != 3000 || h.HungDelivered != 1 || h.FastDelivered != 5 {
		t.Errorf("period %v ms, hung delivered %d, fast delivered %d; want 3000, 1, 5", h.PeriodMs, h.HungDelivered, h.FastDelivered)
	}
	for _, c := range []struct {
		name     string
		got      lagSummary
		count    uint64
		p99, max float64
	}{
		{"before", h.FastBefore, 1, 2, 2},
		{"during", h.FastDuring, 3, 200, 200},
		{"after", h.FastAfter, 1, 4, 4},
	} {
		if c.got.Count != c.count || c.got.MaxMs != c.max || c.got.P99Ms != c.p99 {
			t.Errorf("%s: %+v; want %d wakes, p99 and max %v ms", c.name, c.got, c.count, c.max)
		}
	}
	without := measureHung(OwnerLogData{Quiet: [][2]int64{{at(time.Second), at(time.Second + 30*time.Millisecond)}}}, due, due.Add(3*time.Second))
	if got := addedP99(&h, &without); got != 170 {
		t.Errorf("added p99 = %v ms, want 200 - 30 = 170", got)
	}
}

// The nodes' held-back counts add up by reason, the queue peak is the highest node's,
// and the table lists the reasons in a fixed order with their total.
func TestEndpointFiguresMerge(t *testing.T) {
	m := newHeldBackMetrics()
	m.Deferred(ports.DeferredEndpointFull)
	m.Deferred(ports.DeferredEndpointFull)
	m.Deferred(ports.DeferredEndpointBreaker)
	m.EndpointQueues(1, 7)
	m.EndpointQueues(1, 3)
	m.EndpointBreaker(true)
	m.EndpointBreaker(false)
	var sum endpointFigures
	sum.merge(m.snapshot())
	sum.merge(endpointFigures{HeldBack: map[string]int64{ports.DeferredOwnerCap: 4, ports.DeferredEndpointFull: 1}, PeakQueued: 5, BreakerOpens: 2})
	if sum.PeakQueued != 7 || sum.BreakerOpens != 3 {
		t.Errorf("peak queued %d, breakers opened %d; want 7 and 3", sum.PeakQueued, sum.BreakerOpens)
	}
	if got, want := sum.heldBackText(), "8 (endpoint_breaker 1, endpoint_full 3, owner_cap 4)"; got != want {
		t.Errorf("held back %q, want %q", got, want)
	}
	if got := (endpointFigures{}).heldBackText(); got != "0" {
		t.Errorf("nothing held back reads %q, want 0", got)
	}
}

// The hung receiver holds every wake until released, counts attempts and the alarms
// among them (a retry carries its occurrence's key), notes when the last alarm had its
// first attempt, and then answers 503.
func TestHungReceiver(t *testing.T) {
	h := newHungReceiver(2, time.Minute)
	done := make(chan int, 3)
	for _, key := range []string{"a/1", "a/1", "b/1"} {
		go func() {
			req := httptest.NewRequest(http.MethodPost, "/hung", strings.NewReader("{}"))
			req.Header.Set("Idempotency-Key", key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			done <- rec.Code
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.counts().Attempts < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	c := h.counts()
	if c.Attempts != 3 || c.Attempted != 2 || c.PeakHeld != 3 || c.AllAttempted.IsZero() {
		t.Fatalf("%+v; want 3 attempts of 2 alarms, 3 held, every alarm attempted", c)
	}
	select {
	case code := <-done:
		t.Fatalf("a wake was answered (%d) before the release", code)
	default:
	}
	h.releaseAll()
	for range 3 {
		if code := <-done; code != http.StatusServiceUnavailable {
			t.Errorf("released wake answered %d, want 503", code)
		}
	}
}

// A held request as old as the node's timeout is one the node gave up on: the next
// attempt, which the cap let in because of it, does not count it as held.
func TestHungReceiverForgetsGivenUpRequests(t *testing.T) {
	h := newHungReceiver(10, time.Second)
	t0 := time.Unix(1_000, 0)
	h.arrived("a/1", t0)
	h.arrived("b/1", t0.Add(time.Millisecond))
	h.arrived("c/1", t0.Add(time.Second)) // a and b timed out: the server has not seen it yet
	h.arrived("d/1", t0.Add(time.Second+time.Millisecond))
	if c := h.counts(); c.PeakHeld != 2 || c.Attempts != 4 {
		t.Errorf("%+v; want 4 attempts, at most 2 held at once", c)
	}
}
