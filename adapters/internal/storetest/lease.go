package storetest

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// ExtendLeaseOnDatabaseClock claims the one due alarm of s, id of owner, for worker w1
// and extends its lease to an hour, on a store that runs on its database's clock: the
// new fence must be w1 at the database's now + 59m (between the claim's now and the
// store's now read after it) and stored exactly as returned. It returns the claim, the
// new fence and the now read after.
func ExtendLeaseOnDatabaseClock(t testing.TB, s ports.Store, owner, id string) (ports.Claimed, domain.Fence, time.Time) {
	t.Helper()
	ctx := t.Context()
	c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: 10})
	if err != nil || len(c.Alarms) != 1 {
		t.Fatalf("ClaimDue = %d alarms, %v; want the due one", len(c.Alarms), err)
	}
	f, err := s.ExtendLease(ctx, ports.ExtendLease{AlarmID: id, Fence: c.Alarms[0].Fence(), Lease: time.Minute, For: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	after, err := s.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := c.Now.Add(59*time.Minute), after.Add(59*time.Minute); f.Worker != "w1" || f.ClaimedAt.Before(lo) || f.ClaimedAt.After(hi) {
		t.Fatalf("new fence %+v, want w1 at the database's now + 59m, between %s and %s", f, lo, hi)
	}
	if stored, err := s.Get(ctx, ports.OwnedBy(owner), id); err != nil || stored.Fence() != f {
		t.Fatalf("stored lease %+v (%v) differs from the returned one %+v", stored.Fence(), err, f)
	}
	return c, f, after
}
