package e2e

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestTwoNodesDeliverEveryAlarmExactlyOnce: two serve processes on one database, 500
// alarms falling due within 2 s, created through both nodes; every alarm is delivered
// exactly once and ends fired.
func TestTwoNodesDeliverEveryAlarmExactlyOnce(t *testing.T) {
	for _, kind := range []storeKind{onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			twoNodesExactlyOnce(t, kind, 500)
		})
	}
}

func twoNodesExactlyOnce(t *testing.T, kind storeKind, alarms int) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	token := CreateToken(t, store, "e2e")
	cfg := NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret, Extra: []string{"--batch", "50"}}
	nodes := []*Node{StartNode(t, "a", cfg), StartNode(t, "b", cfg)}
	c := NewClient(t, token)

	// Due times spread over [now+2s, now+4s): all are created before the first falls due.
	start := time.Now().Add(2 * time.Second)
	ids := make([]string, alarms)
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				at := start.Add(time.Duration(i) * 2 * time.Second / time.Duration(alarms)).UTC()
				body := fmt.Sprintf(`{"kind": "once", "fire_at": %q, "label": "n%d"}`, at.Format(time.RFC3339Nano), i)
				ids[i] = c.Create(nodes[i%2], body).ID
			}
		}()
	}
	for i := range alarms {
		work <- i
	}
	close(work)
	wg.Wait()
	if time.Now().After(start) {
		t.Logf("creating %d alarms took longer than 2s; some were due before all were created", alarms)
	}

	deadline := time.Now().Add(20 * time.Second)
	for len(recv.Deliveries()) < alarms && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // a double delivery would arrive now

	count := map[string]int{}
	for _, d := range recv.Deliveries() {
		count[d.AlarmID]++
		if !d.SignatureOK {
			t.Errorf("delivery of %s did not verify", d.AlarmID)
		}
	}
	missing, doubled := 0, 0
	for _, id := range ids {
		switch n := count[id]; {
		case n == 0:
			missing++
		case n > 1:
			doubled++
			t.Errorf("alarm %s delivered %d times", id, n)
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d alarms never delivered", missing, alarms)
	}
	for _, id := range ids[:20] {
		if a := waitStatus(c, nodes[0], id, "fired", 3*time.Second); a.Status != "fired" {
			t.Errorf("alarm %s status %q, want fired", id, a.Status)
		}
	}
	t.Logf("%s: %d alarms, %d deliveries, %d missing, %d doubled", kind, alarms, len(recv.Deliveries()), missing, doubled)
}
