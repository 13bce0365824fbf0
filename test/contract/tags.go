package contract

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var tagCases = []testCase{
	{"StoredReturnedPatchedCleared", testTagsStoredPatchedCleared},
	{"DedupedCreateReturnsTheTwinsTags", testTagsDeduped},
	{"FilterIsAnAndOfPairs", testTagFilterAnd},
	{"FilterPagesWithACursor", testTagFilterPaging},
	{"FilterCombinesWithTheOtherFilters", testTagFilterOtherFilters},
	{"SparseMatchesPageThroughOnce", testTagFilterSparse},
	{"OneInEightMatchingFillsPages", testTagFilterFills},
	{"FilterNeverCrossesOwners", testTagFilterOwners},
	{"DeleteTakesTheTags", testTagsGoWithDelete},
	{"RetentionTakesTheTags", testTagsGoWithRetention},
	{"BulkCreateWritesTags", testTagsBulkCreate},
	{"ReplaceKeepsTheTags", testTagsReplace},
}

// tagged is a once alarm of owner with these tags and label.
func (e *env) tagged(owner, label string, tags map[string]string) domain.Alarm {
	e.t.Helper()
	s := e.onceIn(owner, time.Hour)
	s.Label, s.Tags = label, tags
	return e.create(s)
}

func updateTags(tags map[string]string) ports.MutateFunc {
	return func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.Update(a, domain.Patch{Tags: &tags}, now)
	}
}

func (e *env) wantTags(what string, got, want map[string]string) {
	e.t.Helper()
	if !maps.Equal(got, want) {
		e.t.Errorf("%s: tags = %v, want %v", what, got, want)
	}
}

func tagFilter(pairs ...string) []domain.TagFilter {
	var fs []domain.TagFilter
	for i := 0; i+1 < len(pairs); i += 2 {
		fs = append(fs, domain.TagFilter{Key: pairs[i], Value: pairs[i+1]})
	}
	return fs
}

// An alarm's tags come back from the create, Get, List and Mutate; an update replaces
// them whole, an update of something else keeps them, and an empty set clears them.
func testTagsStoredPatchedCleared(t *testing.T, e *env) {
	tags := map[string]string{"customer": "42", "plan": "pro", "note": "ünïcode: with colon"}
	a := e.tagged(alice, "tagged", tags)
	e.wantTags("create", a.Tags, tags)
	e.wantStored("created", a)
	page, _ := e.list(alice, ports.ListFilter{})
	if len(page) != 1 {
		t.Fatalf("List: %d alarms, want 1", len(page))
	}
	e.wantTags("List", page[0].Tags, tags)

	next := map[string]string{"customer": "43"}
	a = e.mutate(alice, a.ID, updateTags(next))
	e.wantTags("Mutate's answer", a.Tags, next)
	e.wantStored("updated", a)

	label := "relabelled"
	a = e.mutate(alice, a.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.Update(a, domain.Patch{Label: &label}, now)
	})
	e.wantTags("after a label update", e.get(alice, a.ID).Tags, next)

	a = e.mutate(alice, a.ID, updateTags(map[string]string{}))
	e.wantTags("cleared", a.Tags, nil)
	e.wantStored("cleared", a)
	if got, _ := e.list(alice, ports.ListFilter{Tags: tagFilter("customer", "43")}); len(got) != 0 {
		t.Errorf("filter on a cleared tag: %v, want none", alarmIDs(got))
	}
	a = e.mutate(alice, a.ID, cancelFn)
	e.wantTags("cancelled", a.Tags, nil)
}

// A repeated idempotency key answers the alarm the key made, its tags included (not
// the repeat's).
func testTagsDeduped(t *testing.T, e *env) {
	s := e.onceIn(alice, time.Hour)
	s.IdempotencyKey, s.Tags = "k1", map[string]string{"customer": "42"}
	first := e.create(s)
	s.Tags = map[string]string{"customer": "99"}
	res := e.createBatch(e.build(s), e.build(s))
	for i, r := range res {
		if r.Err != nil || !r.Deduped || r.Alarm.ID != first.ID {
			t.Fatalf("item %d: %+v, want deduped to %s", i, r, first.ID)
		}
		e.wantTags("deduped", r.Alarm.Tags, first.Tags)
	}
}

// Pairs AND: an alarm matches when it carries every pair, whatever else it carries.
func testTagFilterAnd(t *testing.T, e *env) {
	a := e.tagged(alice, "a", map[string]string{"customer": "42", "plan": "pro"})
	b := e.tagged(alice, "b", map[string]string{"customer": "42", "plan": "free"})
	c := e.tagged(alice, "c", map[string]string{"customer": "42", "plan": "pro", "region": "eu"})
	e.tagged(alice, "d", map[string]string{"customer": "7", "plan": "pro"})
	e.tagged(alice, "e", nil)
	v := e.tagged(alice, "v", map[string]string{"url": "https://x:8080/a"})
	for _, c := range []struct {
		what string
		f    []domain.TagFilter
		want []domain.Alarm
	}{
		{"customer 42", tagFilter("customer", "42"), []domain.Alarm{c, b, a}},
		{"customer 42 and pro", tagFilter("customer", "42", "plan", "pro"), []domain.Alarm{c, a}},
		{"pro and customer 42", tagFilter("plan", "pro", "customer", "42"), []domain.Alarm{c, a}},
		{"three pairs", tagFilter("plan", "pro", "customer", "42", "region", "eu"), []domain.Alarm{c}},
		{"no such value", tagFilter("customer", "4"), nil},
		{"no such key", tagFilter("nothing", "42"), nil},
		{"a value with colons", tagFilter("url", "https://x:8080/a"), []domain.Alarm{v}},
	} {
		got := e.adminListAll(ports.ListFilter{Scope: ports.OwnedBy(alice), Tags: c.f})
		wantIDs(t, c.what, got, c.want)
		for _, g := range got {
			if !domain.MatchesTags(g.Tags, c.f) {
				t.Errorf("%s: listed alarm %s carries %v", c.what, g.ID, g.Tags)
			}
		}
	}
}

// A tag page is as long as asked, and its cursor continues after it, in the list's order.
func testTagFilterPaging(t *testing.T, e *env) {
	var want []domain.Alarm
	for i := range 7 {
		want = append(want, e.tagged(alice, "p", map[string]string{"customer": "42", "plan": "pro"}))
		e.tagged(alice, "other", map[string]string{"customer": "42", "plan": "free"})
		if i%2 == 0 {
			e.tagged(bob, "bob's", map[string]string{"customer": "42", "plan": "pro"})
		}
	}
	for _, limit := range []int{1, 2, 3, 7, 100} {
		var got []domain.Alarm
		cursor := ""
		for range 20 {
			page, next := e.list(alice, ports.ListFilter{Tags: tagFilter("customer", "42", "plan", "pro"), Limit: limit, Cursor: cursor})
			if len(page) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(page))
			}
			got = append(got, page...)
			if next == "" {
				break
			}
			cursor = next
		}
		wantIDs(t, "pages", got, reversed(want))
	}
}

// The tag filter narrows the other filters (status, kind, label prefix, failed since).
func testTagFilterOtherFilters(t *testing.T, e *env) {
	tags := map[string]string{"customer": "42"}
	a := e.tagged(alice, "nightly report", tags)
	b := e.tagged(alice, "nightly backup", tags)
	e.mutate(alice, b.ID, cancelFn)
	c := e.tagged(alice, "weekly report", tags)
	e.tagged(alice, "nightly other", map[string]string{"customer": "7"})
	cs := cronSpec(alice, "0 9 * * *", "UTC")
	cs.Tags = tags
	cr := e.create(cs)
	spec := e.onceIn(alice, 0)
	spec.MaxFailures, spec.Tags = 1, tags
	f := e.create(spec)
	e.applyOK(e.fail(e.claimOnly("w1", time.Minute, f.ID), "receiver down"))

	in := func(f ports.ListFilter) ports.ListFilter {
		f.Scope, f.Tags = ports.OwnedBy(alice), tagFilter("customer", "42")
		return f
	}
	wantIDs(t, "active", e.adminListAll(in(ports.ListFilter{Status: domain.StatusActive})), []domain.Alarm{cr, c, a})
	wantIDs(t, "cancelled", e.adminListAll(in(ports.ListFilter{Status: domain.StatusCancelled})), []domain.Alarm{b})
	wantIDs(t, "label nightly", e.adminListAll(in(ports.ListFilter{LabelPrefix: "nightly"})), []domain.Alarm{b, a})
	wantIDs(t, "label and status", e.adminListAll(in(ports.ListFilter{LabelPrefix: "nightly", Status: domain.StatusActive})), []domain.Alarm{a})
	wantIDs(t, "kind cron", e.adminListAll(in(ports.ListFilter{Kind: domain.KindCron})), []domain.Alarm{cr})
	wantIDs(t, "failed since", e.adminListAll(in(ports.ListFilter{FailedSince: e.now().Add(-time.Minute)})), []domain.Alarm{f})
	wantIDs(t, "failed since, active", e.adminListAll(in(ports.ListFilter{FailedSince: e.now().Add(-time.Minute), Status: domain.StatusActive})), nil)
}

// A tag with a status few of its alarms have, their matches separated by more of the
// others than a page holds (and than a SQL store walks of a pair per page, 512): paged
// through, for an owner and across owners, at any page size, the matches come back
// exactly once each and in order. A page may be short, even empty, with a cursor.
func testTagFilterSparse(t *testing.T, e *env) {
	const gap = 1100
	build := func(owner string, in time.Duration) domain.Alarm {
		s := e.onceIn(owner, in)
		s.Tags = map[string]string{"customer": "7"}
		return e.build(s)
	}
	// Active ones, due in an hour; the gaps' are due, and fired below.
	var all, fired []domain.Alarm
	gapOf := func(n int) {
		for range n {
			a := build(alice, -time.Minute)
			all, fired = append(all, a), append(fired, a)
		}
	}
	m0 := build(alice, time.Hour)
	all = append(all, m0)
	gapOf(gap)
	m1, b0, m2 := build(alice, time.Hour), build(bob, time.Hour), build(alice, time.Hour)
	all = append(all, m1, b0, m2)
	gapOf(gap)
	m3 := build(alice, time.Hour)
	all = append(all, m3)
	gapOf(20)
	for chunk := range slices.Chunk(all, 250) {
		for _, r := range e.createBatch(chunk...) {
			if r.Err != nil {
				t.Fatalf("CreateBatch: %v", r.Err)
			}
		}
	}
	for {
		c := e.claim("w1", time.Minute, 500)
		if len(c.Alarms) == 0 {
			break
		}
		ts := make([]domain.Transition, len(c.Alarms))
		for i, a := range c.Alarms {
			ts[i] = e.fire(a)
		}
		e.applyOK(ts...)
	}

	for _, limit := range []int{1, 3, 100} {
		f := ports.ListFilter{Scope: ports.OwnedBy(alice), Tags: tagFilter("customer", "7"), Status: domain.StatusActive, Limit: limit}
		wantIDs(t, fmt.Sprintf("alice's active, limit %d", limit), e.adminListAll(f), []domain.Alarm{m3, m2, m1, m0})
		f.Scope = ports.AnyOwner
		wantIDs(t, fmt.Sprintf("every owner's active, limit %d", limit), e.adminListAll(f), []domain.Alarm{m3, m2, b0, m1, m0})
	}
	f := ports.ListFilter{Scope: ports.OwnedBy(alice), Tags: tagFilter("customer", "7"), Status: domain.StatusFired, Limit: ports.MaxListLimit}
	wantIDs(t, "alice's fired", e.adminListAll(f), reversed(fired))
}

// Pages fill wherever one in 16 of the first pair's alarms match (ListFilter.Tags): a
// second pair that one alarm in 8 of the first's carries gives full pages of 10, newest
// first, each going on where the last stopped, until the last.
func testTagFilterFills(t *testing.T, e *env) {
	var all, pro []domain.Alarm
	for i := range 400 {
		s := e.onceIn(alice, time.Hour)
		s.Tags = map[string]string{"customer": "7"}
		if i%8 == 0 {
			s.Tags["plan"] = "pro"
		}
		a := e.build(s)
		all = append(all, a)
		if i%8 == 0 {
			pro = append(pro, a)
		}
	}
	for chunk := range slices.Chunk(all, 250) {
		for _, r := range e.createBatch(chunk...) {
			if r.Err != nil {
				t.Fatalf("CreateBatch: %v", r.Err)
			}
		}
	}
	want := reversed(pro)
	f := ports.ListFilter{Scope: ports.OwnedBy(alice), Tags: append(tagFilter("customer", "7"), tagFilter("plan", "pro")...), Limit: 10}
	for i := 0; i < len(want); i += 10 {
		page, next := e.adminList(f)
		wantIDs(t, fmt.Sprintf("page %d", i/10+1), page, want[i:i+10])
		if next == "" && i+10 < len(want) {
			t.Fatalf("page %d: no cursor, %d alarms left", i/10+1, len(want)-i-10)
		}
		f.Cursor = next
	}
	if f.Cursor != "" {
		if page, _ := e.adminList(f); len(page) != 0 {
			t.Errorf("after the last page: %d alarms more", len(page))
		}
	}
}

// An owner's tag filter never sees another owner's alarms with the same pairs; the
// operator's sees every owner's, or one owner's.
func testTagFilterOwners(t *testing.T, e *env) {
	tags := map[string]string{"customer": "42"}
	a := e.tagged(alice, "a", tags)
	b := e.tagged(bob, "b", tags)
	a2 := e.tagged(alice, "a2", tags)
	f := tagFilter("customer", "42")
	wantIDs(t, "alice's", e.adminListAll(ports.ListFilter{Scope: ports.OwnedBy(alice), Tags: f}), []domain.Alarm{a2, a})
	wantIDs(t, "bob's", e.adminListAll(ports.ListFilter{Scope: ports.OwnedBy(bob), Tags: f}), []domain.Alarm{b})
	wantIDs(t, "nobody's", e.adminListAll(ports.ListFilter{Scope: ports.OwnedBy("carol"), Tags: f}), nil)
	wantIDs(t, "none", e.adminListAll(ports.ListFilter{Tags: f}), nil)
	wantIDs(t, "any owner", e.adminListAll(ports.ListFilter{Scope: ports.AnyOwner, Tags: f}), []domain.Alarm{a2, b, a})
	page, next := e.adminList(ports.ListFilter{Scope: ports.AnyOwner, Tags: f, Limit: 2})
	wantIDs(t, "any owner, first page", page, []domain.Alarm{a2, b})
	page, _ = e.adminList(ports.ListFilter{Scope: ports.AnyOwner, Tags: f, Limit: 2, Cursor: next})
	wantIDs(t, "any owner, second page", page, []domain.Alarm{a})
}

// recreate stores a again, with the same id and new tags: it fails, or shows the old
// tags, if a delete left any behind.
func (e *env) recreateWithTags(a domain.Alarm, tags map[string]string) {
	e.t.Helper()
	a.Tags = tags
	a.Status, a.UpdatedAt = domain.StatusActive, a.CreatedAt
	again := e.insert(a)
	e.wantTags("recreated", again.Tags, tags)
	e.wantTags("recreated: Get", e.get(a.Owner, a.ID).Tags, tags)
	got, _ := e.list(a.Owner, ports.ListFilter{Tags: tagFilter("customer", "42")})
	wantIDs(e.t, "recreated: the old pair", got, nil)
}

// Deleting an alarm deletes its tags with it.
func testTagsGoWithDelete(t *testing.T, e *env) {
	a := e.tagged(alice, "a", map[string]string{"customer": "42", "plan": "pro"})
	if d, err := e.store.DeleteAlarms(e.ctx, []string{a.ID}); err != nil || d.Alarms != 1 {
		t.Fatalf("DeleteAlarms: %+v, %v", d, err)
	}
	e.recreateWithTags(a, map[string]string{"customer": "43"})
}

// Retention deletes an expired alarm's tags with it.
func testTagsGoWithRetention(t *testing.T, e *env) {
	a := e.tagged(alice, "a", map[string]string{"customer": "42", "plan": "pro"})
	a = e.mutate(alice, a.ID, cancelFn)
	keep := e.tagged(alice, "kept", map[string]string{"customer": "42"})
	if d := e.deleteExpired(e.now().Add(time.Second), 10); d.Alarms != 1 {
		t.Fatalf("DeleteExpiredAlarms: %+v, want 1 alarm", d)
	}
	e.wantTags("the live alarm's", e.get(alice, keep.ID).Tags, keep.Tags)
	if _, err := e.store.DeleteAlarms(e.ctx, []string{keep.ID}); err != nil {
		t.Fatal(err)
	}
	e.recreateWithTags(a, map[string]string{"customer": "43"})
}

// CreateMany writes tags as CreateBatch does.
func testTagsBulkCreate(t *testing.T, e *env) {
	e.bulk() // skips the case on a store without it
	var as []domain.Alarm
	for i := range 5 {
		s := e.onceIn(alice, time.Hour)
		if i%2 == 0 {
			s.Tags = map[string]string{"customer": "42", "batch": "yes"}
		}
		as = append(as, e.build(s))
	}
	e.createMany(as)
	got := e.adminListAll(ports.ListFilter{Scope: ports.OwnedBy(alice), Tags: tagFilter("batch", "yes", "customer", "42")})
	wantIDs(t, "bulk-created", got, []domain.Alarm{as[4], as[2], as[0]})
	e.wantTags("bulk-created: Get", e.get(alice, as[0].ID).Tags, as[0].Tags)
}

// A debounced repeat that replaces the key's alarm keeps that alarm's tags (a replace
// moves the fire time and replaces payload, label and wake message only); one that
// creates the key's next alarm (the first is being delivered) gives it its own.
func testTagsReplace(t *testing.T, e *env) {
	s := e.replaceSpec("k", time.Hour, `1`)
	s.Tags = map[string]string{"customer": "42"}
	first := e.createOne(e.build(s)).Alarm
	e.wantTags("created", first.Tags, s.Tags)
	s = e.replaceSpec("k", 2*time.Hour, `2`)
	s.Tags = map[string]string{"customer": "99"}
	r := e.createOne(e.build(s))
	if !r.Replaced {
		t.Fatalf("repeat: %+v, want replaced", r)
	}
	e.wantTags("replaced", r.Alarm.Tags, first.Tags)
	e.wantTags("replaced: Get", e.get(alice, first.ID).Tags, first.Tags)

	s = e.replaceSpec("j", 0, `1`)
	s.Tags = map[string]string{"customer": "1"}
	due := e.createOne(e.build(s)).Alarm
	e.claimOnly("w1", time.Minute, due.ID)
	s = e.replaceSpec("j", time.Hour, `2`)
	s.Tags = map[string]string{"customer": "2"}
	next := e.build(s)
	if r := e.createOne(next); r.Replaced || r.Deduped || r.Alarm.ID != next.ID {
		t.Fatalf("repeat during the delivery: %+v, want the key's next alarm", r)
	}
	e.wantTags("the next alarm", e.get(alice, next.ID).Tags, s.Tags)
	got, _ := e.list(alice, ports.ListFilter{Tags: tagFilter("customer", "2")})
	wantIDs(t, "the next alarm by its tag", got, []domain.Alarm{next})
}
