package domain

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestUpdate(t *testing.T) {
	created := utc("2025-06-01T08:00:00Z")
	now := utc("2025-06-01T08:30:00Z")
	cron := func() Alarm {
		a := series(t, "0 9 * * *", "UTC", Series{}, created, utc("2025-06-01T09:00:00Z"))
		return fxClaim(a, fxWorker, now) // a wake in flight
	}

	t.Run("label and payload keep the occurrence and the lease", func(t *testing.T) {
		a := cron()
		tr, changed, err := Update(a, Patch{Label: ptr("renamed"), Payload: ptr(json.RawMessage(`{"v":2}`))}, now)
		if err != nil || !changed {
			t.Fatalf("Update: %v %v", changed, err)
		}
		got := tr.ApplyTo(a)
		if got.Label != "renamed" || string(got.Payload) != `{"v":2}` || !got.ScheduledFor.Equal(a.ScheduledFor) || got.ClaimedBy != fxWorker {
			t.Errorf("after update: %+v", got)
		}
		if !tr.Fence.IsZero() || tr.Events[0].Type != EventUpdated || tr.Events[0].Message != "changed: label, payload" {
			t.Errorf("transition %+v", tr)
		}
	})
	t.Run("a new expression moves the series from now and releases the lease", func(t *testing.T) {
		a := cron()
		a.FailureCount = 2
		tr, _, err := Update(a, Patch{CronExpr: ptr("30 8 * * *"), Timezone: ptr("Europe/Paris")}, now)
		if err != nil {
			t.Fatal(err)
		}
		got := tr.ApplyTo(a)
		// 08:30 Paris is 06:30Z, already past today: tomorrow's.
		if want := utc("2025-06-02T06:30:00Z"); !got.ScheduledFor.Equal(want) || !got.NextFireAt.Equal(want) {
			t.Errorf("next occurrence %s due %s, want %s", got.ScheduledFor, got.NextFireAt, want)
		}
		if got.FailureCount != 0 || got.Claimed() || got.CronExpr != "30 8 * * *" || got.Timezone != "Europe/Paris" {
			t.Errorf("after update: %+v", got)
		}
	})
	t.Run("lowering max_fires to the fires made ends the series", func(t *testing.T) {
		a := cron()
		a.FireCount = 4
		tr, _, err := Update(a, Patch{MaxFires: ptr(3)}, now)
		if err != nil || tr.ApplyTo(a).Status != StatusFired {
			t.Errorf("status %s err %v, want fired", tr.Status, err)
		}
	})
	t.Run("nothing different changes nothing", func(t *testing.T) {
		a := cron()
		if _, changed, err := Update(a, Patch{Label: ptr(a.Label), CronExpr: ptr(a.CronExpr)}, now); changed || err != nil {
			t.Errorf("changed %v err %v", changed, err)
		}
	})
	t.Run("refusals name the field", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			a     Alarm
			p     Patch
			field string
		}{
			{"bad zone", cron(), Patch{Timezone: ptr("Mars/Olympus")}, "timezone"},
			{"bad expression", cron(), Patch{CronExpr: ptr("61 * * * *")}, "cron_expr"},
			{"bad payload", cron(), Patch{Payload: ptr(json.RawMessage(`{`))}, "payload"},
			{"max_failures 0", cron(), Patch{MaxFailures: ptr(0)}, "max_failures"},
			{"catch-up limit without catch-up", cron(), Patch{CatchUpLimit: ptr(5)}, "catch_up_limit"},
			{"a schedule on a once alarm", fxOnce(t), Patch{CronExpr: ptr("@daily")}, "cron_expr"},
			{"an end before now", cron(), Patch{EndAt: ptr(now.Add(-time.Hour))}, "end_at"},
		} {
			if _, _, err := Update(tc.a, tc.p, now); fieldOf(err) != tc.field {
				t.Errorf("%s: err %v, want a refusal naming %s", tc.name, err, tc.field)
			}
		}
	})
	t.Run("a finished alarm cannot be updated", func(t *testing.T) {
		a := cron()
		a.Status = StatusCancelled
		if _, _, err := Update(a, Patch{Label: ptr("x")}, now); !errors.Is(err, ErrInvalidState) {
			t.Errorf("err %v, want ErrInvalidState", err)
		}
	})
}
