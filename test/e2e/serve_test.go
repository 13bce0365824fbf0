package e2e

import (
	"fmt"
	"testing"
	"time"
)

const e2eSecret = "e2e-secret-of-24-bytes-or-more"

// TestServeDeliversAndSurvivesSIGKILL is the serve issue's acceptance test: a 1-second
// alarm arrives signed, byte-for-byte, within 1.5s of its due time; a 3-second alarm
// pending while the process is SIGKILLed arrives after the restart.
func TestServeDeliversAndSurvivesSIGKILL(t *testing.T) {
	for _, kind := range serveStores(t) {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			serveDeliversAndSurvivesSIGKILL(t, kind)
		})
	}
}

func serveDeliversAndSurvivesSIGKILL(t *testing.T, kind storeKind) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "e2e")
	node := StartNode(t, "node", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret})
	c := NewClient(t, token)

	payload := `{"task": "tea",  "steps": [1, 2, 3], "nested": {"z": null, "a": "ü"}}`
	first := c.Create(node, fmt.Sprintf(`{"kind": "once", "delay_seconds": 1, "label": "first", "payload": %s}`, payload))
	d := waitAcked(t, recv, first.ID, 5*time.Second)
	t.Logf("1-second alarm: arrived %s after its due time", d.Arrived.Sub(first.FireAt))
	if lag := d.Arrived.Sub(first.FireAt); lag > 1500*time.Millisecond || lag < -50*time.Millisecond {
		t.Errorf("1-second alarm arrived %s after its due time; want within 1.5s", lag)
	}
	if !d.SignatureOK {
		t.Errorf("wake signature or Idempotency-Key did not verify")
	}
	if string(d.Payload) != payload {
		t.Errorf("payload arrived as %s, want byte-for-byte %s", d.Payload, payload)
	}
	// The outcome is written after the receiver answers, so give it a moment.
	if got := waitStatus(c, node, first.ID, "fired", 3*time.Second); got.Status != "fired" {
		t.Errorf("first alarm status %q, want fired", got.Status)
	}

	second := c.Create(node, `{"kind": "once", "delay_seconds": 3, "label": "survivor"}`)
	node.Kill()
	node.Start()
	d = waitAcked(t, recv, second.ID, 10*time.Second)
	t.Logf("3-second alarm across SIGKILL and restart: arrived %s after its due time", d.Arrived.Sub(second.FireAt))
	if lag := d.Arrived.Sub(second.FireAt); lag > 1500*time.Millisecond || lag < -50*time.Millisecond {
		t.Errorf("after SIGKILL and restart, the 3-second alarm arrived %s after its due time; want within 1.5s", lag)
	}
	if !d.SignatureOK {
		t.Errorf("wake after restart did not verify")
	}
	if n := len(recv.Acked(second.ID)); n != 1 {
		t.Errorf("survivor delivered %d times, want 1", n)
	}
}

// waitAcked waits for the first acknowledged delivery of an alarm.
func waitAcked(t *testing.T, r *Receiver, alarmID string, timeout time.Duration) Delivery {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if got := r.Acked(alarmID); len(got) > 0 {
			return got[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("alarm %s not delivered within %s", alarmID, timeout)
	return Delivery{}
}

// waitStatus polls an alarm until it has status want or timeout passes, and returns it.
func waitStatus(c *Client, n *Node, id, want string, timeout time.Duration) Alarm {
	deadline := time.Now().Add(timeout)
	for {
		a := c.Get(n, id)
		if a.Status == want || time.Now().After(deadline) {
			return a
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// serveStores lists the stores the serve test runs on.
func serveStores(t *testing.T) []storeKind {
	return []storeKind{onSQLite, onPostgres, onMySQL}
}
