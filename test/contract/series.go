package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var seriesCases = []testCase{
	{"RoundTrip", testSeriesRoundTrip},
	{"ApplyWritesState", testSeriesApplyWritesState},
	{"StaleApplyWritesNoState", testSeriesStaleApply},
	{"MutateWritesState", testSeriesMutateWritesState},
	{"DuePauses", testSeriesDuePauses},
	{"UpdateWritesTheDefinition", testSeriesUpdateWritesDefinition},
	{"UpdateRacingAWakeInFlight", testSeriesUpdateRacingAWake},
}

// everyOption is a series with every option set; its times are off any store's
// precision, like the clock's.
func (e *env) everyOption() domain.Series {
	return domain.Series{
		Misfire:             domain.MisfireCatchUp,
		CatchUpLimit:        250,
		CatchUpWindow:       36 * time.Hour,
		MaxConsecutiveSkips: 4,
		StartAt:             e.now().Add(-time.Hour),
		EndAt:               e.now().Add(90*24*time.Hour + 987654321),
		MaxFires:            1000,
		JitterSeconds:       30,
		ExcludeCalendars:    []string{"holidays", "team-offsites"},
	}
}

// seriesAlarm is a cron alarm of owner, due every five minutes, with every series
// option and a count of fires and skips. The options are set on the built alarm: a
// store keeps what it is given, whoever validated it.
func (e *env) seriesAlarm(owner string) domain.Alarm {
	a := e.build(cronSpec(owner, "*/5 * * * *", "Europe/Paris"))
	a.Series = e.everyOption()
	a.FireCount, a.SkipStreak = 12, 3
	return a
}

// pauseUntil is an owner's pause with a note and an end, and the counts changed too.
func pauseUntil(until time.Time, note string) ports.MutateFunc {
	return func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		t, changed, err := domain.Pause(a, now)
		t.PausedReason, t.PausedUntil = note, until
		t.FireCount, t.SkipStreak = a.FireCount+2, a.SkipStreak+1
		return t, changed, err
	}
}

// resumeClearing resumes a paused series and clears its pause: the reason and the end
// are written empty, not left as they were.
func resumeClearing(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
	t, changed, err := domain.Resume(a, now)
	t.PausedReason, t.PausedUntil, t.SkipStreak = "", time.Time{}, 0
	return t, changed, err
}

// Every option and every piece of state comes back as given from every read: CreateBatch's
// result, Get, List, CreateBatch and the claim. No options at all come back as none.
func testSeriesRoundTrip(t *testing.T, e *env) {
	want := e.seriesAlarm(alice)
	e.wantAlarm("Create result", e.insert(want), want)
	e.wantStored("after Create", want)

	paused := e.seriesAlarm(alice)
	paused.Status, paused.PausedReason, paused.PausedUntil = domain.StatusPaused, "maintenance — 東京 😀", e.now().Add(3*time.Hour)
	e.wantAlarm("Create result (paused until)", e.insert(paused), paused)
	e.wantStored("after Create (paused until)", paused)

	listed := map[string]domain.Alarm{}
	for _, a := range e.listAll(alice, "", 10) {
		listed[a.ID] = a
	}
	for _, w := range []domain.Alarm{want, paused} {
		e.wantAlarm("List", listed[w.ID], w)
	}

	batch := []domain.Alarm{e.seriesAlarm(bob), e.build(cronSpec(bob, "*/5 * * * *", "UTC"))} // the second has no options
	for i, r := range e.createBatch(batch...) {
		if r.Err != nil || r.Deduped {
			t.Fatalf("CreateBatch item %d: %+v, want created", i, r)
		}
		e.wantAlarm(fmt.Sprintf("CreateBatch item %d", i), r.Alarm, batch[i])
		e.wantStored(fmt.Sprintf("after CreateBatch, item %d", i), batch[i])
	}

	// The claim reads whole rows too; the paused one is not claimable.
	e.clock.Set(want.NextFireAt.Add(time.Second))
	c := e.claim("w1", longLease, 100)
	wants := map[string]domain.Alarm{want.ID: want, batch[0].ID: batch[0], batch[1].ID: batch[1]}
	if !sameIDSet(alarmIDs(c.Alarms), []string{want.ID, batch[0].ID, batch[1].ID}) {
		t.Fatalf("ClaimDue = %v, want the three active series", alarmIDs(c.Alarms))
	}
	for _, got := range c.Alarms {
		w := wants[got.ID]
		w.ClaimedBy, w.ClaimedAt = "w1", c.Now
		e.wantAlarm("ClaimDue", got, w)
	}
}

// A fenced Apply writes the state the transition carries, each transition of a batch
// its own, events included; a later transition writes it back to none (written, not
// merged).
func testSeriesApplyWritesState(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "*/5 * * * *", "UTC"))
	b := e.create(cronSpec(bob, "*/5 * * * *", "UTC"))
	e.clock.Set(a.NextFireAt.Add(time.Second))
	c := e.claim("w1", longLease, 100)
	if !sameIDSet(alarmIDs(c.Alarms), []string{a.ID, b.ID}) {
		t.Fatalf("ClaimDue = %v, want both", alarmIDs(c.Alarms))
	}
	ca, cb := c.Alarms[0], c.Alarms[1]
	if ca.ID != a.ID {
		ca, cb = cb, ca
	}

	e.clock.Advance(time.Second)
	delivered := e.fire(ca)
	delivered.FireCount = 41
	tripped := e.fail(cb, "HTTP 503")
	tripped.Status = domain.StatusPaused
	tripped.FireCount, tripped.SkipStreak = 7, 5
	tripped.PausedReason, tripped.PausedUntil = "5 occurrences in a row were given up", e.now().Add(time.Hour)
	e.applyOK(delivered, tripped)
	e.wantStored("after the delivered transition", delivered.ApplyTo(ca))
	e.wantStored("after the breaker's pause", tripped.ApplyTo(cb))
	e.wantEvents("events of the delivered series", e.events(alice, a.ID), a, delivered.Events...)
	e.wantEvents("events of the paused series", e.events(bob, b.ID), b, tripped.Events...)

	row := e.get(bob, b.ID)
	e.clock.Advance(time.Second)
	back := tripped
	back.Fence, back.Events, back.UpdatedAt = domain.Fence{}, nil, e.now()
	back.Status, back.SkipStreak, back.PausedReason, back.PausedUntil = domain.StatusActive, 0, "", time.Time{}
	e.applyOK(back)
	e.wantStored("after an unfenced transition back to no pause", back.ApplyTo(row))
}

// A stale transition writes none of the state, and a fresh one in the same batch all
// of its own (on a store that checks fences one by one, the path that does).
func testSeriesStaleApply(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "*/5 * * * *", "UTC"))
	b := e.create(cronSpec(bob, "*/5 * * * *", "UTC"))
	e.clock.Set(a.NextFireAt.Add(time.Second))
	old := claimedByID(e.claim("w1", shortLease, 100))
	e.clock.Advance(shortLease + time.Second)
	cur := claimedByID(e.claim("w2", shortLease, 100))
	if len(old) != 2 || len(cur) != 2 {
		t.Fatalf("claims took %d then %d alarms, want both twice", len(old), len(cur))
	}
	row := e.get(alice, a.ID)

	stale := e.fire(old[a.ID])
	stale.Status, stale.FireCount, stale.SkipStreak = domain.StatusPaused, 9, 9
	stale.PausedReason, stale.PausedUntil = "stale", e.now().Add(time.Hour)
	fresh := e.fire(cur[b.ID])
	fresh.FireCount, fresh.SkipStreak = 3, 1
	e.applyStale([]domain.Transition{stale, fresh}, a.ID)
	e.wantStored("after a stale transition", row)
	e.sameLease("lease after a stale transition", e.get(alice, a.ID), cur[a.ID])
	e.wantStored("after the fresh transition of the same batch", fresh.ApplyTo(cur[b.ID]))
}

// claimedByID is a claim's alarms by id.
func claimedByID(c ports.Claimed) map[string]domain.Alarm {
	out := make(map[string]domain.Alarm, len(c.Alarms))
	for _, a := range c.Alarms {
		out[a.ID] = a
	}
	return out
}

// An owner's Mutate and an operator's Mutate (AnyOwner) (unfenced) write the state their
// transition carries, and write it back to none.
func testSeriesMutateWritesState(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	e.mutateApplied(alice, a.ID, pauseUntil(e.now().Add(2*time.Hour), "until the deploy is done"))

	e.clock.Advance(time.Minute)
	r := record(resumeClearing)
	got, err := e.store.Mutate(e.ctx, ports.AnyOwner, a.ID, r.call)
	if err != nil {
		t.Fatalf("Mutate(AnyOwner): %v", err)
	}
	want := r.tr.ApplyTo(r.seen)
	e.wantAlarm("Mutate(AnyOwner) result", got, want)
	e.wantStored("after Mutate(AnyOwner)", want)
	if got.PausedReason != "" || !got.PausedUntil.IsZero() || got.Status != domain.StatusActive {
		t.Errorf("after resuming: status %s, reason %q, until %s; want active with no pause", got.Status, got.PausedReason, fmtTime(got.PausedUntil))
	}
}

// duePauses calls DuePauses and fails on an error, or on nil for none.
func (e *env) duePauses(limit int) []string {
	e.t.Helper()
	ids, err := e.store.DuePauses(e.ctx, limit)
	if err != nil {
		e.t.Fatalf("DuePauses(%d): %v", limit, err)
	}
	if ids == nil {
		e.t.Fatalf("DuePauses(%d) = nil, want an empty slice when none is due", limit)
	}
	return ids
}

// DuePauses finds the paused alarms whose end has come (at or before now), of every
// owner, earliest end first, at most the limit; never an alarm that is active, paused
// without an end or paused until later, until the clock passes that end.
func testSeriesDuePauses(t *testing.T, e *env) {
	if got := e.duePauses(10); len(got) != 0 {
		t.Errorf("DuePauses on an empty store = %v, want none", got)
	}
	now := e.now()
	paused := func(owner string, until time.Time) domain.Alarm {
		a := e.create(cronSpec(owner, "0 9 * * *", "UTC"))
		return e.mutate(owner, a.ID, pauseUntil(until, "a note"))
	}
	// An active alarm is not paused, whatever its paused_until says (the domain clears
	// it on resume; the port names paused alarms).
	active := e.build(cronSpec(alice, "0 9 * * *", "UTC"))
	active.PausedUntil = now.Add(-5 * time.Hour)
	e.insert(active)
	noEnd := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	e.mutate(alice, noEnd.ID, pauseFn)
	later := paused(alice, now.Add(2*time.Hour))
	if got := e.duePauses(10); len(got) != 0 {
		t.Errorf("DuePauses with no pause ended = %v, want none", got)
	}

	// Created in an order unlike their ends; one ends exactly now, one is bob's.
	hourAgo := paused(alice, now.Add(-time.Hour))
	justNow := paused(alice, now)
	threeHoursAgo := paused(bob, now.Add(-3*time.Hour))
	twoHoursAgo := paused(alice, now.Add(-2*time.Hour))
	want := []string{threeHoursAgo.ID, twoHoursAgo.ID, hourAgo.ID, justNow.ID}
	if got := e.duePauses(10); !slices.Equal(got, want) {
		t.Errorf("DuePauses(10) = %v, want %v (earliest end first)", got, want)
	}
	if got := e.duePauses(2); !slices.Equal(got, want[:2]) {
		t.Errorf("DuePauses(2) = %v, want %v", got, want[:2])
	}

	e.clock.Advance(2*time.Hour + time.Second)
	want = append(want, later.ID)
	if got := e.duePauses(10); !slices.Equal(got, want) {
		t.Errorf("DuePauses(10) once the later end has passed = %v, want %v", got, want)
	}

	// Resumed, a series is no longer due (its end is cleared with its pause).
	if _, err := e.store.Mutate(e.ctx, ports.AnyOwner, twoHoursAgo.ID, resumeClearing); err != nil {
		t.Fatalf("Mutate(AnyOwner, resume): %v", err)
	}
	want = slices.Delete(want, 1, 2)
	if got := e.duePauses(10); !slices.Equal(got, want) {
		t.Errorf("DuePauses(10) after a resume = %v, want %v", got, want)
	}
}

// An update's new definition (Transition.Define) is written with its transition: every
// field comes back from Get, and Mutate's result is what is stored.
func testSeriesUpdateWritesDefinition(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	e.clock.Advance(time.Minute)
	window := 36 * time.Hour
	end := e.now().Add(30*24*time.Hour + 123456789)
	patch := domain.Patch{
		Label: ptr("renamed"), CronExpr: ptr("*/10 * * * *"), Timezone: ptr("Europe/Paris"),
		WakeMessage: ptr("wake up"), Payload: ptr(json.RawMessage(`{"b": 2,  "a": 1}`)), MaxFailures: ptr(7),
		Misfire: ptr(domain.MisfireCatchUp), CatchUpWindow: &window, EndAt: &end, JitterSeconds: ptr(15),
	}
	got := e.mutate(alice, a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.Update(a, patch, now)
	})
	if got.Label != "renamed" || got.CronExpr != "*/10 * * * *" || got.Timezone != "Europe/Paris" || got.WakeMessage != "wake up" ||
		string(got.Payload) != `{"b": 2,  "a": 1}` || got.MaxFailures != 7 || got.Series.Misfire != domain.MisfireCatchUp ||
		got.Series.CatchUpWindow != window || !got.Series.EndAt.Equal(end) || got.Series.JitterSeconds != 15 {
		t.Errorf("Mutate's result does not carry the new definition: %+v", got)
	}
	e.wantStored("after the update", got)
	evs := e.events(alice, a.ID)
	if last := evs[len(evs)-1]; last.Type != domain.EventUpdated {
		t.Errorf("last event %s, want updated", last.Type)
	}
}

// An update racing a claim: one that changes no schedule keeps the lease, so the wake
// in flight is recorded under it; one that moves the schedule releases it, and the
// outcome in flight is stale.
func testSeriesUpdateRacingAWake(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "*/5 * * * *", "UTC"))
	e.clock.Set(a.NextFireAt.Add(time.Second))
	claimed := e.claimOnly("w1", longLease, a.ID)
	e.mutate(alice, a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.Update(a, domain.Patch{Payload: ptr(json.RawMessage(`{"v":2}`))}, now)
	})
	e.applyOK(e.fire(claimed)) // recorded: the lease survived the payload change
	if got := e.get(alice, a.ID); string(got.Payload) != `{"v":2}` || got.FireCount != 1 || got.Claimed() {
		t.Errorf("after the wake in flight was recorded: payload %s fires %d lease %q", got.Payload, got.FireCount, got.ClaimedBy)
	}

	e.clock.Set(e.get(alice, a.ID).NextFireAt.Add(time.Second))
	claimed = e.claimOnly("w1", longLease, a.ID)
	moved := e.mutate(alice, a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.Update(a, domain.Patch{CronExpr: ptr("0 9 * * *")}, now)
	})
	e.applyStale([]domain.Transition{e.fire(claimed)}, a.ID)
	e.wantStored("after the stale outcome", moved)
}

func ptr[T any](v T) *T { return &v }
