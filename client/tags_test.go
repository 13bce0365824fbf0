package client_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
)

// Tags go out on create and update, come back on every alarm, filter both lists, and
// BulkAlarms acts on the alarms they select.
func TestTagsAndBulkAlarms(t *testing.T) {
	t.Parallel()
	s, ctx := newRealServer(t), t.Context()
	tags := map[string]string{"customer": "42", "plan": "pro"}
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "@daily", Tags: tags})
	if err != nil || !maps.Equal(a.Tags, tags) {
		t.Fatalf("CreateAlarm: %v, tags %v", err, a.Tags)
	}
	b, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Minute, Tags: map[string]string{"customer": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Minute, Tags: map[string]string{"BAD": "1"}}); !client.IsInvalid(err) {
		t.Errorf("a bad key: %v", err)
	}

	page, err := s.alice.ListAlarms(ctx, client.ListAlarms{Tags: map[string]string{"customer": "42", "plan": "pro"}})
	if err != nil || len(page.Alarms) != 1 || page.Alarms[0].ID != a.ID {
		t.Errorf("ListAlarms by two tags: %+v, %v", page, err)
	}
	adminPage, err := s.ops.Admin().Alarms(ctx, client.AdminListAlarms{Tags: map[string]string{"customer": "42"}})
	if err != nil || len(adminPage.Alarms) != 2 || !maps.Equal(adminPage.Alarms[1].Tags, tags) {
		t.Errorf("admin ListAlarms by tag: %+v, %v", adminPage, err)
	}

	next := map[string]string{"customer": "43"}
	u, err := s.alice.UpdateAlarm(ctx, a.ID, client.UpdateAlarm{Tags: &next})
	if err != nil || !maps.Equal(u.Tags, next) {
		t.Errorf("UpdateAlarm: %v, tags %v", err, u.Tags)
	}
	u, err = s.alice.UpdateAlarm(ctx, a.ID, client.UpdateAlarm{Tags: &map[string]string{}})
	if err != nil || len(u.Tags) != 0 {
		t.Errorf("UpdateAlarm clearing: %v, tags %v", err, u.Tags)
	}

	res, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Tags: map[string]string{"customer": "42"}, Action: domain.OwnerBulkCancel, DryRun: true})
	if err != nil || res != (client.BulkResult{Matched: 1, Changed: 1, DryRun: true}) {
		t.Errorf("dry run: %+v, %v", res, err)
	}
	res, err = s.alice.BulkAlarms(ctx, client.BulkAlarms{Tags: map[string]string{"customer": "42"}, Action: domain.OwnerBulkCancel})
	if err != nil || res != (client.BulkResult{Matched: 1, Changed: 1}) {
		t.Errorf("cancel: %+v, %v", res, err)
	}
	if got, err := s.alice.GetAlarm(ctx, b.ID); err != nil || got.Status != domain.StatusCancelled {
		t.Errorf("after the bulk cancel: %s, %v", got.Status, err)
	}
	if _, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Action: domain.OwnerBulkPause}); !client.IsInvalid(err) {
		t.Errorf("an empty filter: %v", err)
	}
	if ok, err := s.store.AcquireLease(ctx, "bulk:alice", "elsewhere", time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Status: domain.StatusActive, Action: domain.OwnerBulkPause}); !client.IsConflict(err) {
		t.Errorf("while another bulk call runs: %v", err)
	}
}

// A tag page with a status few of the tag's alarms have may come back short, even
// empty, with a cursor (the server stops its walk of the tag after a bounded number of
// alarms): AllAlarms and the bulk actions go on past it to the last page.
func TestSparseTagPagesAreWalkedThrough(t *testing.T) {
	t.Parallel()
	s, ctx := newRealServer(t), t.Context()
	tags := map[string]string{"customer": "7"}
	series := func() client.Alarm {
		a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{CronExpr: "@daily", Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	m0 := series()
	// 1,100 of the tag's alarms cancelled: more than the server walks for two pages.
	gap := make([]client.CreateAlarm, 1100)
	for i := range gap {
		gap[i] = client.CreateAlarm{Delay: time.Hour, Label: "gap", Tags: tags}
	}
	for chunk := range slices.Chunk(gap, 550) {
		if _, err := s.alice.CreateAlarms(ctx, chunk); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Tags: tags, LabelPrefix: "gap", Action: domain.OwnerBulkCancel}); err != nil || res.Changed != len(gap) {
		t.Fatalf("cancelling the gap: %+v, %v", res, err)
	}
	m1 := series()

	active := client.ListAlarms{Status: domain.StatusActive, Tags: tags}
	page, err := s.alice.ListAlarms(ctx, active)
	if err != nil || len(page.Alarms) != 1 || page.Alarms[0].ID != m1.ID || page.NextCursor == "" {
		t.Fatalf("first page: %d alarms, cursor %q, %v; want m1 alone and a cursor", len(page.Alarms), page.NextCursor, err)
	}
	var got []string
	for a, err := range s.alice.AllAlarms(ctx, active) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.ID)
	}
	if !slices.Equal(got, []string{m1.ID, m0.ID}) {
		t.Errorf("AllAlarms: %v, want m1 then m0", got)
	}
	if res, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Tags: tags, Status: domain.StatusActive, Action: domain.OwnerBulkPause, DryRun: true}); err != nil ||
		res != (client.BulkResult{Matched: 2, Changed: 2, DryRun: true}) {
		t.Errorf("owner bulk over the gap: %+v, %v; want both matched", res, err)
	}
	if res, err := s.ops.Admin().BulkCancel(ctx, client.BulkFilter{Tags: tags, Status: domain.StatusActive, Limit: 1, DryRun: true}); err != nil ||
		res.Matched != 1 || !res.More {
		t.Errorf("admin bulk of one over the gap: %+v, %v; want one matched, and more", res, err)
	}
}

// The server goes through a bounded number of alarms a bulk call: BulkAlarms calls it
// from each cursor in turn and sums the answers, every alarm changed once; one page
// says more, with the cursor to go on from.
func TestBulkAlarmsGoesOnByCursor(t *testing.T) {
	t.Parallel()
	s, ctx := newRealServerWith(t, testserver.Options{MaxBulkPerCall: 3}), t.Context()
	tags := map[string]string{"campaign": "x"}
	for range 10 {
		if _, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour, Tags: tags}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.alice.BulkAlarmsPage(ctx, client.BulkAlarms{Tags: tags, Action: domain.OwnerBulkPause, DryRun: true})
	if err != nil || page.Matched != 3 || !page.More || page.NextCursor == "" {
		t.Errorf("one page: %+v, %v; want 3 matched and a cursor", page, err)
	}
	rest, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Tags: tags, Action: domain.OwnerBulkCancel, DryRun: true, Cursor: page.NextCursor})
	if err != nil || rest.Matched != 7 || rest.More || rest.NextCursor != "" {
		t.Errorf("a dry run from the first page's cursor: %+v, %v; want the other 7", rest, err)
	}
	calls := 0
	res, err := s.alice.BulkAlarms(ctx, client.BulkAlarms{Tags: tags, Action: domain.OwnerBulkCancel,
		Progress: func(client.BulkResult) { calls++ }})
	if err != nil || res != (client.BulkResult{Matched: 10, Changed: 10}) || calls < 4 {
		t.Errorf("cancel: %+v in %d calls, %v; want 10 changed in 4 calls or more", res, calls, err)
	}
	all, err := s.alice.ListAlarms(ctx, client.ListAlarms{Status: domain.StatusCancelled, Tags: tags})
	if err != nil || len(all.Alarms) != 10 {
		t.Errorf("cancelled after the bulk: %d, %v; want 10", len(all.Alarms), err)
	}
}
