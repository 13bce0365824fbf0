package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Debounce: CreateBatch's items with a Debounce (domain.OnDuplicateReplace) replace
// their key's active, unleased once alarm, and make the key's next alarm when it fired,
// ended or is being delivered (ports.AlarmStore.CreateBatch).
var debounceCases = []testCase{
	{"ReplaceMovesFireTimeAndPayload", testReplaceMoves},
	{"MaxWaitCapsFromTheFirstCreate", testReplaceMaxWait},
	{"RetryPendingIsReplacedAfresh", testReplaceRetryPending},
	{"FiredKeyMakesTheNextAlarm", testReplaceAfterFire},
	{"CancelledKeyMakesTheNextAlarm", testReplaceAfterCancel},
	{"LeasedIsNotReplaced", testReplaceLeased},
	{"SeriesKeyIsDeduped", testReplaceSeriesKey},
	{"WithoutReplaceStillDedupes", testReplacePlainRepeat},
	{"BatchReplacesInOrder", testReplaceInBatch},
	{"RacingReplacesOneAlarm", testReplaceRacing},
	{"RacingReplacesAfterFire", testReplaceRacingAfterFire},
}

// replaceSpec is a once alarm of alice's key due d from now that replaces its key's
// alarm, with a payload of its own.
func (e *env) replaceSpec(key string, d time.Duration, payload string) domain.Spec {
	s := keyed(e.onceIn(alice, d), key)
	s.OnDuplicate, s.Payload, s.Label, s.WakeMessage = domain.OnDuplicateReplace, json.RawMessage(payload), "l "+payload, "m "+payload
	return s
}

// createOne creates a alone and returns its result.
func (e *env) createOne(a domain.Alarm) ports.CreateResult {
	e.t.Helper()
	r := e.createBatch(a)[0]
	if r.Err != nil {
		e.t.Fatalf("CreateBatch(%s): %v", a.ID, r.Err)
	}
	return r
}

// wantReplaced checks that r replaced stored with repeat, as domain.Replace says, and
// that the store keeps it so, with the replaced event last in its history.
func (e *env) wantReplaced(what string, r ports.CreateResult, stored, repeat domain.Alarm) domain.Alarm {
	e.t.Helper()
	if r.Err != nil || !r.Replaced || r.Deduped {
		e.t.Fatalf("%s: %+v, want replaced", what, r)
	}
	p := domain.Replace(stored, repeat)
	want := p.ApplyTo(stored)
	e.wantAlarm(what, r.Alarm, want)
	e.wantStored(what, want)
	evs := e.events(alice, stored.ID)
	if d := e.eventDiff(evs[len(evs)-1], p.Event); d != "" {
		e.t.Errorf("%s: last event differs:%s", what, d)
	}
	if r.Alarm.Debounce != nil {
		e.t.Errorf("%s: the result carries the create's Debounce", what)
	}
	return want
}

// wantCreatedFresh checks that r created a as the key's next alarm.
func (e *env) wantCreatedFresh(what string, r ports.CreateResult, a domain.Alarm) {
	e.t.Helper()
	if r.Err != nil || r.Replaced || r.Deduped || r.Alarm.ID != a.ID {
		e.t.Fatalf("%s: %+v, want %s created", what, r, a.ID)
	}
	a.Debounce = nil
	e.wantAlarm(what, r.Alarm, a)
}

// wantKeyReleased checks that old kept everything but its key, and says so last in its
// history.
func (e *env) wantKeyReleased(what string, old domain.Alarm, by domain.Alarm) {
	e.t.Helper()
	want := old
	want.IdempotencyKey = ""
	e.wantStored(what, want)
	evs := e.events(alice, old.ID)
	if d := e.eventDiff(evs[len(evs)-1], domain.KeyReleased(old, by)); d != "" {
		e.t.Errorf("%s: last event differs:%s", what, d)
	}
}

// A repeat of the key moves the alarm's fire time and replaces its payload, label and
// wake message; the alarm keeps its id, key and creation, and no second alarm exists.
func testReplaceMoves(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("chat", 10*time.Minute, `{"n":1}`))
	if r := e.createOne(first); r.Replaced || r.Deduped {
		t.Fatalf("first create: %+v, want created", r)
	}
	stored := e.get(alice, first.ID)
	e.clock.Advance(time.Minute)
	repeat := e.build(e.replaceSpec("chat", 10*time.Minute, `{"n": 2}`))
	e.wantReplaced("repeat", e.createOne(repeat), stored, repeat)
	e.clock.Advance(time.Minute)
	earlier := e.build(e.replaceSpec("chat", time.Second, `[3]`))
	before := e.get(alice, first.ID)
	e.wantReplaced("repeat due sooner", e.createOne(earlier), before, earlier)
	if all := e.listAll(alice, "", 10); len(all) != 1 {
		t.Errorf("alice has %d alarms, want 1", len(all))
	}
	if evs := e.events(alice, first.ID); len(evs) != 3 {
		t.Errorf("history %v, want created and two replaced", eventTypes(evs))
	}
}

// However often the key is repeated, the alarm fires no later than its creation plus
// the max wait.
func testReplaceMaxWait(t *testing.T, e *env) {
	wait := time.Hour
	s := e.replaceSpec("typing", 10*time.Minute, `1`)
	s.MaxWait = &wait
	first := e.build(s)
	e.createOne(first)
	stored := e.get(alice, first.ID)
	for i, step := range []time.Duration{20 * time.Minute, 25 * time.Minute, 10 * time.Minute} {
		e.clock.Advance(step)
		s := e.replaceSpec("typing", 10*time.Minute, fmt.Sprint(i+2))
		s.MaxWait = &wait
		repeat := e.build(s)
		stored = e.wantReplaced(fmt.Sprintf("repeat %d", i+1), e.createOne(repeat), stored, repeat)
	}
	// 55 minutes after the first create, 10 more asked for: capped at the hour.
	e.wantTime("capped fire time", stored.NextFireAt, first.CreatedAt.Add(wait))
}

// An alarm waiting for a retry is active and unleased: it is replaced, and its
// deliveries start afresh.
func testReplaceRetryPending(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("k", 0, `1`))
	e.createOne(first)
	e.applyOK(e.fail(e.claimOnly("w1", time.Minute, first.ID), "503"))
	waiting := e.get(alice, first.ID)
	if waiting.Status != domain.StatusActive || waiting.FailureCount != 1 {
		t.Fatalf("after a failure: %s with %d failures", waiting.Status, waiting.FailureCount)
	}
	repeat := e.build(e.replaceSpec("k", time.Minute, `2`))
	got := e.wantReplaced("repeat", e.createOne(repeat), waiting, repeat)
	if got.FailureCount != 0 || got.LastError != "" {
		t.Errorf("replaced alarm kept %d failures, %q", got.FailureCount, got.LastError)
	}
}

// An alarm of the key that fired gives its key up: the repeat creates the key's next
// alarm, which later plain repeats return.
func testReplaceAfterFire(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("k", 0, `1`))
	e.createOne(first)
	e.applyOK(e.fire(e.claimOnly("w1", time.Minute, first.ID)))
	fired := e.get(alice, first.ID)
	next := e.build(e.replaceSpec("k", time.Hour, `2`))
	e.wantCreatedFresh("repeat after the fire", e.createOne(next), next)
	e.wantKeyReleased("the fired alarm", fired, next)
	plain := e.build(keyed(e.onceIn(alice, 5*time.Hour), "k"))
	if r := e.createOne(plain); !r.Deduped || r.Alarm.ID != next.ID {
		t.Errorf("a plain repeat: %+v, want the key's next alarm %s, deduped", r, next.ID)
	}
	if all := e.listAll(alice, "", 10); len(all) != 2 {
		t.Errorf("alice has %d alarms, want the fired one and the next", len(all))
	}
}

// A cancelled alarm of the key gives its key up too.
func testReplaceAfterCancel(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("k", time.Hour, `1`))
	e.createOne(first)
	cancelled := e.mutate(alice, first.ID, cancelFn)
	next := e.build(e.replaceSpec("k", time.Hour, `2`))
	e.wantCreatedFresh("repeat after the cancel", e.createOne(next), next)
	e.wantKeyReleased("the cancelled alarm", cancelled, next)
}

// An alarm being delivered is not replaced: it keeps its payload and its lease (its
// outcome still applies), and the repeat creates the key's next alarm.
func testReplaceLeased(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("k", 0, `1`))
	e.createOne(first)
	claimed := e.claimOnly("w1", time.Minute, first.ID)
	next := e.build(e.replaceSpec("k", time.Hour, `2`))
	e.wantCreatedFresh("repeat during the delivery", e.createOne(next), next)
	e.wantKeyReleased("the leased alarm", claimed, next)
	e.applyOK(e.fire(claimed))
	if got := e.get(alice, first.ID); got.Status != domain.StatusFired || string(got.Payload) != `1` {
		t.Errorf("the delivered alarm: %s with %s, want fired with its own payload", got.Status, got.Payload)
	}
}

// A series' key is never debounced: a replace returns the series unchanged.
func testReplaceSeriesKey(t *testing.T, e *env) {
	series := e.create(keyed(cronSpec(alice, "0 9 * * *", "UTC"), "k"))
	repeat := e.build(e.replaceSpec("k", time.Hour, `2`))
	r := e.createOne(repeat)
	if !r.Deduped || r.Replaced {
		t.Fatalf("replace on a series' key: %+v, want deduped", r)
	}
	e.wantAlarm("deduped", r.Alarm, series)
	e.wantStored("series", series)
}

// Without a Debounce a repeat returns the key's alarm as before, whatever it is.
func testReplacePlainRepeat(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("k", 0, `1`))
	e.createOne(first)
	e.applyOK(e.fire(e.claimOnly("w1", time.Minute, first.ID)))
	fired := e.get(alice, first.ID)
	r := e.createOne(e.build(keyed(e.onceIn(alice, time.Hour), "k")))
	if !r.Deduped || r.Replaced {
		t.Fatalf("plain repeat: %+v, want deduped", r)
	}
	e.wantAlarm("deduped", r.Alarm, fired)
}

// In one batch each item settles in turn: a key's later items replace what the earlier
// made, a plain item returns the alarm as it stands then, a stored key is replaced, and
// a fired one makes the key's next alarm.
func testReplaceInBatch(t *testing.T, e *env) {
	storedFirst := e.build(e.replaceSpec("stored", time.Hour, `0`))
	e.createOne(storedFirst)
	stored := e.get(alice, storedFirst.ID)
	firedFirst := e.build(e.replaceSpec("fired", 0, `0`))
	e.createOne(firedFirst)
	e.applyOK(e.fire(e.claimOnly("w1", time.Minute, firedFirst.ID)))
	fired := e.get(alice, firedFirst.ID)

	e.clock.Advance(time.Second)
	a := e.build(e.replaceSpec("new", time.Hour, `1`))
	b := e.build(e.replaceSpec("new", 2*time.Hour, `2`))
	plain := e.build(keyed(e.onceIn(alice, time.Hour), "new"))
	c := e.build(e.replaceSpec("stored", 3*time.Hour, `3`))
	d := e.build(e.replaceSpec("fired", 4*time.Hour, `4`))
	rs := e.createBatch(a, b, plain, c, d)
	e.wantCreatedFresh("first of a new key", rs[0], a)
	made := rs[0].Alarm
	madeReplaced := e.wantReplaced("second of the new key", rs[1], made, b)
	if !rs[2].Deduped || rs[2].Alarm.ID != a.ID {
		t.Errorf("plain item: %+v, want the new key's alarm, deduped", rs[2])
	}
	e.wantAlarm("plain item", rs[2].Alarm, madeReplaced)
	e.wantReplaced("a stored key", rs[3], stored, c)
	e.wantCreatedFresh("a fired key", rs[4], d)
	e.wantKeyReleased("the fired alarm", fired, d)
	if all := e.listAll(alice, "", 10); len(all) != 4 {
		t.Errorf("alice has %d alarms, want 4", len(all))
	}
}

// racingReplaces runs n creates of one key with a replace at once, one goroutine each,
// and returns their alarms and results.
func (e *env) racingReplaces(key string, n int) ([]domain.Alarm, []ports.CreateResult) {
	as := make([]domain.Alarm, n)
	for i := range as {
		as[i] = e.build(e.replaceSpec(key, time.Duration(i+1)*time.Minute, fmt.Sprintf(`{"racer":%d}`, i)))
	}
	rs := make([]ports.CreateResult, n)
	var wg sync.WaitGroup
	for i, a := range as {
		wg.Go(func() {
			r, err := e.store.CreateBatch(e.ctx, []domain.Alarm{a})
			if err != nil {
				e.t.Errorf("racer %d: %v", i, err)
				return
			}
			rs[i] = r[0]
		})
	}
	wg.Wait()
	return as, rs
}

// wantOneOf checks racers' results: none failed, exactly one created the key's alarm
// and the others replaced it; the key has one active alarm, holding one racer's
// payload, label and fire time together, with one replaced event per replace.
func (e *env) wantOneOf(as []domain.Alarm, rs []ports.CreateResult) domain.Alarm {
	e.t.Helper()
	var made string
	replaced := 0
	for i, r := range rs {
		switch {
		case r.Err != nil || r.Deduped:
			e.t.Fatalf("racer %d: %+v, want created or replaced", i, r)
		case r.Replaced:
			replaced++
		case made != "":
			e.t.Fatalf("racers created %s and %s", made, r.Alarm.ID)
		default:
			made = r.Alarm.ID
		}
	}
	if made == "" {
		e.t.Fatal("no racer created the key's alarm")
	}
	for i, r := range rs {
		if r.Alarm.ID != made {
			e.t.Errorf("racer %d answered alarm %s, want %s", i, r.Alarm.ID, made)
		}
	}
	got := e.get(alice, made)
	i := slices.IndexFunc(as, func(a domain.Alarm) bool { return string(a.Payload) == string(got.Payload) })
	if i < 0 || got.Status != domain.StatusActive {
		e.t.Fatalf("the key's alarm is %s with payload %s, no racer's", got.Status, got.Payload)
	}
	if got.Label != as[i].Label || !e.sameTime(got.NextFireAt, as[i].NextFireAt) {
		e.t.Errorf("the key's alarm mixes racers: payload of %d, label %q, fire time %s", i, got.Label, fmtTime(got.NextFireAt))
	}
	if n := len(e.events(alice, made)); n != 1+replaced {
		e.t.Errorf("the key's alarm has %d events, want created and %d replaced", n, replaced)
	}
	return got
}

// Creates racing with a replace on one key end with one active alarm of the key.
func testReplaceRacing(t *testing.T, e *env) {
	as, rs := e.racingReplaces("race", 8)
	e.wantOneOf(as, rs)
	if all := e.listAll(alice, "", 20); len(all) != 1 {
		t.Errorf("alice has %d alarms, want 1", len(all))
	}
}

// When the key's alarm fired, racers agree on one next alarm: one creates it (taking
// the key), the others replace it.
func testReplaceRacingAfterFire(t *testing.T, e *env) {
	first := e.build(e.replaceSpec("race", 0, `0`))
	e.createOne(first)
	e.applyOK(e.fire(e.claimOnly("w1", time.Minute, first.ID)))
	as, rs := e.racingReplaces("race", 8)
	got := e.wantOneOf(as, rs)
	if got.ID == first.ID {
		t.Fatal("the fired alarm was replaced")
	}
	if old := e.get(alice, first.ID); old.IdempotencyKey != "" || old.Status != domain.StatusFired {
		t.Errorf("the fired alarm: %s with key %q, want fired without its key", old.Status, old.IdempotencyKey)
	}
	if active := e.listAll(alice, domain.StatusActive, 20); len(active) != 1 {
		t.Errorf("alice has %d active alarms, want 1", len(active))
	}
}
