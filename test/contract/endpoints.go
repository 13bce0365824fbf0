package contract

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var endpointCases = []testCase{
	{"RoundTrip", testEndpointRoundTrip},
	{"ListOrder", testEndpointListOrder},
	{"Duplicate", testEndpointDuplicate},
	{"UpdateReplacesAndKeepsCreatedAt", testEndpointUpdate},
	{"Delete", testEndpointDelete},
	{"Unknown", testEndpointUnknown},
	{"AlarmKeepsItsEndpoint", testAlarmEndpoint},
}

// newEndpoint is a valid endpoint of owner with one secret and nothing else set.
func (e *env) newEndpoint(owner, name string) domain.Endpoint {
	return domain.Endpoint{Owner: owner, Name: name, URL: "https://hooks.example.com/" + name,
		Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}}
}

// fullEndpoint sets every field, with values a store could lose: secrets with quotes,
// backslashes, non-ASCII and the longest allowed, in an order that is not sorted; a
// timeout that is not whole seconds; a rate that no decimal writes exactly.
func (e *env) fullEndpoint(owner, name string) domain.Endpoint {
	return domain.Endpoint{Owner: owner, Name: name,
		URL: "https://hooks.example.com/wake?tenant=" + name + "&x=%20é",
		Secrets: []string{
			"whsec_" + "c2Vjb25kIHNlY3JldA==",
			`plain "quoted" \ secret — 東京 😀`,
			strings.Repeat("z", domain.MaxEndpointSecretLen),
			"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		},
		Timeout:       2750 * time.Millisecond,
		MaxInFlight:   domain.MaxEndpointInFlight,
		RatePerSecond: 1.0 / 3.0,
		FailureURL:    "http://failures.example.com:8080/" + name,
	}
}

// createEndpoint stores ep, which the suite first checks is valid (the port's callers
// validate), and returns what the store returned.
func (e *env) createEndpoint(ep domain.Endpoint) domain.Endpoint {
	e.t.Helper()
	if err := domain.ValidateEndpoint(ep); err != nil {
		e.t.Fatalf("the suite's endpoint is invalid: %v", err)
	}
	stored, err := e.store.CreateEndpoint(e.ctx, ep)
	if err != nil {
		e.t.Fatalf("CreateEndpoint(%s/%s): %v", ep.Owner, ep.Name, err)
	}
	return stored
}

func (e *env) getEndpoint(owner, name string) domain.Endpoint {
	e.t.Helper()
	ep, err := e.store.GetEndpoint(e.ctx, owner, name)
	if err != nil {
		e.t.Fatalf("GetEndpoint(%s, %s): %v", owner, name, err)
	}
	return ep
}

func (e *env) listEndpoints(owner string) []domain.Endpoint {
	e.t.Helper()
	es, err := e.store.ListEndpoints(e.ctx, owner)
	if err != nil {
		e.t.Fatalf("ListEndpoints(%q): %v", owner, err)
	}
	if es == nil {
		e.t.Errorf("ListEndpoints(%q) = nil, want a slice (empty when none)", owner)
	}
	return es
}

// endpointDiff lists the fields in which got differs from want: secrets, timeout and
// rate exactly, the stamps within the store's precision.
func (e *env) endpointDiff(got, want domain.Endpoint) string {
	var b strings.Builder
	field := func(name string, g, w any) {
		if g != w {
			fmt.Fprintf(&b, "\n  %s = %#v, want %#v", name, g, w)
		}
	}
	field("Owner", got.Owner, want.Owner)
	field("Name", got.Name, want.Name)
	field("URL", got.URL, want.URL)
	if !slices.Equal(got.Secrets, want.Secrets) {
		fmt.Fprintf(&b, "\n  Secrets = %q, want %q", got.Secrets, want.Secrets)
	}
	field("Timeout", got.Timeout, want.Timeout)
	field("MaxInFlight", got.MaxInFlight, want.MaxInFlight)
	field("RatePerSecond", got.RatePerSecond, want.RatePerSecond)
	field("FailureURL", got.FailureURL, want.FailureURL)
	for _, t := range []struct {
		name      string
		got, want time.Time
	}{{"CreatedAt", got.CreatedAt, want.CreatedAt}, {"UpdatedAt", got.UpdatedAt, want.UpdatedAt}} {
		if !e.sameTime(t.got, t.want) {
			fmt.Fprintf(&b, "\n  %s = %s, want %s", t.name, fmtTime(t.got), fmtTime(t.want))
		}
	}
	return b.String()
}

func (e *env) wantEndpoint(what string, got, want domain.Endpoint) {
	e.t.Helper()
	if d := e.endpointDiff(got, want); d != "" {
		e.t.Errorf("%s (endpoint %s/%s) differs:%s", what, want.Owner, want.Name, d)
	}
}

// wantEndpoints checks a list: the same endpoints, in the same order.
func (e *env) wantEndpoints(what string, got, want []domain.Endpoint) {
	e.t.Helper()
	names := func(es []domain.Endpoint) []string {
		out := make([]string, len(es))
		for i, x := range es {
			out[i] = x.Owner + "/" + x.Name
		}
		return out
	}
	if !slices.Equal(names(got), names(want)) {
		e.t.Errorf("%s = %q, want %q", what, names(got), names(want))
		return
	}
	for i := range want {
		e.wantEndpoint(what, got[i], want[i])
	}
}

// stamped is ep as a store returns it after a write at the clock's now.
func (e *env) stamped(ep domain.Endpoint, created time.Time) domain.Endpoint {
	ep.CreatedAt, ep.UpdatedAt = created, e.now()
	return ep
}

// Every field comes back exactly, from CreateBatch's result, Get and List; unset ones as
// unset. Create stamps both times with the store's now, whatever the caller set.
func testEndpointRoundTrip(t *testing.T, e *env) {
	full := e.fullEndpoint(alice, "billing")
	full.CreatedAt, full.UpdatedAt = e.now().Add(-time.Hour), e.now().Add(time.Hour) // the store's now wins
	want := e.stamped(full, e.now())
	e.wantEndpoint("CreateEndpoint result", e.createEndpoint(full), want)
	e.wantEndpoint("GetEndpoint", e.getEndpoint(alice, "billing"), want)

	bare := e.newEndpoint(alice, "alerts")
	wantBare := e.stamped(bare, e.now())
	e.wantEndpoint("CreateEndpoint result (only what is required)", e.createEndpoint(bare), wantBare)
	e.wantEndpoints("ListEndpoints(alice)", e.listEndpoints(alice), []domain.Endpoint{wantBare, want})

	// Rates at the ends of the range, and ones no decimal writes exactly.
	for i, rate := range []float64{0.1, 2.5, 123456.789, domain.MaxEndpointRatePerSec, 1e-9} {
		ep := e.newEndpoint(bob, fmt.Sprintf("rate-%d", i))
		ep.RatePerSecond, ep.Timeout = rate, domain.MaxEndpointTimeout
		e.createEndpoint(ep)
		e.wantEndpoint("GetEndpoint", e.getEndpoint(bob, ep.Name), e.stamped(ep, e.now()))
	}
}

// ListEndpoints: an owner's by name, every owner's by owner then name, both in byte
// order; an owner with none, or a store with none, is an empty slice.
func testEndpointListOrder(t *testing.T, e *env) {
	e.wantEndpoints("ListEndpoints of an empty store", e.listEndpoints(""), nil)
	var want []domain.Endpoint
	// Byte order: "-" < "0" < "_" < "a", and upper case before lower; a linguistic
	// collation would order both differently.
	for _, owner := range []string{bob, "Zed", alice} {
		for _, name := range []string{"ab", "a_b", "a0", "a-b"} {
			e.createEndpoint(e.newEndpoint(owner, name))
			e.clock.Advance(time.Second) // the order is not creation order
		}
	}
	for _, owner := range []string{"Zed", alice, bob} {
		for _, name := range []string{"a-b", "a0", "a_b", "ab"} {
			want = append(want, e.getEndpoint(owner, name))
		}
	}
	e.wantEndpoints("ListEndpoints(every owner)", e.listEndpoints(""), want)
	e.wantEndpoints("ListEndpoints(alice)", e.listEndpoints(alice), want[4:8])
	e.wantEndpoints("ListEndpoints(carol)", e.listEndpoints("carol"), nil)
}

// An owner's name taken is ErrConflict and the first endpoint is untouched; another
// owner may use the name.
func testEndpointDuplicate(t *testing.T, e *env) {
	first := e.createEndpoint(e.newEndpoint(alice, "billing"))
	e.clock.Advance(time.Minute)
	again := e.fullEndpoint(alice, "billing")
	_, err := e.store.CreateEndpoint(e.ctx, again)
	wantErr(t, "CreateEndpoint with a taken name", err, ports.ErrConflict)
	e.wantEndpoint("the first endpoint", e.getEndpoint(alice, "billing"), first)

	other := e.createEndpoint(e.fullEndpoint(bob, "billing"))
	e.wantEndpoint("bob's endpoint of the same name", e.getEndpoint(bob, "billing"), other)
	if es := e.listEndpoints(""); len(es) != 2 {
		t.Errorf("ListEndpoints = %d endpoints, want 2", len(es))
	}
}

// UpdateEndpoint replaces every field, to zero too, stamps UpdatedAt with the store's
// now and keeps CreatedAt, whatever the caller set in them; other endpoints stay.
func testEndpointUpdate(t *testing.T, e *env) {
	created := e.createEndpoint(e.fullEndpoint(alice, "billing"))
	neighbour := e.createEndpoint(e.fullEndpoint(alice, "alerts"))
	e.clock.Advance(time.Minute)

	changed := e.newEndpoint(alice, "billing")
	changed.URL, changed.Secrets = "https://other.example.com/new", []string{"rotated secret", "whsec_bmV3IGtleQ=="}
	changed.Timeout, changed.MaxInFlight, changed.RatePerSecond = 100*time.Millisecond, 1, 0.25
	changed.CreatedAt, changed.UpdatedAt = e.now().Add(time.Hour), e.now().Add(-time.Hour) // ignored
	want := e.stamped(changed, created.CreatedAt)
	got, err := e.store.UpdateEndpoint(e.ctx, changed)
	if err != nil {
		t.Fatalf("UpdateEndpoint: %v", err)
	}
	e.wantEndpoint("UpdateEndpoint result", got, want)
	e.wantEndpoint("GetEndpoint after the update", e.getEndpoint(alice, "billing"), want)

	// Back to nothing optional: zeros are written, not merged with what was there.
	e.clock.Advance(time.Minute)
	bare := e.newEndpoint(alice, "billing")
	if got, err = e.store.UpdateEndpoint(e.ctx, bare); err != nil {
		t.Fatalf("UpdateEndpoint to zeros: %v", err)
	}
	e.wantEndpoint("UpdateEndpoint to zeros", got, e.stamped(bare, created.CreatedAt))
	e.wantEndpoint("GetEndpoint after the update to zeros", e.getEndpoint(alice, "billing"), e.stamped(bare, created.CreatedAt))
	e.wantEndpoint("the other endpoint", e.getEndpoint(alice, "alerts"), neighbour)
}

// DeleteEndpoint removes the owner's endpoint only; the name may then be used again.
func testEndpointDelete(t *testing.T, e *env) {
	e.createEndpoint(e.newEndpoint(alice, "billing"))
	kept := e.createEndpoint(e.newEndpoint(bob, "billing"))
	if err := e.store.DeleteEndpoint(e.ctx, alice, "billing"); err != nil {
		t.Fatalf("DeleteEndpoint: %v", err)
	}
	_, err := e.store.GetEndpoint(e.ctx, alice, "billing")
	wantErr(t, "GetEndpoint after DeleteEndpoint", err, ports.ErrNotFound)
	wantErr(t, "DeleteEndpoint again", e.store.DeleteEndpoint(e.ctx, alice, "billing"), ports.ErrNotFound)
	e.wantEndpoints("ListEndpoints after the delete", e.listEndpoints(""), []domain.Endpoint{kept})

	e.clock.Advance(time.Minute)
	again := e.fullEndpoint(alice, "billing")
	e.wantEndpoint("CreateEndpoint of a deleted name", e.createEndpoint(again), e.stamped(again, e.now()))
}

// Reading, changing or deleting an endpoint that is not there is ErrNotFound: an
// unknown name, and a name another owner has.
func testEndpointUnknown(t *testing.T, e *env) {
	e.createEndpoint(e.newEndpoint(bob, "billing"))
	_, err := e.store.GetEndpoint(e.ctx, alice, "billing")
	wantErr(t, "GetEndpoint of another owner's name", err, ports.ErrNotFound)
	_, err = e.store.GetEndpoint(e.ctx, bob, "nope")
	wantErr(t, "GetEndpoint of an unknown name", err, ports.ErrNotFound)
	_, err = e.store.UpdateEndpoint(e.ctx, e.newEndpoint(alice, "billing"))
	wantErr(t, "UpdateEndpoint of another owner's name", err, ports.ErrNotFound)
	wantErr(t, "DeleteEndpoint of another owner's name", e.store.DeleteEndpoint(e.ctx, alice, "billing"), ports.ErrNotFound)
	if _, err := e.store.GetEndpoint(e.ctx, alice, "billing"); err == nil {
		t.Error("UpdateEndpoint of an unknown endpoint created it")
	}
}

// An alarm's endpoint is kept by every create (Create, CreateBatch, and CreateMany where
// the store has it) and comes back from every read (Get with either scope, List, the claim); an
// applied outcome leaves it, and deleting the endpoint does not change the alarm. The
// store keeps the name as given: whether it exists is the caller's to check.
func testAlarmEndpoint(t *testing.T, e *env) {
	withEndpoint := func(s domain.Spec, name string) domain.Spec { s.Endpoint = name; return s }
	e.createEndpoint(e.newEndpoint(alice, "billing"))
	once := e.build(withEndpoint(e.onceIn(alice, 0), "billing"))
	cron := e.build(withEndpoint(cronSpec(alice, "* * * * *", "UTC"), "reports-2"))
	plain := e.build(e.onceIn(alice, 0))
	e.wantAlarm("Create result", e.insert(once), once)
	wants := map[string]domain.Alarm{once.ID: once}

	batch := []domain.Alarm{cron, plain}
	for i, r := range e.createBatch(batch...) {
		if r.Err != nil || r.Deduped {
			t.Fatalf("CreateBatch item %d: %+v, want created", i, r)
		}
		e.wantAlarm(fmt.Sprintf("CreateBatch item %d", i), r.Alarm, batch[i])
		wants[batch[i].ID] = batch[i]
	}
	if bc, ok := e.store.(ports.BulkCreator); ok {
		bulk := e.build(withEndpoint(e.onceIn(alice, 0), "bulk"))
		if err := bc.CreateMany(e.ctx, []domain.Alarm{bulk}); err != nil {
			t.Fatalf("CreateMany: %v", err)
		}
		wants[bulk.ID] = bulk
	} else {
		t.Log("the store is no ports.BulkCreator: CreateMany not checked")
	}

	for id, w := range wants {
		e.wantStored("Get", w)
		got, err := e.store.Get(e.ctx, ports.AnyOwner, id)
		if err != nil {
			t.Fatalf("Get(AnyOwner, %s): %v", id, err)
		}
		e.wantAlarm("Get(AnyOwner)", got, w)
	}
	listed := e.listAll(alice, "", 10)
	if len(listed) != len(wants) {
		t.Fatalf("List = %d alarms, want %d", len(listed), len(wants))
	}
	for _, got := range listed {
		e.wantAlarm("List", got, wants[got.ID])
	}

	e.clock.Set(cron.NextFireAt.Add(time.Second))
	c := e.claim("w1", longLease, 100)
	if len(c.Alarms) != len(wants) {
		t.Fatalf("ClaimDue = %v, want all %d", alarmIDs(c.Alarms), len(wants))
	}
	var fires []domain.Transition
	for _, got := range c.Alarms {
		w := wants[got.ID]
		w.ClaimedBy, w.ClaimedAt = "w1", c.Now
		e.wantAlarm("ClaimDue", got, w)
		fires = append(fires, e.fire(got))
	}
	e.applyOK(fires...)
	if err := e.store.DeleteEndpoint(e.ctx, alice, "billing"); err != nil {
		t.Fatal(err)
	}
	for id, w := range wants {
		if got := e.get(alice, id); got.Endpoint != w.Endpoint {
			t.Errorf("alarm %s after its outcome and its endpoint's deletion names %q, want %q", id, got.Endpoint, w.Endpoint)
		}
	}
}
