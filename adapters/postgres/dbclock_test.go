package postgres

import (
	"context"
	"github.com/chronoshq/chronos/test/contract"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/chronoshq/chronos/adapters/internal/storetest"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// The contract suite injects a clock; production runs on the database clock. This is
// the production path end to end: due-ness and the lease stamp come from the server,
// ClaimDue returns the lease exactly as stored, and fencing on it applies.
func TestDatabaseClockClaimAndFence(t *testing.T) {
	s, before := dbClockStore(t)
	ctx := context.Background()
	past := before.Add(-time.Second)
	future := before.Add(time.Hour)
	due := createOnce(t, s, past, before)
	createOnce(t, s, future, before)

	c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Alarms) != 1 || c.Alarms[0].ID != due.ID {
		t.Fatalf("claimed %v, want only the due alarm %s", ids(c.Alarms), due.ID)
	}
	claimed := c.Alarms[0]
	if c.Now.Before(before) || !claimed.ClaimedAt.Equal(c.Now) || claimed.ClaimedBy != "w1" {
		t.Fatalf("lease = %s at %s, Claimed.Now = %s (database now before: %s)", claimed.ClaimedBy, claimed.ClaimedAt, c.Now, before)
	}
	stored, err := s.Get(ctx, ports.OwnedBy("alice"), due.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Fence() != claimed.Fence() {
		t.Fatalf("stored lease %+v differs from the returned one %+v", stored.Fence(), claimed.Fence())
	}

	// A short lease lapses by the database clock and another worker takes over; the
	// first worker's outcome is then stale.
	c2 := claimEventually(t, s, "w2", time.Millisecond)
	if len(c2.Alarms) != 1 || c2.Alarms[0].ID != due.ID {
		t.Fatalf("w2 claimed %v after w1's lease lapsed, want %s", ids(c2.Alarms), due.ID)
	}
	fired := func(a domain.Alarm, now time.Time) domain.Transition {
		return domain.Decide(domain.Begin(a, now, domain.Policy{}), domain.Delivered(), now, domain.Policy{Backoff: domain.DefaultBackoff})
	}
	res, err := s.Apply(ctx, []domain.Transition{fired(claimed, c.Now)})
	if err != nil || res.Applied != 0 || len(res.Stale) != 1 {
		t.Fatalf("w1's outcome after losing the lease: %+v, %v; want stale", res, err)
	}
	res, err = s.Apply(ctx, []domain.Transition{fired(c2.Alarms[0], c2.Now)})
	if err != nil || res.Applied != 1 {
		t.Fatalf("w2's outcome: %+v, %v; want applied", res, err)
	}
	if a, _ := s.Get(ctx, ports.OwnedBy("alice"), due.ID); a.Status != domain.StatusFired || a.Claimed() {
		t.Errorf("after w2's outcome: status %s, lease %q; want fired and released", a.Status, a.ClaimedBy)
	}

	// An owner action sees the database's now.
	cancelled, err := s.Mutate(ctx, ports.OwnedBy("alice"), ids(c.Alarms)[0], func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		if now.Before(c2.Now) {
			t.Errorf("Mutate's now %s is before an earlier claim's %s", now, c2.Now)
		}
		tr, changed := domain.Cancel(a, now)
		return tr, changed, nil
	})
	if err != nil || cancelled.Status != domain.StatusFired {
		t.Errorf("Mutate(cancel) of a fired alarm = %s, %v; want unchanged", cancelled.Status, err)
	}
}

// ExtendLease on the database clock: the new claimed_at is the server's now plus
// For - Lease, returned exactly as stored, and it fences the outcome.
func TestDatabaseClockExtendLease(t *testing.T) {
	s, before := dbClockStore(t)
	ctx := context.Background()
	due := createOnce(t, s, before.Add(-time.Second), before)
	c, f, after := storetest.ExtendLeaseOnDatabaseClock(t, s, "alice", due.ID)
	a := c.Alarms[0]
	a.ClaimedAt = f.ClaimedAt
	now := after
	tr := domain.Decide(domain.Begin(a, now, domain.Policy{}), domain.Delivered(), now, domain.Policy{Backoff: domain.DefaultBackoff})
	if res, err := s.Apply(ctx, []domain.Transition{tr}); err != nil || res.Applied != 1 {
		t.Fatalf("outcome under the new fence: %+v, %v; want applied", res, err)
	}
}

func createOnce(t *testing.T, s *Store, at, now time.Time) domain.Alarm {
	t.Helper()
	a, err := domain.NewAlarm(uuid.NewString(), domain.Spec{Owner: "alice", Kind: domain.KindOnce, FireAt: &at}, now, domain.Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatal(err)
	}
	stored, _, err := contract.CreateOne(context.Background(), s, a)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

// claimEventually claims until something comes back: a lease of lease must first lapse
// on the server's clock.
func claimEventually(t *testing.T, s *Store, worker string, lease time.Duration) ports.Claimed {
	t.Helper()
	for range 100 {
		c, err := s.ClaimDue(context.Background(), ports.ClaimParams{Worker: worker, Lease: lease, Batch: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Alarms) > 0 {
			return c
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s claimed nothing within a second", worker)
	return ports.Claimed{}
}

func ids(as []domain.Alarm) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}
