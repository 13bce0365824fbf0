//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// TestFaultReceiverOutage is scenario 3: the receiver answers 503 for 10 s while alarms
// fall due. Every at-least-once alarm is delivered once it is back, within the backoff
// cap (plus a tick and a loaded machine's latency), and each alarm's history shows the
// failed attempts; every at-most-once alarm due in the outage is failed, sent once and
// never retried.
func TestFaultReceiverOutage(t *testing.T) {
	for _, kind := range []storeKind{onSQLite, onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			runReceiverOutage(t, kind)
		})
	}
}

const (
	outageBackoffCap = 2 * time.Second
	outageLength     = 10 * time.Second
	// outageBoundSlack: after the receiver recovers, a retry is due within the cap; the
	// dispatcher may sleep a tick and the machine is shared.
	outageBoundSlack = 2 * time.Second
)

func runReceiverOutage(t *testing.T, kind storeKind) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "e2e")
	n := 2
	if kind == onSQLite {
		n = 1
	}
	nodes := startNodes(t, n, store, recv, faultFlags(
		"--backoff-base", "500ms", "--backoff-cap", outageBackoffCap.String(), "--max-failures", "30")...)
	c := NewClient(t, token)

	recv.Fail()
	began := time.Now()
	start := began.Add(time.Second)
	specs := MixedSpecs(240, 12, start, 3*time.Second, 2*time.Second)
	created := CreateAll(t, c, nodes, specs)
	time.Sleep(time.Until(began.Add(outageLength)))
	recv.Recover()
	recovered := time.Now()
	t.Logf("receiver answered 503 for %s", recovered.Sub(began).Round(time.Millisecond))

	in := OpenInspector(t, kind, store, "e2e")
	WaitOnceAlarmsFinished(t, in, 30*time.Second)
	time.Sleep(outageBackoffCap + faultGrace) // the cron series' retries come back too
	fig := Figures{Scenario: "receiver outage", Store: string(kind)}
	fig.Stuck = CountStuck(t, in, faultLease, faultGrace)

	// Read the histories through the API while the nodes still serve it.
	bound := recovered.Add(outageBackoffCap + outageBoundSlack)
	var late, withoutFailures int
	for i, a := range created {
		if a.Kind != "once" {
			continue
		}
		evs := c.Events(nodes[i%len(nodes)], a.ID)
		switch a.Delivery {
		case atLeastOnce:
			acks := recv.Acked(a.ID)
			if len(acks) > 0 && acks[0].Arrived.After(bound) {
				late++
				t.Errorf("alarm %s delivered %s after the receiver recovered, want within %s",
					a.ID, acks[0].Arrived.Sub(recovered).Round(time.Millisecond), bound.Sub(recovered))
			}
			if !hasEvent(evs, string(domain.EventRetryScheduled), "503") || !hasEvent(evs, string(domain.EventFired), "") {
				withoutFailures++
				t.Errorf("alarm %s history %v: want retry_scheduled events naming the 503, then fired", a.ID, eventTypes(evs))
			}
		case atMostOnce:
			if !hasEvent(evs, string(domain.EventAttemptFailed), "503") {
				withoutFailures++
				t.Errorf("at-most-once alarm %s history %v: want attempt_failed naming the 503", a.ID, eventTypes(evs))
			}
			if got := c.Get(nodes[0], a.ID); got.Status != string(domain.StatusFailed) {
				t.Errorf("at-most-once alarm %s is %s after a refused delivery, want failed", a.ID, got.Status)
			}
		}
	}
	refused := 0
	for _, d := range recv.Deliveries() {
		if d.Status != http.StatusOK {
			refused++
		}
	}
	t.Logf("%d refused wakes; at-least-once alarms delivered within %s of recovery except %d; %d histories without their failures",
		refused, bound.Sub(recovered), late, withoutFailures)

	faults := stopAll(t, nodes)
	final, events := readFinal(in, created)
	Verify(t, fig, final, events, recv.Deliveries(), faults, true)
}

func hasEvent(evs []Event, typ, msgPart string) bool {
	for _, e := range evs {
		if e.Type == typ && strings.Contains(e.Message, msgPart) {
			return true
		}
	}
	return false
}

func eventTypes(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
