package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// The suite injects a clock; on the database clock CountAlarms counts at the server's
// now and says which, and PutState stamps it.
func TestDatabaseClockCountsAndState(t *testing.T) {
	s, before := dbClockStore(t)
	ctx := context.Background()
	due := createOnce(t, s, before.Add(-time.Minute), before)
	createOnce(t, s, before.Add(time.Hour), before)

	c, err := s.CountAlarms(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutState(ctx, "dispatch", `{"paused":true}`); err != nil {
		t.Fatal(err)
	}
	st, ok, err := s.GetState(ctx, "dispatch")
	if err != nil || !ok {
		t.Fatalf("GetState = %+v, %t, %v", st, ok, err)
	}
	after, err := s.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Now.Before(before) || c.Now.After(after) {
		t.Errorf("counts taken at %s, not between %s and %s", c.Now, before, after)
	}
	if c.Due != 1 || !c.OldestDue.Equal(due.NextFireAt) || c.ByStatus["active"] != 2 {
		t.Errorf("counts = %+v, want 2 active, 1 due at %s", c, due.NextFireAt)
	}
	if st.UpdatedAt.Before(c.Now) || st.UpdatedAt.After(after) {
		t.Errorf("state stamped %s, not between %s and %s", st.UpdatedAt, c.Now, after)
	}
}

// DeleteAlarms refuses more than MaxDeleteIDs ids and deletes nothing then.
func TestDeleteAlarmsBound(t *testing.T) {
	s, now := dbClockStore(t)
	ctx := context.Background()
	a := createOnce(t, s, now.Add(time.Hour), now)
	ids := make([]string, ports.MaxDeleteIDs+1)
	for i := range ids {
		ids[i] = a.ID
	}
	if d, err := s.DeleteAlarms(ctx, ids); err == nil || d != (ports.Deleted{}) {
		t.Errorf("DeleteAlarms of %d ids = %+v, %v; want an error", len(ids), d, err)
	}
	if _, err := s.Get(ctx, ports.AnyOwner, a.ID); err != nil {
		t.Errorf("the alarm is gone after a refused delete: %v", err)
	}
	if d, err := s.DeleteAlarms(ctx, ids[:ports.MaxDeleteIDs]); err != nil || d.Alarms != 1 || d.Events != 0 {
		t.Errorf("DeleteAlarms of %d copies of one id = %+v, %v; want 1 alarm (no stored event: its created event is not stored)", ports.MaxDeleteIDs, d, err)
	}
}
