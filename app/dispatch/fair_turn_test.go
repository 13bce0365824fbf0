package dispatch

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func alarmsOf(owners ...string) []domain.Alarm {
	as := make([]domain.Alarm, len(owners))
	for i, o := range owners {
		as[i] = domain.Alarm{Owner: o}
	}
	return as
}

// dueAt is alarmsOf, every alarm due at.
func dueAt(at time.Time, owners ...string) []domain.Alarm {
	as := alarmsOf(owners...)
	for i := range as {
		as[i].NextFireAt = at
	}
	return as
}

// claim runs one turn of the claim loop: the params fairTurn asks for, the store's
// answer, and what fairTurn makes of it.
func claim(f *fairTurn, n int, c ports.Claimed) (ports.ClaimParams, bool) {
	p := ports.ClaimParams{Batch: n, Fair: f.params(n)}
	return p, f.observe(p, c)
}

// Plain claims while they keep up; fair once one comes back full and behind, starting
// at the lane the last fair claim said and sharing the batch between the lanes it left
// alarms in; plain again once a fair claim left nothing behind.
func TestFairTurn(t *testing.T) {
	var f fairTurn
	if p := f.params(100); p != nil {
		t.Fatalf("first claim: %+v, want plain", p)
	}
	p, more := claim(&f, 100, ports.Claimed{Alarms: alarmsOf("a", "b")})
	if p.Fair != nil || more {
		t.Fatalf("a partial plain claim: fair %+v, more %v; want plain and no more", p.Fair, more)
	}
	if p := f.params(100); p != nil {
		t.Fatalf("after a partial claim: %+v, want plain", p)
	}

	// A full claim that keeps up with what falls due: more may be due, but nobody has
	// waited behind it, so the next claim is plain too.
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	_, more = claim(&f, 4, ports.Claimed{Alarms: dueAt(now.Add(-fairBehind), "a", "a", "a", "a"), Now: now})
	if !more {
		t.Error("a full plain claim that keeps up: more false, want true")
	}
	if p := f.params(4); p != nil {
		t.Fatalf("after a full claim that keeps up: %+v, want plain", p)
	}

	backlog := dueAt(now.Add(-time.Minute), "a", "a", "a", "a")
	backlog[2].NextFireAt = now.Add(-fairBehind - time.Millisecond) // the newest decides
	_, more = claim(&f, 4, ports.Claimed{Alarms: backlog, Now: now})
	if !more {
		t.Error("a full plain claim: more false, want true (a backlog)")
	}
	// After a plain claim, nothing is known of the lanes: one lane, the whole batch.
	if got := f.params(10); got == nil || *got != (ports.FairClaim{Start: 0, PerLane: 10}) {
		t.Fatalf("after a full claim: %+v, want fair from lane 0, 10 per lane", got)
	}

	for _, c := range []struct {
		n            int
		next, capped int
		want         ports.FairClaim // the claim after this one
	}{
		{n: 10, next: 5, capped: 3, want: ports.FairClaim{Start: 5, PerLane: 4}},     // ceil(10/3)
		{n: 10, next: 63, capped: 2, want: ports.FairClaim{Start: 63, PerLane: 5}},   // 10/2
		{n: 10, next: 0, capped: 1, want: ports.FairClaim{Start: 0, PerLane: 10}},    // one backlog: all of it
		{n: 10, next: 7, capped: 40, want: ports.FairClaim{Start: 7, PerLane: 1}},    // more lanes than the batch: at least one
		{n: 100, next: 12, capped: 7, want: ports.FairClaim{Start: 12, PerLane: 15}}, // ceil(100/7)
	} {
		p, more := claim(&f, c.n, ports.Claimed{Alarms: alarmsOf("a"), Next: c.next, Capped: c.capped})
		if p.Fair == nil {
			t.Fatalf("claim with next %d: plain, want fair", c.next)
		}
		if !more {
			t.Errorf("a fair claim that capped %d lanes: more false, want true", c.capped)
		}
		if got := f.params(c.n); got == nil || *got != c.want {
			t.Errorf("after next %d, capped %d: %+v, want %+v", c.next, c.capped, got, c.want)
		}
	}

	p, more = claim(&f, 10, ports.Claimed{Alarms: alarmsOf("a", "b"), Next: 9, Capped: 0})
	if p.Fair == nil || more {
		t.Fatalf("a fair claim that capped no lane: fair %+v, more %v; want fair and no more", p.Fair, more)
	}
	if got := f.params(10); got != nil {
		t.Errorf("after a fair claim left nothing behind: %+v, want plain", got)
	}
}

func TestCountOwners(t *testing.T) {
	for _, c := range []struct {
		owners []string
		want   int
	}{
		{nil, 0},
		{[]string{"a"}, 1},
		{[]string{"a", "a", "a"}, 1},
		{[]string{"a", "b", "a", "c"}, 3},
	} {
		if got := countOwners(alarmsOf(c.owners...)); got != c.want {
			t.Errorf("countOwners(%v) = %d, want %d", c.owners, got, c.want)
		}
	}
}

// Claims are kept to sharedClaim for sharedFor after one held several owners' alarms,
// and are whole again after that; a claim of one owner's alarms does not shrink them.
func TestFairTurnKeepsSharedClaimsSmall(t *testing.T) {
	var f fairTurn
	t0 := time.Unix(1_700_000_000, 0)
	if got := f.size(1000, t0); got != 1000 {
		t.Fatalf("nobody served yet: size %d, want 1000", got)
	}
	f.served(1, t0)
	if got := f.size(1000, t0); got != 1000 {
		t.Fatalf("one owner served: size %d, want 1000", got)
	}
	f.served(3, t0)
	if got := f.size(1000, t0.Add(sharedFor/2)); got != sharedClaim {
		t.Fatalf("three owners served: size %d, want %d", got, sharedClaim)
	}
	if got := f.size(100, t0.Add(sharedFor/2)); got != 100 {
		t.Fatalf("a smaller adaptive size: %d, want 100", got)
	}
	if got := f.size(1000, t0.Add(sharedFor)); got != 1000 {
		t.Fatalf("sharedFor later: size %d, want 1000", got)
	}
}
