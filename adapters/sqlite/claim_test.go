package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// ClaimDue hands back the oldest due alarms first, whatever order they were created
// in, and a batch smaller than the backlog takes the oldest.
func TestClaimOrder(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "c.db"), Options{Clock: fixedClock{now}, Migrate: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()

	// Created out of order; "e" is not due yet.
	offsets := map[string]time.Duration{"c": -1 * time.Minute, "a": -3 * time.Minute, "e": time.Minute, "b": -2 * time.Minute, "d": 0}
	for _, name := range []string{"c", "a", "e", "b", "d"} {
		at := now.Add(offsets[name])
		a, err := domain.NewAlarm(name, domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at}, now.Add(-time.Hour), domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Create(ctx, a); err != nil {
			t.Fatalf("Create(%s): %v", name, err)
		}
	}

	first, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: 2})
	if err != nil {
		t.Fatalf("ClaimDue: %v", err)
	}
	rest, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w2", Lease: time.Minute, Batch: 10})
	if err != nil {
		t.Fatalf("ClaimDue: %v", err)
	}
	if got := ids(first.Alarms) + "|" + ids(rest.Alarms); got != "a,b|c,d" {
		t.Errorf("claims = %s, want a,b|c,d (oldest due first, e not due)", got)
	}
}

// The claim walks the partial index of active alarms instead of scanning the table.
func TestClaimUsesDueIndex(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "i.db"), Options{Migrate: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	p := queryPlan(t, s, claimSQL, "w", 0, 0, 10)
	if !strings.Contains(p, "USING INDEX alarms_due") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("claim plan does not read alarms_due in order: %s", p)
	}
}

func ids(as []domain.Alarm) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return strings.Join(out, ",")
}
