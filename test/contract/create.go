package contract

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var createCases = []testCase{
	{"RoundTripOnce", testCreateRoundTripOnce},
	{"RoundTripCron", testCreateRoundTripCron},
	{"PayloadVerbatim", testCreatePayloadVerbatim},
	{"LargestFields", testCreateLargestFields},
	{"DuplicateIDConflict", testCreateDuplicateID},
	{"IdempotentSameOwner", testCreateIdempotentSameOwner},
	{"IdempotentOtherOwner", testCreateIdempotentOtherOwner},
	{"EmptyKeyNeverDedupes", testCreateEmptyKeyNeverDedupes},
	{"IdempotentConcurrent", testCreateIdempotentConcurrent},
}

// Every field of a once alarm comes back as given; unset times stay unset.
func testCreateRoundTripOnce(t *testing.T, e *env) {
	at := e.now().Add(90 * time.Minute)
	want := e.build(domain.Spec{
		Owner:          alice,
		Label:          "réveil ⏰ 東京 — 😀",
		Kind:           domain.KindOnce,
		FireAt:         &at,
		ConversationID: "conv-42",
		WakeMessage:    "time to check the oven\nline two",
		Payload:        json.RawMessage(`{"b": 1,  "a":[1,2]}`),
		IdempotencyKey: "order-7",
		MaxFailures:    7,
		Delivery:       domain.AtMostOnce,
	})
	stored, deduped, err := CreateOne(e.ctx, e.store, want)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if deduped {
		t.Error("Create: deduped = true for a new alarm")
	}
	e.wantAlarm("Create result", stored, want)
	e.wantStored("after Create", want)

	got := e.get(alice, want.ID)
	for name, tm := range map[string]time.Time{"ClaimedAt": got.ClaimedAt, "LastFiredAt": got.LastFiredAt} {
		if !tm.IsZero() {
			t.Errorf("%s = %s, want the zero time (never set)", name, fmtTime(tm))
		}
	}
	if got.FireAt.IsZero() || got.CronExpr != "" {
		t.Errorf("once alarm: FireAt = %s, CronExpr = %q; want FireAt set and no cron", fmtTime(got.FireAt), got.CronExpr)
	}
}

// A cron alarm keeps its expression and zone; its FireAt stays unset.
func testCreateRoundTripCron(t *testing.T, e *env) {
	s := cronSpec(alice, "30 7 * * mon-fri", "Europe/Paris")
	s.Payload = json.RawMessage(`[ "x" , {"y":null} ]`)
	want := e.build(s)
	stored := e.insert(want)
	e.wantAlarm("Create result", stored, want)
	e.wantStored("after Create", want)
	if got := e.get(alice, want.ID); !got.FireAt.IsZero() {
		t.Errorf("cron alarm: FireAt = %s, want the zero time", fmtTime(got.FireAt))
	}
}

// The payload is any JSON value and is stored as bytes, never re-encoded: whitespace,
// key order, duplicate keys, escapes and number spelling survive. (A JSONB or MySQL
// JSON column would normalise these; the payload must be kept as text.)
func testCreatePayloadVerbatim(t *testing.T, e *env) {
	payloads := []string{
		`{"b": 1,  "a":[1,2]}`,
		`{"a":1,"a":2}`,
		"\n{\n\t\"caf\\u00e9\": \"☕\",\n  \"n\": 1.50e+01\n}\n",
		`  [ 1 , 2.0 , -0 , 1E3 ]  `,
		`"just a string"`,
		`null`,
		`true`,
		`0.10`,
		`{}`,
		`"` + strings.Repeat("x", domain.MaxPayloadBytes-2) + `"`, // the largest accepted
	}
	for _, p := range payloads {
		s := e.onceIn(alice, time.Hour)
		s.Payload = json.RawMessage(p)
		want := e.build(s)
		stored := e.insert(want)
		if string(stored.Payload) != p {
			t.Errorf("Create result payload = %s, want %s", clip(stored.Payload), clip([]byte(p)))
		}
		if got := e.get(alice, want.ID); string(got.Payload) != p {
			t.Errorf("Get payload = %s, want %s", clip(got.Payload), clip([]byte(p)))
		}
	}

	// No payload at all is stored as JSON null (domain.NewAlarm's choice), not as "".
	a := e.create(e.onceIn(alice, time.Hour))
	if got := e.get(alice, a.ID); string(got.Payload) != "null" {
		t.Errorf("absent payload came back as %s, want null", clip(got.Payload))
	}
}

// Text fields at their limits, in characters that take several bytes (and four-byte
// ones, which need utf8mb4 on MySQL), round-trip exactly.
func testCreateLargestFields(t *testing.T, e *env) {
	s := e.onceIn(alice, time.Hour)
	s.Label = strings.Repeat("😀", domain.MaxLabelLen)
	s.WakeMessage = strings.Repeat("é", domain.MaxWakeMessageLen)
	s.ConversationID = strings.Repeat("日", domain.MaxConversationIDLen)
	s.IdempotencyKey = strings.Repeat("ключ", domain.MaxIdempotencyKeyLen/4)
	s.MaxFailures = domain.MaxMaxFailures
	want := e.build(s)
	e.wantAlarm("Create result", e.insert(want), want)
	e.wantStored("after Create", want)
}

// Ids are unique across owners: a second alarm with a used id is ErrConflict and
// changes nothing.
func testCreateDuplicateID(t *testing.T, e *env) {
	first := e.createDue(alice)

	again := e.build(e.onceIn(alice, time.Hour))
	again.ID = first.ID
	again.Label = "second"
	_, _, err := CreateOne(e.ctx, e.store, again)
	wantErr(t, "Create with a used id", err, ports.ErrConflict)

	other := e.build(e.onceIn(bob, time.Hour))
	other.ID = first.ID
	_, _, err = CreateOne(e.ctx, e.store, other)
	wantErr(t, "Create with another owner's id", err, ports.ErrConflict)

	e.wantStored("first alarm after conflicts", first)
	if as := e.listAll(bob, "", 0); len(as) != 0 {
		t.Errorf("bob has %d alarms after a refused create, want 0", len(as))
	}
}

// Re-posting with the same owner and key returns the first alarm, deduped, whatever
// the rest of the request says, and writes nothing.
func testCreateIdempotentSameOwner(t *testing.T, e *env) {
	s := e.onceIn(alice, time.Hour)
	s.IdempotencyKey = "k-1"
	s.Label = "first"
	first := e.create(s)

	e.clock.Advance(time.Second)
	s2 := e.onceIn(alice, 2*time.Hour)
	s2.IdempotencyKey = "k-1"
	s2.Label = "second"
	s2.Payload = json.RawMessage(`{"second":true}`)
	second := e.build(s2)
	got, deduped, err := CreateOne(e.ctx, e.store, second)
	if err != nil {
		t.Fatalf("second Create: %v", err)
	}
	if !deduped {
		t.Error("second Create with the same key: deduped = false, want true")
	}
	e.wantAlarm("deduped Create result", got, first)

	if all := e.listAll(alice, "", 0); len(all) != 1 {
		t.Errorf("alice has %d alarms, want 1", len(all))
	}
	_, err = e.store.Get(e.ctx, ports.OwnedBy(alice), second.ID)
	wantErr(t, "Get of the deduped request's id", err, ports.ErrNotFound)

	// The alarm returned is the stored one as it is now, not as it was created.
	cancelled := e.mutate(alice, first.ID, cancelFn)
	got, deduped, err = CreateOne(e.ctx, e.store, e.build(s2))
	if err != nil || !deduped {
		t.Fatalf("Create after cancel = (deduped %v, %v), want deduped", deduped, err)
	}
	e.wantAlarm("deduped Create of a cancelled alarm", got, cancelled)
}

// Keys are unique per owner, not globally.
func testCreateIdempotentOtherOwner(t *testing.T, e *env) {
	sa := e.onceIn(alice, time.Hour)
	sa.IdempotencyKey = "shared"
	sb := e.onceIn(bob, time.Hour)
	sb.IdempotencyKey = "shared"
	a := e.create(sa)
	b := e.create(sb) // create fails the test if this one is deduped
	if a.ID == b.ID {
		t.Fatal("two owners with one key got the same alarm")
	}
	e.wantStored("alice's alarm", a)
	e.wantStored("bob's alarm", b)
}

// Without a key every create is a new alarm, however alike.
func testCreateEmptyKeyNeverDedupes(t *testing.T, e *env) {
	at := e.now().Add(time.Hour)
	for range 3 {
		e.create(domain.Spec{Owner: alice, Kind: domain.KindOnce, FireAt: &at, Label: "same"})
	}
	if all := e.listAll(alice, "", 0); len(all) != 3 {
		t.Errorf("alice has %d alarms, want 3", len(all))
	}
}

// N simultaneous creates with one key make exactly one row, and every caller gets it.
func testCreateIdempotentConcurrent(t *testing.T, e *env) {
	const n = 20
	type result struct {
		a       domain.Alarm
		deduped bool
		err     error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		s := e.onceIn(alice, time.Hour)
		s.IdempotencyKey = "race"
		a := e.build(s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got, deduped, err := CreateOne(e.ctx, e.store, a)
			results[i] = result{got, deduped, err}
		}()
	}
	close(start)
	wg.Wait()

	created := 0
	ids := map[string]bool{}
	for i, r := range results {
		if r.err != nil {
			t.Errorf("caller %d: Create: %v", i, r.err)
			continue
		}
		ids[r.a.ID] = true
		if !r.deduped {
			created++
		}
	}
	if len(ids) != 1 || created != 1 {
		t.Errorf("%d concurrent creates with one key: %d distinct ids returned, %d not deduped; want 1 and 1", n, len(ids), created)
	}
	all := e.listAll(alice, "", 0)
	if len(all) != 1 {
		t.Fatalf("alice has %d alarms, want exactly 1", len(all))
	}
	if !ids[all[0].ID] {
		t.Errorf("stored alarm %s is not the one callers got (%v)", all[0].ID, ids)
	}
	if evs := e.events(alice, all[0].ID); len(evs) != 1 {
		t.Errorf("the alarm has %d events %v, want only created", len(evs), eventTypes(evs))
	}
}
