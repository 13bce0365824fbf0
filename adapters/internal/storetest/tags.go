package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// TagPageShape is one shape of a tag-filtered page the stores' plan tests check.
type TagPageShape struct {
	Name string
	F    ports.ListFilter
}

// TagPageShapes are the tag pages every SQL store's plan test checks that walk their
// pair to the page's end (sqlstore's pairTagPage): a pair alone, of owner "o".
var TagPageShapes = []TagPageShape{
	{"one pair", ports.ListFilter{Scope: ports.OwnedBy("o"), Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
}

// StatusTagPageShapes are the tag pages of one owner and a rare status, which walk the
// owner's alarms of that status and check the pairs on each (sqlstore's statusTagPage).
var StatusTagPageShapes = []TagPageShape{
	{"failed, one pair", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusFailed,
		Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
	{"paused, three pairs", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusPaused, Tags: []domain.TagFilter{
		{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}, {Key: "region", Value: "eu"}}}},
	{"every filter", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusFailed, Kind: domain.KindOnce,
		LabelPrefix: "b", FailedSince: time.Unix(1, 0), Tags: []domain.TagFilter{{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}}}},
}

// WalkTagPageShapes are the tag pages whose walk of the first pair stops after
// sqlstore.TagWalk entries (sqlstore's walkTagPage): a pair with other conditions.
var WalkTagPageShapes = []TagPageShape{
	{"three pairs", ports.ListFilter{Scope: ports.OwnedBy("o"), Tags: []domain.TagFilter{
		{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}, {Key: "region", Value: "eu"}}}},
	{"status", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusActive,
		Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
	{"kind and label", ports.ListFilter{Scope: ports.OwnedBy("o"), Kind: domain.KindOnce, LabelPrefix: "b",
		Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
	{"every filter", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusFailed, Kind: domain.KindOnce,
		LabelPrefix: "b", FailedSince: time.Unix(1, 0), Tags: []domain.TagFilter{{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}}}},
}

// TagWalkCutsPages checks, on a fresh store s whose tag pages walk at most walk
// entries of a pair's index (sqlstore.TagWalk), that such a page comes back short with
// a cursor when the walk ran out before the page filled, and that its cursor goes on
// after the last entry walked: every match exactly once, in the list's order, for an
// owner and across owners, whether the last entry walked matched or not. It returns
// the filter of a first page that walk cut (a tag and a label prefix), for a plan test
// to count what its walk reads.
func TagWalkCutsPages(t *testing.T, s ports.Store, walk int) ports.ListFilter {
	t.Helper()
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Second)
	at := now.Add(time.Hour)
	n := 0
	// alarm makes owner's next alarm, its id after every earlier one's.
	alarm := func(owner, label string) domain.Alarm {
		n++
		a, err := domain.NewAlarm(fmt.Sprintf("019a0000-0000-7000-8000-%012d", n), domain.Spec{Owner: owner, Kind: domain.KindOnce,
			FireAt: &at, Label: label, Tags: map[string]string{"customer": "7"}}, now, domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	others := func(owner string, k int) []domain.Alarm {
		as := make([]domain.Alarm, k)
		for i := range as {
			as[i] = alarm(owner, "other")
		}
		return as
	}
	// Newest first, the walk from the top passes 9 others, m2 and walk-11 others, and
	// its last entry is m1; the next walks the gap and finds nothing; the last finds
	// m0 (and bob's b0, across owners).
	m0 := alarm("alice", "match")
	b0 := alarm("bob", "match")
	gap := others("alice", walk)
	m1 := alarm("alice", "match")
	near := others("alice", walk-11)
	m2 := alarm("alice", "match")
	top := others("alice", 9)
	var all []domain.Alarm
	for _, part := range [][]domain.Alarm{{m0, b0}, gap, {m1}, near, {m2}, top} {
		all = append(all, part...)
	}
	for chunk := range slices.Chunk(all, 200) {
		res, err := s.CreateBatch(ctx, chunk)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	ids := func(as []domain.Alarm) []string {
		out := make([]string, len(as))
		for i, a := range as {
			out[i] = a.ID
		}
		return out
	}
	for _, c := range []struct {
		name  string
		scope ports.Scope
		pages [][]domain.Alarm // each page, with a cursor after every one but the last
	}{
		// m1 is the walk's last entry: its page ends there, the next begins after it.
		{"an owner", ports.OwnedBy("alice"), [][]domain.Alarm{{m2, m1}, {}, {m0}}},
		{"every owner", ports.AnyOwner, [][]domain.Alarm{{m2, m1}, {}, {b0, m0}}},
	} {
		f := ports.ListFilter{Scope: c.scope, Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}, LabelPrefix: "match", Limit: 100}
		for i, want := range c.pages {
			got, next, err := s.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Errorf("%s, page %d: %v, want %v", c.name, i+1, ids(got), ids(want))
			}
			if last := i == len(c.pages)-1; last != (next == "") {
				t.Errorf("%s, page %d: cursor %q; want one after every page but the last", c.name, i+1, next)
			}
			f.Cursor = next
		}
	}
	// The walk of the gap ends at its last entry.
	f := ports.ListFilter{Scope: ports.OwnedBy("alice"), Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}, LabelPrefix: "match",
		Cursor: ports.EncodeListCursor(m1.ID)}
	if got, next, err := s.List(ctx, f); err != nil || len(got) != 0 || next != ports.EncodeListCursor(gap[0].ID) {
		t.Errorf("a page over the gap: %v, cursor %q, %v; want none, and the cursor after the gap's last entry", ids(got), next, err)
	}
	// A pair alone walks on to the page's end: its pages are full.
	f = ports.ListFilter{Scope: ports.OwnedBy("alice"), Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}, Limit: ports.MaxListLimit}
	if got, next, err := s.List(ctx, f); err != nil || len(got) != ports.MaxListLimit || next == "" {
		t.Errorf("a pair alone: %d alarms, cursor %q, %v; want a full page and a cursor", len(got), next, err)
	}
	return ports.ListFilter{Scope: ports.OwnedBy("alice"), Tags: []domain.TagFilter{{Key: "customer", Value: "7"}}, LabelPrefix: "match"}
}
