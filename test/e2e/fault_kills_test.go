//go:build e2e

package e2e

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// The fault scenarios run nodes with a short lease so a killed node's alarms come back
// within seconds; the lease still exceeds the delivery timeout, as serve requires.
const (
	faultLease           = 5 * time.Second
	faultDeliveryTimeout = 2 * time.Second
	// faultGrace is how much later than its lease an alarm may be claimed again on a
	// busy two-core machine (tick, claim and apply latency) before it counts as stuck.
	faultGrace = 3 * time.Second
)

func faultFlags(extra ...string) []string {
	return append([]string{
		"--lease", faultLease.String(),
		"--delivery-timeout", faultDeliveryTimeout.String(),
		"--tick", "200ms",
		"--drain-timeout", "5s",
	}, extra...)
}

// faultSlack: how long after a wake arrived its outcome may still be unwritten (the
// rest of its batch, up to the delivery timeout, then the apply), with room for a
// loaded machine. A duplicate is explained by a kill of the delivering node within it.
const faultSlack = faultDeliveryTimeout + 2*time.Second

// TestFaultNodeKills is scenario 1: three nodes on one database, 3,000 once alarms and
// 120 cron series (both delivery modes) falling due over 20 s while a random node is
// SIGKILLed and restarted every 2–4 s.
func TestFaultNodeKills(t *testing.T) {
	for _, kind := range []storeKind{onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			runKills(t, kind, killPlan{nodes: 3, once: 3000, cron: 120, window: 20 * time.Second})
		})
	}
}

// TestFaultSingleNodeSQLite is scenario 4: one node on SQLite, SIGKILLed and restarted
// every 2–4 s for 15 s; its own restarted self picks up what the dead one held.
func TestFaultSingleNodeSQLite(t *testing.T) {
	runKills(t, onSQLite, killPlan{nodes: 1, once: 600, cron: 20, window: 15 * time.Second})
}

type killPlan struct {
	nodes      int
	once, cron int
	window     time.Duration // the once alarms fall due evenly over it; kills run through it
}

func runKills(t *testing.T, kind storeKind, p killPlan) {
	runKillsOn(t, kind, newStoreURL(t, kind), faultFlags(), p)
}

// runKillsOn is runKills on a store of kind the test made, the nodes started with flags.
func runKillsOn(t *testing.T, kind storeKind, store string, flags []string, p killPlan) {
	recv := NewReceiver(t, e2eSecret)
	recv.Think(100 * time.Millisecond)
	token := CreateToken(t, store, "e2e")
	nodes := startNodes(t, p.nodes, store, recv, flags...)
	in := OpenInspector(t, kind, store, "e2e")
	c := NewClient(t, token)

	// Creating goes at several hundred alarms a second; the first once alarm falls due
	// as the last is created, give or take.
	start := time.Now().Add(time.Second + time.Duration(p.once+p.cron)*time.Second/600)
	specs := MixedSpecs(p.once, p.cron, start, p.window, 2*time.Second)
	created := CreateAll(t, c, nodes, specs)

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 6))
	end := start.Add(p.window + time.Second)
	for {
		wait := 2*time.Second + time.Duration(rng.Int64N(int64(2*time.Second)))
		if time.Now().Add(wait).After(end) {
			break
		}
		time.Sleep(wait)
		n := nodes[rng.IntN(len(nodes))]
		n.Kill()
		n.Start()
	}
	lastFault := time.Now()

	WaitOnceAlarmsFinished(t, in, 60*time.Second)
	time.Sleep(time.Until(lastFault.Add(faultLease + faultGrace)))
	fig := Figures{Scenario: "node kills", Store: string(kind)}
	fig.Stuck = CountStuck(t, in, faultLease, faultGrace)
	faults := stopAll(t, nodes)
	faults.Slack = faultSlack

	final, events := readFinal(in, created)
	Verify(t, fig, final, events, recv.Deliveries(), faults, false)
}

// startNodes starts n nodes on store, each delivering to its own path of the receiver
// so a wake says which node sent it.
func startNodes(t *testing.T, n int, store string, recv *Receiver, flags ...string) []*Node {
	t.Helper()
	nodes := make([]*Node, n)
	for i := range nodes {
		name := string(rune('a' + i))
		nodes[i] = StartNode(t, name, NodeConfig{Store: store, WakeURL: recv.URL + "/" + name, Secret: e2eSecret, Extra: flags})
	}
	return nodes
}

// stopAll stops every node gracefully (in-flight outcomes are applied, so the store is
// final) and returns the kills and restarts they went through. A node that died by
// itself fails the test: only the test may kill a node.
func stopAll(t *testing.T, nodes []*Node) Faults {
	t.Helper()
	var f Faults
	for _, n := range nodes {
		if !n.Running() {
			t.Errorf("node %s exited by itself", n.Name)
		}
	}
	for _, n := range nodes {
		n.Stop()
		f.Kills = append(f.Kills, n.Kills()...)
		f.Restarts += n.Restarts()
	}
	return f
}

// readFinal reads the final rows and histories of the created alarms.
func readFinal(in *Inspector, created []Alarm) ([]domain.Alarm, map[string][]domain.Event) {
	in.t.Helper()
	want := make(map[string]bool, len(created))
	ids := make([]string, 0, len(created))
	for _, a := range created {
		want[a.ID] = true
		ids = append(ids, a.ID)
	}
	var final []domain.Alarm
	for _, a := range in.Alarms("") {
		if want[a.ID] {
			final = append(final, a)
		}
	}
	if len(final) != len(created) {
		in.t.Fatalf("the store holds %d of the %d alarms created", len(final), len(created))
	}
	return final, in.Events(ids)
}
