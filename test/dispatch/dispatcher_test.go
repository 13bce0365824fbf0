package dispatch_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func TestDeliversOnceAlarmSignedWithPayloadAndMarksFired(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	e.start(t, e.waker(t, r), testConfig("w1"))

	payload := `{"b": 1,  "a": [1, 2]}`
	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(50 * time.Millisecond), Payload: []byte(payload), Label: "tea"})
	eventually(t, 3*time.Second, "alarm fired", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })

	got := r.received()
	if len(got) != 1 {
		t.Fatalf("receiver got %d wakes, want 1", len(got))
	}
	w := got[0]
	if string(w.Payload) != payload {
		t.Errorf("payload = %s, want byte-for-byte %s", w.Payload, payload)
	}
	if w.OccurrenceKey != a.OccurrenceKey() || w.Header.Get("Idempotency-Key") != a.OccurrenceKey() {
		t.Errorf("occurrence key body %q header %q, want %q", w.OccurrenceKey, w.Header.Get("Idempotency-Key"), a.OccurrenceKey())
	}
	if err := webhook.Verify([]byte(secret), w.Header.Get("Chronos-Signature"), w.Raw, time.Now(), time.Minute); err != nil {
		t.Errorf("signature does not verify: %v", err)
	}
	if w.Attempt != 1 {
		t.Errorf("attempt = %d, want 1", w.Attempt)
	}
	if early := w.At.Sub(a.FireAt); early < -50*time.Millisecond {
		t.Errorf("wake arrived %s before its fire_at", -early)
	}
	if types := eventTypes(e.events(t, a.ID)); !slices.Equal(types, []domain.EventType{domain.EventCreated, domain.EventFired}) {
		t.Errorf("events = %v", types)
	}
	st := e.get(t, a.ID)
	if st.Claimed() || st.LastFiredAt.IsZero() {
		t.Errorf("fired alarm still leased (%q) or without last_fired_at", st.ClaimedBy)
	}
}

func TestRetryLadderThenSuccessKeepsOccurrenceKey(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, func(n int64, _ wake) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	})
	e.start(t, e.waker(t, r), testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	eventually(t, 5*time.Second, "alarm fired after retries", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })

	got := r.received()
	if len(got) != 3 {
		t.Fatalf("receiver got %d wakes, want 3 (two failures, one success)", len(got))
	}
	for i, w := range got {
		if w.Attempt != i+1 {
			t.Errorf("wake %d attempt = %d, want %d", i, w.Attempt, i+1)
		}
		if w.OccurrenceKey != a.OccurrenceKey() {
			t.Errorf("wake %d occurrence key %q changed from %q", i, w.OccurrenceKey, a.OccurrenceKey())
		}
	}
	// Backoff 50ms then 100ms: each retry waits at least its rung.
	if gap := got[1].At.Sub(got[0].At); gap < 45*time.Millisecond {
		t.Errorf("first retry after %s, want >= 50ms", gap)
	}
	if gap := got[2].At.Sub(got[1].At); gap < 95*time.Millisecond {
		t.Errorf("second retry after %s, want >= 100ms", gap)
	}
	final := e.get(t, a.ID)
	if !strings.Contains(final.LastError, "503") {
		t.Errorf("last_error = %q, want the 503 kept", final.LastError)
	}
	want := []domain.EventType{domain.EventCreated, domain.EventRetryScheduled, domain.EventRetryScheduled, domain.EventFired}
	if types := eventTypes(e.events(t, a.ID)); !slices.Equal(types, want) {
		t.Errorf("events = %v, want %v", types, want)
	}
}

func TestOnceAlarmExhaustsMaxFailures(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { return http.StatusInternalServerError })
	e.start(t, e.waker(t, r), testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0)), MaxFailures: 2})
	eventually(t, 5*time.Second, "alarm failed", func() bool { return e.get(t, a.ID).Status == domain.StatusFailed })
	time.Sleep(300 * time.Millisecond) // nothing more may arrive

	if n := len(r.received()); n != 2 {
		t.Errorf("max_failures=2 made %d delivery attempts, want exactly 2", n)
	}
	final := e.get(t, a.ID)
	if final.FailureCount != 2 || !strings.Contains(final.LastError, "HTTP 500") {
		t.Errorf("failure_count=%d last_error=%q", final.FailureCount, final.LastError)
	}
	want := []domain.EventType{domain.EventCreated, domain.EventRetryScheduled, domain.EventFailed}
	if types := eventTypes(e.events(t, a.ID)); !slices.Equal(types, want) {
		t.Errorf("events = %v, want %v", types, want)
	}
}

func TestCronSeriesSkipsAndAdvancesWhenExhausted(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { return http.StatusBadGateway })
	e.start(t, e.waker(t, r), testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindCron, CronExpr: "@every 1s", MaxFailures: 2})
	first := a.ScheduledFor
	eventually(t, 5*time.Second, "series skipped", func() bool {
		return slices.Contains(eventTypes(e.events(t, a.ID)), domain.EventSkipped)
	})
	got := e.get(t, a.ID)
	if got.Status != domain.StatusActive || got.FailureCount != 0 {
		t.Errorf("after skip: status %s failure_count %d, want active and 0", got.Status, got.FailureCount)
	}
	if !got.ScheduledFor.After(first) {
		t.Errorf("scheduled_for %s did not advance past %s", got.ScheduledFor, first)
	}
	if !strings.Contains(got.LastError, "502") {
		t.Errorf("last_error %q not kept after skip", got.LastError)
	}
	attempts := 0
	for _, w := range r.received() {
		if w.ScheduledFor.Equal(first) {
			attempts++
		}
	}
	if attempts != 2 {
		t.Errorf("first occurrence got %d attempts, want 2", attempts)
	}
}

func TestAtMostOnceIsNeverRetried(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { return http.StatusServiceUnavailable })
	e.start(t, e.waker(t, r), testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0)), Delivery: domain.AtMostOnce})
	eventually(t, 3*time.Second, "loss recorded", func() bool { return e.get(t, a.ID).Status == domain.StatusFailed })
	time.Sleep(300 * time.Millisecond)

	if n := len(r.received()); n != 1 {
		t.Errorf("at-most-once alarm delivered %d times, want exactly 1", n)
	}
	got := e.get(t, a.ID)
	if got.Claimed() || !strings.Contains(got.LastError, "503") {
		t.Errorf("lease %q last_error %q: want released and the loss recorded", got.ClaimedBy, got.LastError)
	}
	want := []domain.EventType{domain.EventCreated, domain.EventFired, domain.EventAttemptFailed}
	if types := eventTypes(e.events(t, a.ID)); !slices.Equal(types, want) {
		t.Errorf("events = %v, want %v", types, want)
	}
}

// A worker that lost its lease (it stalled past it, and another worker re-claimed and
// fired the alarm) must change nothing when it finally reports.
func TestStaleWorkerOutcomeIsFencedOut(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	// A failed check below must not leave the receiver's handler blocked: closing the
	// server would wait for it until the test binary's timeout.
	t.Cleanup(unblock)
	slow := newReceiver(t, func(int64, wake) int { <-release; return http.StatusInternalServerError })
	fast := newReceiver(t, nil)

	cfgA := testConfig("stalled")
	cfgA.DeliveryTimeout = 10 * time.Second
	cfgA.Lease = 11 * time.Second
	// One delivery slot, held by the stalled wake: A cannot claim the alarm again once
	// its lease has expired, so B is the one that does.
	cfgA.Concurrency = 1
	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	dA, _ := e.start(t, e.waker(t, slow), cfgA)
	eventually(t, 3*time.Second, "worker A delivering", func() bool { return slow.count.Load() == 1 })

	// Time passes beyond A's lease; B claims the expired lease and fires the alarm.
	e.clock.Advance(12 * time.Second)
	cfgB := testConfig("rescuer")
	cfgB.Lease = 11 * time.Second
	cfgB.DeliveryTimeout = 10 * time.Second
	e.start(t, e.waker(t, fast), cfgB)
	eventually(t, 3*time.Second, "worker B fired it", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })

	unblock() // A's delivery fails now; its retry transition must be refused
	eventually(t, 3*time.Second, "A's outcome refused", func() bool { return dA.Stats().Stale == 1 })
	got := e.get(t, a.ID)
	if got.Status != domain.StatusFired || got.FailureCount != 0 || got.LastError != "" {
		t.Errorf("stale worker changed the alarm: status %s failure_count %d last_error %q", got.Status, got.FailureCount, got.LastError)
	}
	for _, ev := range e.events(t, a.ID) {
		if ev.Worker == "stalled" {
			t.Errorf("stale worker wrote event %+v", ev)
		}
	}
}

func TestShutdownDrainsInFlightWakes(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { time.Sleep(300 * time.Millisecond); return http.StatusOK })
	_, stop := e.start(t, e.waker(t, r), testConfig("w1"))

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	eventually(t, 3*time.Second, "delivery in flight", func() bool { return r.count.Load() == 1 })
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v", err)
	}
	if got := e.get(t, a.ID); got.Status != domain.StatusFired || got.Claimed() {
		t.Errorf("after drain: status %s lease %q, want fired and released", got.Status, got.ClaimedBy)
	}
}

func TestShutdownAbandonsWakesPastDrainTimeoutKeepingTheLease(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, func(int64, wake) int { time.Sleep(3 * time.Second); return http.StatusOK })
	cfg := testConfig("w1")
	cfg.DrainTimeout = 100 * time.Millisecond
	cfg.DeliveryTimeout = 4 * time.Second
	d, stop := e.start(t, e.waker(t, r), cfg)

	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	eventually(t, 3*time.Second, "delivery in flight", func() bool { return r.count.Load() == 1 })
	began := time.Now()
	_ = stop()
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("shutdown took %s with a 100ms drain timeout", took)
	}
	got := e.get(t, a.ID)
	if got.Status != domain.StatusActive || got.ClaimedBy != "w1" || got.FailureCount != 0 {
		t.Errorf("abandoned alarm: status %s lease %q failures %d; want active, still leased by w1, no failure recorded", got.Status, got.ClaimedBy, got.FailureCount)
	}
	if d.Stats().Abandoned != 1 {
		t.Errorf("abandoned = %d, want 1", d.Stats().Abandoned)
	}

	// The lease rule re-fires it: once the lease has expired, a new dispatcher delivers it.
	e.clock.Advance(cfg.Lease + time.Second)
	r2 := newReceiver(t, nil)
	e.start(t, e.waker(t, r2), testConfig("w2"))
	eventually(t, 3*time.Second, "re-fired after lease expiry", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })
}

func TestClaimErrorsDoNotEndTheLoop(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	flaky := &flakyStore{Store: e.store, fail: 3}
	d, err := newDispatcherOn(flaky, e, e.waker(t, r))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = d.Run(ctx) }()
	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	eventually(t, 5*time.Second, "fired despite claim errors", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })
	if d.Stats().ClaimErrors < 3 {
		t.Errorf("claim errors = %d, want >= 3", d.Stats().ClaimErrors)
	}
}

// A claim on a connection a network fault left hanging never answers. The dispatcher
// gives up on it at its deadline (half the lease at most) and claims again; without
// one the loop waited for good and the node never fired again.
func TestClaimThatNeverAnswersTimesOut(t *testing.T) {
	e := newEnv(t)
	r := newReceiver(t, nil)
	hung := &hungStore{Store: e.store, hang: 1}
	d, err := newDispatcherOn(hung, e, e.waker(t, r))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = d.Run(ctx) }()
	a := e.create(t, domain.Spec{Kind: domain.KindOnce, Delay: ptr(time.Duration(0))})
	lease := testConfig("").Lease
	eventually(t, lease, "fired after a claim that never answered", func() bool { return e.get(t, a.ID).Status == domain.StatusFired })
	if got := d.Stats().ClaimErrors; got != 1 {
		t.Errorf("claim errors = %d, want 1 (the claim that timed out)", got)
	}
}

var (
	_ ports.Store = (*flakyStore)(nil)
	_ ports.Store = (*hungStore)(nil)
)
