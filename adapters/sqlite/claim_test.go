package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// ClaimDue hands back the oldest due alarms first, whatever order they were created
// in, and a batch smaller than the backlog takes the oldest.
func TestClaimOrder(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s := openTemp(t, fixedClock{now})

	// Created out of order; "e" is not due yet.
	offsets := map[string]time.Duration{"c": -1 * time.Minute, "a": -3 * time.Minute, "e": time.Minute, "b": -2 * time.Minute, "d": 0}
	for _, name := range []string{"c", "a", "e", "b", "d"} {
		at := now.Add(offsets[name])
		a, err := domain.NewAlarm(name, domain.Spec{Owner: "o", Kind: domain.KindOnce, FireAt: &at}, now.Add(-time.Hour), domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := contract.CreateOne(ctx, s, a); err != nil {
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

// The claim merges the lanes of alarms_lane_due in due order, one seek per lane, and
// neither scans the table nor sorts: the index is read only as far as the batch.
func TestClaimUsesDueIndex(t *testing.T) {
	s := openTemp(t, nil)
	if p := queryPlan(t, s, claimSQL, "w", 0, 0, 10); !mergesLanes(p, laneRangeProbe) {
		t.Errorf("claim plan does not merge the lanes of alarms_lane_due in order: %s", p)
	}
}

// laneRangeProbe and laneProbe are one lane's read of alarms_lane_due in a plan: its
// due range (next_fire_at <= ?), or the whole lane from its oldest entry.
const (
	laneRangeProbe = "SEARCH alarms USING INDEX alarms_lane_due (lane=? AND next_fire_at<?)"
	laneProbe      = "SEARCH alarms USING INDEX alarms_lane_due (lane=?)"
)

// mergesLanes reports whether plan reads every lane through probe, once each, and
// merges them in index order: no sort, no scan of the table.
func mergesLanes(plan, probe string) bool {
	return lanesProbed(plan, probe) && strings.Contains(plan, "MERGE (UNION ALL)")
}

// lanesProbed reports whether plan reads every lane through probe, once each, with no
// sort and no scan of the table.
func lanesProbed(plan, probe string) bool {
	n := 0
	for _, step := range strings.Split(plan, "; ") {
		if step == probe {
			n++
		}
	}
	return n == ports.Lanes && !scansTable(plan) && !strings.Contains(plan, "TEMP B-TREE") &&
		!strings.Contains(plan, "alarms_due")
}

func ids(as []domain.Alarm) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return strings.Join(out, ",")
}
