//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Window is a span of time during which something was wrong (the database was down).
type Window struct{ From, To time.Time }

// Faults is what a scenario did to the system, so the verdict can explain what it
// finds: a duplicate or an unknown outcome is acceptable only when a fault caused it.
type Faults struct {
	Kills    []Kill
	Restarts int
	Outages  []Window
	// Slack is how long after a wake arrived its outcome may still be unwritten: the
	// rest of its batch's deliveries (up to the delivery timeout) and the apply.
	Slack time.Duration
}

// killedBy reports whether a SIGKILL of node hit in [from, to].
func (f Faults) killedBy(node string, from, to time.Time) bool {
	for _, k := range f.Kills {
		if k.Node == node && !k.At.Before(from) && !k.At.After(to) {
			return true
		}
	}
	return false
}

func (f Faults) killedPID(pid int) bool {
	for _, k := range f.Kills {
		if k.PID == pid {
			return true
		}
	}
	return false
}

func (f Faults) duringOutage(at time.Time, before, after time.Duration) bool {
	for _, w := range f.Outages {
		if !at.Before(w.From.Add(-before)) && !at.After(w.To.Add(after)) {
			return true
		}
	}
	return false
}

// Figures are a scenario's numbers; docs/reliability.md tabulates them.
type Figures struct {
	Scenario, Store string
	Alarms          int // alarms created
	Occurrences     int // occurrences reached: distinct "fired" events
	Deliveries      int // acknowledged wakes the receiver got, duplicates included
	Refused         int // wakes the receiver refused on purpose (503)
	Kills, Restarts int // SIGKILLs and node restarts
	Outages         int // database restarts, or network fault phases
	// LostAtLeastOnce: at-least-once occurrences never acknowledged. Must be 0.
	LostAtLeastOnce int
	// DupAtMostOnce: at-most-once occurrences sent more than once. Must be 0.
	DupAtMostOnce int
	// DupAtLeastOnce: at-least-once occurrences acknowledged more than once; each must be
	// explained by a kill (or outage) between its first delivery and its record.
	DupAtLeastOnce, DupExplained int
	// UnknownAtMostOnce: at-most-once occurrences dispatched whose outcome was never
	// recorded (the node died between advance and record); Undelivered of them never
	// reached the receiver. Each must be explained by a fault.
	UnknownAtMostOnce, UnknownUndelivered int
	// FailedAtMostOnce: at-most-once occurrences whose failure was recorded (not retried).
	FailedAtMostOnce int
	// Stuck: active alarms overdue by more than a lease once the faults stopped. Must be 0.
	Stuck int
}

func (f Figures) String() string {
	return fmt.Sprintf("scenario=%s store=%s alarms=%d occurrences=%d delivered=%d refused=%d kills=%d restarts=%d outages=%d "+
		"lost=%d amo_dup=%d alo_dup=%d (explained %d) amo_unknown=%d (undelivered %d) amo_failed=%d stuck=%d",
		f.Scenario, f.Store, f.Alarms, f.Occurrences, f.Deliveries, f.Refused, f.Kills, f.Restarts, f.Outages,
		f.LostAtLeastOnce, f.DupAtMostOnce, f.DupAtLeastOnce, f.DupExplained, f.UnknownAtMostOnce, f.UnknownUndelivered,
		f.FailedAtMostOnce, f.Stuck)
}

// Verdict collects failures, at most a few printed per kind so a broken run stays readable.
type verdict struct {
	t      *testing.T
	counts map[string]int
}

func (v *verdict) errorf(kind, format string, args ...any) {
	v.t.Helper()
	v.counts[kind]++
	if v.counts[kind] <= 5 {
		v.t.Errorf(kind+": "+format, args...)
	}
}

// Verify checks the promises against what the store and the receiver saw, with every
// node stopped (nothing in flight), and returns the figures. alarms is the final state
// of every alarm the scenario created, events their histories.
//
//   - at-least-once: every occurrence the series reached ("fired") was acknowledged, a
//     once alarm ends fired with its lease released, no acknowledged occurrence is
//     missing from the history, and every duplicate is explained by a fault.
//   - at-most-once: no occurrence is sent twice or sent without a committed advance; an
//     occurrence whose outcome was never recorded is explained by a fault, and a once
//     alarm in that state still carries the dead worker's lease: that is its record.
//   - nothing was skipped or failed unless the scenario made the receiver fail.
func Verify(t *testing.T, fig Figures, alarms []domain.Alarm, events map[string][]domain.Event, got []Delivery, faults Faults, receiverFailed bool) Figures {
	t.Helper()
	v := &verdict{t: t, counts: map[string]int{}}
	fig.Alarms = len(alarms)
	fig.Kills = len(faults.Kills)
	fig.Restarts = faults.Restarts
	fig.Outages = len(faults.Outages)

	byKey := map[string][]Delivery{}
	sort.SliceStable(got, func(i, j int) bool { return got[i].Arrived.Before(got[j].Arrived) })
	for _, d := range got {
		byKey[d.OccurrenceKey] = append(byKey[d.OccurrenceKey], d)
		if d.Status == http.StatusOK {
			fig.Deliveries++
		} else {
			fig.Refused++
		}
		if !d.SignatureOK {
			v.errorf("bad signature", "wake %s did not verify", d.OccurrenceKey)
		}
	}
	keysOf := map[string][]string{} // alarm id -> delivered occurrence keys
	for k, ds := range byKey {
		keysOf[ds[0].AlarmID] = append(keysOf[ds[0].AlarmID], k)
	}

	for _, a := range alarms {
		h := readHistory(a, events[a.ID])
		fig.Occurrences += len(h.fired)
		if !receiverFailed && (h.skipped+h.failed+h.retries > 0) {
			v.errorf("unexpected failure", "alarm %s (%s %s) has %d retry, %d skipped, %d failed events though the receiver never failed",
				a.ID, a.Kind, a.Delivery, h.retries, h.skipped, h.failed)
		}
		for _, k := range keysOf[a.ID] {
			if _, ok := h.fired[k]; !ok && acked(byKey[k]) > 0 && a.Delivery == domain.AtLeastOnce {
				v.errorf("unrecorded delivery", "occurrence %s (%s) was acknowledged but the alarm's history never fired it", k, a.Delivery)
			}
		}
		switch a.Delivery {
		case domain.AtLeastOnce:
			verifyAtLeastOnce(v, &fig, a, h, byKey, faults)
		case domain.AtMostOnce:
			verifyAtMostOnce(v, &fig, a, h, keysOf[a.ID], byKey, faults)
		}
	}
	if fig.Stuck > 0 {
		v.errorf("stuck", "%d active alarms were overdue by more than a lease after the faults stopped", fig.Stuck)
	}
	t.Logf("figures: %s", fig)
	return fig
}

func verifyAtLeastOnce(v *verdict, fig *Figures, a domain.Alarm, h history, byKey map[string][]Delivery, faults Faults) {
	v.t.Helper()
	for k := range h.fired {
		ds := ackedOnly(byKey[k])
		switch {
		case len(ds) == 0:
			fig.LostAtLeastOnce++
			v.errorf("lost", "at-least-once occurrence %s is in the history as fired but was never acknowledged", k)
		case len(ds) > 1:
			fig.DupAtLeastOnce++
			first := ds[0]
			if faults.killedBy(first.Via, first.Arrived.Add(-50*time.Millisecond), first.Arrived.Add(faults.Slack)) ||
				faults.duringOutage(first.Arrived, faults.Slack, 0) {
				fig.DupExplained++
			} else {
				v.errorf("unexplained duplicate", "at-least-once occurrence %s acknowledged %d times; first via %s at %s with no kill of that node within %s after it and no database outage",
					k, len(ds), first.Via, first.Arrived.Format(time.RFC3339Nano), faults.Slack)
			}
		}
	}
	if a.Kind == domain.KindOnce {
		if a.Status != domain.StatusFired {
			v.errorf("not fired", "at-least-once once alarm %s ended %s (last_error %q), want fired", a.ID, a.Status, a.LastError)
		}
		if a.Claimed() {
			v.errorf("lease left", "at-least-once alarm %s ended %s still leased by %s", a.ID, a.Status, a.ClaimedBy)
		}
	}
}

func verifyAtMostOnce(v *verdict, fig *Figures, a domain.Alarm, h history, keys []string, byKey map[string][]Delivery, faults Faults) {
	v.t.Helper()
	for k, ev := range h.fired {
		sent := byKey[k]
		if len(sent) > 1 {
			fig.DupAtMostOnce++
			v.errorf("at-most-once duplicate", "at-most-once occurrence %s was sent %d times", k, len(sent))
		}
		switch {
		case h.delivered[k]:
			if acked(sent) != 1 {
				v.errorf("false record", "at-most-once occurrence %s is recorded delivered but the receiver acknowledged it %d times", k, acked(sent))
			}
		case h.failedAttempt[k]:
			fig.FailedAtMostOnce++
		default:
			fig.UnknownAtMostOnce++
			if len(sent) == 0 {
				fig.UnknownUndelivered++
			}
			if !faults.killedPID(workerPID(ev.Worker)) && !faults.duringOutage(ev.At, faults.Slack, faults.Slack) {
				v.errorf("unexplained unknown outcome", "at-most-once occurrence %s was dispatched by %s at %s but its outcome was never recorded, and that worker was not killed nor the database down",
					k, ev.Worker, ev.At.Format(time.RFC3339Nano))
			}
			// A once alarm keeps the dead worker's lease and the advance's in-doubt
			// note: the row's honest "outcome unknown".
			if a.Kind == domain.KindOnce && a.ClaimedBy != ev.Worker {
				v.errorf("unknown outcome not on the row", "at-most-once alarm %s: outcome of %s unknown, but the row is leased by %q, want the dispatching worker %q",
					a.ID, k, a.ClaimedBy, ev.Worker)
			}
			if a.Kind == domain.KindOnce && !strings.HasPrefix(a.LastError, domain.InDoubtPrefix) {
				v.errorf("unknown outcome not on the row", "at-most-once alarm %s: outcome of %s unknown, but last_error is %q, want the in-doubt note",
					a.ID, k, a.LastError)
			}
		}
	}
	// A wake sent for an occurrence the history never advanced past would break the
	// advance-before-send rule.
	for _, k := range keys {
		if _, ok := h.fired[k]; !ok {
			v.errorf("sent before advance", "at-most-once occurrence %s was sent but never advanced", k)
		}
	}
	if a.Kind == domain.KindOnce && a.Status != domain.StatusFired && a.Status != domain.StatusFailed {
		v.errorf("not finished", "at-most-once once alarm %s ended %s, want fired or failed", a.ID, a.Status)
	}
}

// history is an alarm's events, by occurrence key.
type history struct {
	fired                            map[string]domain.Event // the "fired" event of each occurrence reached
	delivered, failedAttempt         map[string]bool         // at-most-once records
	retries, skipped, failed, events int
}

func readHistory(a domain.Alarm, evs []domain.Event) history {
	h := history{fired: map[string]domain.Event{}, delivered: map[string]bool{}, failedAttempt: map[string]bool{}, events: len(evs)}
	for _, e := range evs {
		k := domain.OccurrenceKey(a.ID, e.ScheduledFor)
		switch e.Type {
		case domain.EventFired:
			if _, dup := h.fired[k]; !dup {
				h.fired[k] = e
			}
		case domain.EventAttemptDelivered:
			h.delivered[k] = true
		case domain.EventAttemptFailed:
			h.failedAttempt[k] = true
		case domain.EventRetryScheduled:
			h.retries++
		case domain.EventSkipped:
			h.skipped++
		case domain.EventFailed:
			h.failed++
		}
	}
	return h
}

func acked(ds []Delivery) int { return len(ackedOnly(ds)) }

func ackedOnly(ds []Delivery) []Delivery {
	var out []Delivery
	for _, d := range ds {
		if d.Status == http.StatusOK {
			out = append(out, d)
		}
	}
	return out
}

// CountStuck counts active alarms overdue by more than lease+grace: a lease that
// should have expired and been claimed again, or a due alarm nobody claims. Call it
// while the nodes run, at least lease+grace after the last fault.
func CountStuck(t *testing.T, in *Inspector, lease, grace time.Duration) int {
	t.Helper()
	now := in.Now()
	stuck := 0
	for _, a := range in.Alarms(domain.StatusActive) {
		if now.Sub(a.NextFireAt) > lease+grace {
			stuck++
			if stuck <= 5 {
				t.Logf("stuck: alarm %s (%s %s) due %s ago, leased by %q since %s", a.ID, a.Kind, a.Delivery,
					now.Sub(a.NextFireAt).Round(time.Millisecond), a.ClaimedBy, a.ClaimedAt.Format(time.RFC3339Nano))
			}
		}
	}
	return stuck
}

// WaitOnceAlarmsFinished waits until no once alarm is active (every one fired or
// failed), or fails the test after timeout.
func WaitOnceAlarmsFinished(t *testing.T, in *Inspector, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := 0
		for _, a := range in.Alarms(domain.StatusActive) {
			if a.Kind == domain.KindOnce {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d once alarms still active %s after the load", left, timeout)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
