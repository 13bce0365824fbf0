package contract

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

var stateCases = []testCase{
	{"MissingIsNotAnError", testStateMissing},
	{"PutReplacesAndStamps", testStatePut},
}

func (e *env) getState(name string) (ports.State, bool) {
	e.t.Helper()
	s, ok, err := e.store.GetState(e.ctx, name)
	if err != nil {
		e.t.Fatalf("GetState(%s): %v", name, err)
	}
	return s, ok
}

func (e *env) putState(name, value string) {
	e.t.Helper()
	if err := e.store.PutState(e.ctx, name, value); err != nil {
		e.t.Fatalf("PutState(%s): %v", name, err)
	}
}

// A name never written reads as absent, not as an error or an empty value.
func testStateMissing(t *testing.T, e *env) {
	if s, ok := e.getState("dispatch"); ok {
		t.Errorf("GetState of a name never put = %+v, present; want absent", s)
	}
}

// PutState stores the value exactly (JSON with quotes, backslashes, non-ASCII), stamps
// the store's now, replaces an earlier value, and leaves other names alone.
func testStatePut(t *testing.T, e *env) {
	first := `{"paused":true,"by":"tok_1","note":"a \"quoted\" \\ 💤"}`
	e.putState("dispatch", first)
	e.putState("retention", `{}`)
	s, ok := e.getState("dispatch")
	if !ok || s.Value != first || !e.sameTime(s.UpdatedAt, e.now()) {
		t.Errorf("GetState = %+v (present %t), want %q updated at %s", s, ok, first, fmtTime(e.now()))
	}
	e.clock.Advance(time.Minute)
	e.putState("dispatch", `{"paused":false}`)
	s, _ = e.getState("dispatch")
	if s.Value != `{"paused":false}` || !e.sameTime(s.UpdatedAt, e.now()) {
		t.Errorf("after a second put: %+v, want the new value at %s", s, fmtTime(e.now()))
	}
	if s, _ := e.getState("retention"); s.Value != `{}` || !e.sameTime(s.UpdatedAt, e.now().Add(-time.Minute)) {
		t.Errorf("another name changed: %+v", s)
	}
}
