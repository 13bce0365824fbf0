//go:build e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFaultDatabaseRestart is scenario 2: two nodes deliver a steady load while the
// database server is stopped for a few seconds and started again. The nodes must log
// the failures, reconnect by themselves (no restart of chronos) and lose nothing.
//
// It stops a server other tests share, so it must never overlap another test: it is a
// top-level test without t.Parallel, its subtests run one after the other, and the
// parallel subtests of other top-level tests only run while their own parent runs.
// `make test-e2e` runs this package alone; see RestartableServer for the opt-in.
func TestFaultDatabaseRestart(t *testing.T) {
	for _, kind := range []storeKind{onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) { runDatabaseRestart(t, kind) })
	}
}

func runDatabaseRestart(t *testing.T, kind storeKind) {
	server := RestartableServer(t, kind)
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	recv.Think(50 * time.Millisecond)
	token := CreateToken(t, store, "e2e")
	nodes := startNodes(t, 2, store, recv, faultFlags()...)
	c := NewClient(t, token)

	const window = 15 * time.Second
	start := time.Now().Add(2 * time.Second)
	created := CreateAll(t, c, nodes, MixedSpecs(800, 40, start, window, 2*time.Second))

	time.Sleep(time.Until(start.Add(4 * time.Second)))
	outage := server.Outage(t, 4*time.Second)

	for _, n := range nodes {
		if !n.Running() {
			t.Fatalf("node %s exited while %s was down", n.Name, server.Name)
		}
	}
	in := OpenInspector(t, kind, store, "e2e")
	WaitOnceAlarmsFinished(t, in, 90*time.Second)
	time.Sleep(time.Until(outage.To.Add(faultLease + faultGrace)))
	fig := Figures{Scenario: "database restart", Store: string(kind)}
	fig.Stuck = CountStuck(t, in, faultLease, faultGrace)
	for _, n := range nodes {
		if status := get(t, "http://"+n.Addr+"/readyz"); status != http.StatusOK {
			t.Errorf("node %s /readyz answers %d after %s came back, want 200", n.Name, status, server.Name)
		}
	}
	faults := stopAll(t, nodes)
	faults.Outages = []Window{outage}
	faults.Slack = faultSlack
	for _, n := range nodes {
		if logs := n.Logs(); !strings.Contains(logs, "claim failed; retrying") {
			t.Errorf("node %s did not log its failing claims while %s was down", n.Name, server.Name)
		}
	}

	final, events := readFinal(in, created)
	Verify(t, fig, final, events, recv.Deliveries(), faults, false)
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
