package owners

import (
	"errors"
	"testing"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// A node runs at most its gate's bulk calls at once: one more is refused at once with
// ErrNodeBusy and a Retry-After, and admitted once one has ended. One dry run per owner
// runs at a time: the owner's second is ErrRateLimited, another owner's goes through.
func TestBulkGate(t *testing.T) {
	limited := func(err error, kind error) bool {
		var le *domain.LimitError
		return errors.Is(err, kind) && errors.As(err, &le) && le.RetryAfter > 0 && le.Message != ""
	}
	g := NewBulkGate(2)
	leaveA, err := g.enter("alice", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.enter("alice", true); !limited(err, domain.ErrRateLimited) {
		t.Errorf("alice's second dry run: %v, want ErrRateLimited", err)
	}
	leaveB, err := g.enter("bob", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.enter("carol", true); !limited(err, domain.ErrNodeBusy) {
		t.Errorf("a third call on a gate of two: %v, want ErrNodeBusy", err)
	}
	leaveB()
	leaveC, err := g.enter("carol", true) // carol's refused dry run left no mark
	if err != nil {
		t.Errorf("carol's dry run once a call ended: %v", err)
	}
	leaveA()
	leaveC()
	if _, err := g.enter("alice", true); err != nil {
		t.Errorf("alice's dry run once hers ended: %v", err)
	}
	var none *BulkGate
	for range 10 {
		if _, err := none.enter("alice", true); err != nil {
			t.Fatalf("no gate refused a call: %v", err)
		}
	}
}

// A bulk call refused by the gate reads nothing: the store is not touched.
func TestBulkRefusedByTheGateReadsNothing(t *testing.T) {
	g := NewBulkGate(1)
	leave, err := g.enter("bob", false)
	if err != nil {
		t.Fatal(err)
	}
	defer leave()
	alarms := NewAlarms(&endpointReads{}, newTestClock(), nil, AlarmsConfig{BulkGate: g, BulkPerCall: 10}, nil)
	for _, dry := range []bool{true, false} {
		_, err := alarms.Bulk(t.Context(), "alice", ports.ListFilter{Status: domain.StatusActive}, domain.OwnerBulkCancel, dry)
		if !errors.Is(err, domain.ErrNodeBusy) {
			t.Errorf("Bulk (dry run %t) on a full gate: %v, want ErrNodeBusy", dry, err)
		}
	}
}
