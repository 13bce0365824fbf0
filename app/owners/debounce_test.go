package owners

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// replacingStore answers every create as a replace of its key's alarm.
type replacingStore struct{ ports.Store }

func (replacingStore) CreateBatch(_ context.Context, as []domain.Alarm) ([]CreateResult, error) {
	out := make([]CreateResult, len(as))
	for i, a := range as {
		a.Debounce = nil
		out[i] = CreateResult{Alarm: a, Replaced: true}
	}
	return out, nil
}

func (replacingStore) Capabilities() ports.Capabilities { return ports.Capabilities{} }

// A replace adds no alarm: it takes none of the owner's quota, alone or in a batch, and
// CreateOne says it replaced.
func TestReplaceTakesNoQuota(t *testing.T) {
	q, _, _ := newTestQuota(t, 2)
	alarms := NewAlarms(replacingStore{}, newTestClock(), nil, AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 3}, Quota: q}, nil)
	delay := time.Minute
	spec := domain.Spec{Owner: "alice", Kind: domain.KindOnce, Delay: &delay, IdempotencyKey: "k", OnDuplicate: domain.OnDuplicateReplace}
	for range 3 {
		r, err := alarms.CreateOne(t.Context(), spec)
		if err != nil || !r.Replaced || r.Deduped {
			t.Fatalf("CreateOne: %+v, %v; want replaced", r, err)
		}
	}
	if _, err := alarms.CreateBatch(t.Context(), []domain.Spec{spec, spec}); err != nil {
		t.Fatal(err)
	}
	if err := admit(t, q, "alice", 2, 2); err != nil {
		t.Errorf("2 of 2 after replaces only: %v, want admitted", err)
	}
}
