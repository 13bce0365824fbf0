package contract

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

var stateCases = []testCase{
	{"MissingIsNotAnError", testStateMissing},
	{"PutReplacesAndStamps", testStatePut},
	{"SwapOnlyFromTheValueRead", testStateSwap},
	{"ConcurrentSwapsOneWins", testStateSwapRace},
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

func (e *env) swapState(name, old, value string) bool {
	e.t.Helper()
	ok, err := e.store.SwapState(e.ctx, name, old, value)
	if err != nil {
		e.t.Fatalf("SwapState(%s): %v", name, err)
	}
	return ok
}

// SwapState writes only over the value given: "" over nothing stored, a value over
// exactly that value (not one that differs by a byte, case or trailing space), stamped
// like PutState; a refused swap changes nothing and is no error.
func testStateSwap(t *testing.T, e *env) {
	if !e.swapState("calendars", "", `{"v":1}`) {
		t.Fatal(`SwapState("" -> v1) over nothing refused`)
	}
	if e.swapState("calendars", "", `{"v":2}`) {
		t.Error(`SwapState("" -> v2) over a stored value succeeded`)
	}
	e.clock.Advance(time.Minute)
	for _, old := range []string{`{"v":2}`, `{"V":1}`, `{"v":1} `, `{"v":1`} {
		if e.swapState("calendars", old, `{"v":3}`) {
			t.Errorf("SwapState(%q -> v3) over v1 succeeded", old)
		}
	}
	if s, _ := e.getState("calendars"); s.Value != `{"v":1}` || !e.sameTime(s.UpdatedAt, e.now().Add(-time.Minute)) {
		t.Errorf("after refused swaps: %+v, want v1 as first written", s)
	}
	if !e.swapState("calendars", `{"v":1}`, `{"v":4} 💤`) {
		t.Fatal("SwapState(v1 -> v4) over v1 refused")
	}
	if s, _ := e.getState("calendars"); s.Value != `{"v":4} 💤` || !e.sameTime(s.UpdatedAt, e.now()) {
		t.Errorf("after the swap: %+v, want v4 at %s", s, fmtTime(e.now()))
	}
	if e.swapState("other", "x", "y") {
		t.Error("SwapState over a name never written, from a value, succeeded")
	}
	if _, ok := e.getState("other"); ok {
		t.Error("a refused swap stored a value")
	}
}

// Of several callers swapping from the same value at once, exactly one wins, from
// nothing stored and from a value alike.
func testStateSwapRace(t *testing.T, e *env) {
	const callers = 8
	for _, old := range []string{"", "start"} {
		if old != "" {
			e.putState("race", old)
		}
		var (
			wg   sync.WaitGroup
			wins atomic.Int32
		)
		for i := range callers {
			wg.Go(func() {
				ok, err := e.store.SwapState(e.ctx, "race", old, fmt.Sprintf("by %d", i))
				if err != nil {
					t.Errorf("SwapState: %v", err)
				}
				if ok {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Errorf("%d concurrent swaps from %q: %d won, want exactly 1", callers, old, n)
		}
	}
}
