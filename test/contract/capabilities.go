package contract

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

var capabilityCases = []testCase{
	{"Declared", testCapabilitiesDeclared},
	{"DeclaredUnsupported", testCapabilitiesUnsupported},
	{"Ping", testCapabilitiesPing},
}

// The declaration is stable and its precision usable: positive and at most 1ms.
func testCapabilitiesDeclared(t *testing.T, e *env) {
	if again := e.store.Capabilities(); again != e.caps {
		t.Errorf("Capabilities changed between calls: %+v then %+v", e.caps, again)
	}
	if p := e.caps.TimePrecision; p <= 0 || p > time.Millisecond {
		t.Errorf("TimePrecision = %s, want between 1ns and 1ms", p)
	}
	t.Logf("declared: %+v", e.caps)
}

// Every operation behind a capability declared false returns ports.ErrUnsupported.
// (DatabaseClock and MultiProcess have no operation of their own: false only means
// the process clock is used, and one process may claim at a time.)
func testCapabilitiesUnsupported(t *testing.T, e *env) {
	checked := 0
	if !e.caps.WakeHints {
		checked++
		wantErr(t, "PublishHint without WakeHints", e.store.PublishHint(e.ctx, e.now()), ports.ErrUnsupported)
		_, err := e.store.SubscribeHints(e.ctx)
		wantErr(t, "SubscribeHints without WakeHints", err, ports.ErrUnsupported)
	}
	if checked == 0 {
		t.Log("no capability with an operation is declared false; nothing to check")
	}
}

// Ping answers on a healthy store.
func testCapabilitiesPing(t *testing.T, e *env) {
	if err := e.store.Ping(e.ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
