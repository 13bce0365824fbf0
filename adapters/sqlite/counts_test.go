package sqlite

import (
	"github.com/chronoshq/chronos/test/contract"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

type stepClock struct{ t *time.Time }

func (c stepClock) Now() time.Time { return *c.t }

// The due backlog leaves out a lease exactly while the claim would: a lease taken
// exactly lease ago has expired for both, so its alarm is counted and claimable.
func TestCountDueAgreesWithClaimAtTheLeaseBoundary(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s := openTemp(t, stepClock{&now})
	at := now
	a, err := domain.NewAlarm("a", domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at}, now.Add(-time.Hour), domain.Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := contract.CreateOne(ctx, s, a); err != nil {
		t.Fatal(err)
	}
	const lease = time.Minute
	if c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: lease, Batch: 1}); err != nil || len(c.Alarms) != 1 {
		t.Fatalf("first claim = %v, %v; want the alarm", c.Alarms, err)
	}
	for _, step := range []struct {
		after time.Duration
		due   int64
	}{{lease - time.Millisecond, 0}, {lease, 1}} {
		now = at.Add(step.after)
		c, err := s.CountAlarms(ctx, lease)
		if err != nil || c.Due != step.due {
			t.Errorf("%s after the claim: due %d, %v; want %d", step.after, c.Due, err, step.due)
		}
	}
	if c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w2", Lease: lease, Batch: 1}); err != nil || len(c.Alarms) != 1 {
		t.Errorf("claim at the boundary = %v, %v; want the alarm (the count said it was due)", c.Alarms, err)
	}
}
