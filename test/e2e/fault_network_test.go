//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// The network scenario's phases, in order, with a few seconds of calm between them.
const (
	netLatency      = 100 * time.Millisecond // each way: every round trip to the database gains 200 ms
	netLatencyFor   = 10 * time.Second
	netResetsFor    = 8 * time.Second
	netBlackholeFor = 10 * time.Second
	netCalm         = 3 * time.Second
	// netReadyBound: how soon after the blackhole starts a cut-off node must answer
	// /readyz with 503: the ping's own 2 s deadline, the probe's interval and a loaded
	// machine's latency.
	netReadyBound = 5 * time.Second
	// netRecoverBound: how soon after the blackhole lifts a cut-off node must be ready
	// and firing again, without a restart. A connect begun in the blackhole holds its
	// pool slot until the stores' connect timeout (10 s) gives up on it, so a node whose
	// four slots were all connecting when the path came back waits that long (a MySQL
	// commit sent into the blackhole waits out the store's 15 s I/O bound: 5 s after it
	// lifts, within that); then a claim on a dead pooled connection costs its deadline
	// (half the lease), and the claim loop backs off up to 2 s between failures
	// (claimRetryCap), twice: 16.5 s, and 5 s of room for a loaded CI machine, 21.5 s.
	// Without deadlines a node never came back (and pgx's connect default held a pool
	// slot for 2 minutes).
	netRecoverBound = 10*time.Second + faultLease/2 + 2*2*time.Second + 5*time.Second
)

// TestFaultNetwork is scenario 6: three nodes reach the database each through a proxy
// of its own (NetProxy) while once alarms and cron series of both delivery modes fall
// due. First every round trip gains 200 ms for 10 s; then every connection is reset
// every few hundred milliseconds for 8 s; then nodes a and b are blackholed for 10 s:
// every connection they hold or open is lost without a word (node c keeps its path).
// The cut-off nodes must notice through their own deadlines, say so on /readyz, keep the
// lease semantics (c takes over their alarms once the leases expire, nothing twice for
// at-most-once) and fire again once the path is back, as the same processes.
func TestFaultNetwork(t *testing.T) {
	for _, kind := range []storeKind{onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			runNetworkFaults(t, kind)
		})
	}
}

func runNetworkFaults(t *testing.T, kind storeKind) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	recv.Think(50 * time.Millisecond)
	token := CreateToken(t, store, "e2e")

	const n = 3
	proxies := make([]*NetProxy, n)
	nodes := make([]*Node, n)
	for i := range nodes {
		proxied, target := viaProxy(t, store)
		proxies[i] = NewNetProxy(t, target)
		name := string(rune('a' + i))
		nodes[i] = StartNode(t, name, NodeConfig{Store: proxied(proxies[i].Addr()), WakeURL: recv.URL + "/" + name,
			Secret: e2eSecret, Extra: faultFlags()})
	}
	pids := make([]int, n)
	for i, nd := range nodes {
		pids[i] = nd.PID()
	}
	cut := nodes[:2] // blackholed; nodes[2] keeps its path
	in := OpenInspector(t, kind, store, "e2e")
	c := NewClient(t, token)

	start := time.Now().Add(3 * time.Second)
	latencyAt := start.Add(time.Second)
	resetsAt := latencyAt.Add(netLatencyFor + netCalm)
	blackAt := resetsAt.Add(netResetsFor + netCalm)
	window := blackAt.Add(netBlackholeFor + netCalm).Sub(start)
	created := CreateAll(t, c, nodes, MixedSpecs(1500, 60, start, window, 2*time.Second))

	probe := newReadyProbe(nodes)
	defer probe.stop()

	time.Sleep(time.Until(latencyAt))
	slow := Window{From: time.Now()}
	for _, p := range proxies {
		p.SetLatency(netLatency)
	}
	time.Sleep(netLatencyFor)
	for _, p := range proxies {
		p.SetLatency(0)
	}
	slow.To = time.Now()
	t.Logf("round trips %s slower for %s", 2*netLatency, netLatencyFor)

	time.Sleep(time.Until(resetsAt))
	resets := Window{From: time.Now()}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 17))
	for time.Since(resets.From) < netResetsFor {
		for _, p := range proxies {
			p.ResetAll()
		}
		time.Sleep(300*time.Millisecond + time.Duration(rng.Int64N(int64(600*time.Millisecond))))
	}
	resets.To = time.Now()
	var reset int64
	for _, p := range proxies {
		reset += p.Resets()
	}
	if reset == 0 {
		t.Errorf("the reset phase found no connection to reset")
	}
	t.Logf("%d connections reset over %s", reset, resets.To.Sub(resets.From).Round(time.Millisecond))

	time.Sleep(time.Until(blackAt))
	black := Window{From: time.Now()}
	for i := range cut {
		proxies[i].Blackhole()
	}
	time.Sleep(netBlackholeFor)
	lost := 0
	for i := range cut {
		lost += proxies[i].Heal()
	}
	black.To = time.Now()
	t.Logf("nodes a and b blackholed for %s; %d of their connections lost", black.To.Sub(black.From).Round(time.Millisecond), lost)

	// Every node fires again, as the process it was.
	var firing time.Duration // the slowest cut-off node's
	var stuck []*Node
	for i, nd := range nodes {
		took := waitFiring(t, recv, nd, black.To, netRecoverBound)
		if took >= netRecoverBound {
			stuck = append(stuck, nd)
		}
		if i < len(cut) {
			firing = max(firing, took)
		}
	}
	// A node that never fired again: where its claim loop and its batches wait, before
	// the rest of the test stops it (it is then not the process it was, which fails too).
	for _, nd := range stuck {
		for _, s := range nd.Stacks("(*Dispatcher).Run", "(*Dispatcher).fire", "(*Dispatcher).apply") {
			t.Errorf("node %s: %s", nd.Name, s)
		}
	}
	WaitOnceAlarmsFinished(t, in, 60*time.Second)
	time.Sleep(time.Until(black.To.Add(faultLease + faultGrace)))
	fig := Figures{Scenario: "network faults", Store: string(kind)}
	fig.Stuck = CountStuck(t, in, faultLease, faultGrace)
	probe.stop()
	for i, nd := range nodes {
		if !nd.Running() || nd.PID() != pids[i] || nd.Restarts() != 0 {
			t.Errorf("node %s is not the process it started as (pid %d, now %d, running %v)", nd.Name, pids[i], nd.PID(), nd.Running())
		}
	}
	probe.check(t, nodes, cut, black)
	// The control: the latency was real. A readiness probe is at least one round trip
	// to the database, so none answered during the phase can be faster than one.
	switch fastest := probe.fastest(slow); {
	case fastest < 0:
		t.Errorf("no /readyz was answered during the latency phase")
	case fastest < 2*netLatency:
		t.Errorf("a /readyz answered in %s while every round trip took %s more: the latency was not applied", fastest, 2*netLatency)
	}
	for _, nd := range cut {
		if storeCallTimeouts(nd, black) == 0 {
			t.Errorf("node %s logged no claim or next-due read that timed out while it was cut off", nd.Name)
		}
	}

	faults := stopAll(t, nodes)
	// Every phase is a fault window: a duplicate or an unknown outcome must fall in one.
	// Latency is one too: an apply that needs more than half the lease (2.5 s here;
	// a MariaDB apply is four or five round trips, waiting its turn for one of the
	// pool's four connections) gives the lease up, and an at-least-once wake is sent
	// again, as when the database is unreachable.
	faults.Outages = []Window{slow, resets, black}
	faults.Slack = faultSlack
	final, events := readFinal(in, created)
	noLeaseLeft(t, final)
	fig = Verify(t, fig, final, events, recv.Deliveries(), faults, false)
	t.Logf("network: store=%s by phase (latency, resets, blackhole): %s", kind,
		byPhase(final, events, recv.Deliveries(), faults.Slack, map[string]Window{"latency": slow, "resets": resets, "blackhole": black}))
	down, up := probe.worst(cut, black)
	t.Logf("network: store=%s resets=%d blackholed_conns=%d not_ready_after=%s ready_again_after=%s firing_again_after=%s",
		kind, reset, lost, down.Round(time.Millisecond), up.Round(time.Millisecond), firing.Round(time.Millisecond))
}

// viaProxy returns a function that points store at a proxy's address, and the
// database's host:port the proxy forwards to.
func viaProxy(t *testing.T, store string) (func(addr string) string, string) {
	t.Helper()
	u, err := url.Parse(store)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	if u.Port() == "" {
		port := "5432"
		if u.Scheme == "mysql" {
			port = "3306"
		}
		target = net.JoinHostPort(u.Hostname(), port)
	}
	return func(addr string) string {
		v := *u
		v.Host = addr
		return v.String()
	}, target
}

// waitFiring waits until node delivered a wake that arrived after since and returns
// how long after since it came, or fails the test once within has passed.
func waitFiring(t *testing.T, recv *Receiver, node *Node, since time.Time, within time.Duration) time.Duration {
	t.Helper()
	for {
		for _, d := range recv.Deliveries() {
			if d.Via == node.Name && d.Arrived.After(since) && d.Status == http.StatusOK {
				return d.Arrived.Sub(since)
			}
		}
		if time.Since(since) > within {
			t.Errorf("node %s delivered nothing in the %s after the blackhole lifted", node.Name, within)
			return within
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// byPhase says in which phase each at-least-once duplicate was first delivered and
// each at-most-once occurrence with an unknown outcome was dispatched (Verify has
// checked that each falls in one), for the figures.
func byPhase(final []domain.Alarm, events map[string][]domain.Event, got []Delivery, slack time.Duration, phases map[string]Window) string {
	in := func(at time.Time) string { // the nearest phase, within slack
		best, bestGap := "none", slack
		for name, w := range phases {
			gap := max(w.From.Sub(at), at.Sub(w.To), 0)
			if gap <= bestGap {
				best, bestGap = name, gap
			}
		}
		return best
	}
	acks := map[string][]Delivery{}
	for _, d := range got {
		if d.Status == http.StatusOK {
			acks[d.OccurrenceKey] = append(acks[d.OccurrenceKey], d)
		}
	}
	dups, unknown := map[string]int{}, map[string]int{}
	for _, a := range final {
		h := readHistory(a, events[a.ID])
		for k, ev := range h.fired {
			switch {
			case a.Delivery == domain.AtLeastOnce && len(acks[k]) > 1:
				first := acks[k][0]
				for _, d := range acks[k] {
					if d.Arrived.Before(first.Arrived) {
						first = d
					}
				}
				dups[in(first.Arrived)]++
			case a.Delivery == domain.AtMostOnce && !h.delivered[k] && !h.failedAttempt[k]:
				unknown[in(ev.At)]++
			}
		}
	}
	return fmt.Sprintf("at-least-once duplicates %v, at-most-once outcomes unknown %v", dups, unknown)
}

// storeCallTimeouts counts the dispatcher's store calls node logged as failed on a
// deadline during the blackhole: how it noticed, since a blackholed connection reports
// nothing itself. An idle node's call is a next-due read, a claim only when something is
// due or every fifth tick.
func storeCallTimeouts(node *Node, black Window) int {
	n := 0
	for _, line := range strings.Split(node.Logs(), "\n") {
		var entry struct {
			TS    time.Time `json:"ts"`
			Msg   string    `json:"msg"`
			Error string    `json:"error"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil ||
			(entry.Msg != "claim failed; retrying" && entry.Msg != "reading next due time failed; sleeping one tick") {
			continue
		}
		if !entry.TS.Before(black.From) && !entry.TS.After(black.To) && strings.Contains(entry.Error, "deadline exceeded") {
			n++
		}
	}
	return n
}

// noLeaseLeft fails the test for every alarm still leased once the nodes have stopped,
// except an at-most-once once alarm whose outcome is unknown: its lease and in-doubt
// note are its record (docs/reliability.md); Verify checks those are explained.
func noLeaseLeft(t *testing.T, final []domain.Alarm) {
	t.Helper()
	left := 0
	for _, a := range final {
		inDoubt := a.Kind == domain.KindOnce && a.Delivery == domain.AtMostOnce && strings.HasPrefix(a.LastError, domain.InDoubtPrefix)
		if a.Claimed() && !inDoubt {
			left++
			if left <= 5 {
				t.Errorf("lease left behind: alarm %s (%s %s, %s) is still leased by %s", a.ID, a.Kind, a.Delivery, a.Status, a.ClaimedBy)
			}
		}
	}
	if left > 5 {
		t.Errorf("%d leases left behind in all", left)
	}
}

// readyProbe sends every node a /readyz probe every 250 ms, each on its own (one that
// waits does not hold back the next), and keeps the answers in the order they came.
type readyProbe struct {
	mu      sync.Mutex
	answers map[string][]readyAnswer
	done    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

// readyAnswer is one probe: when it was sent, when the answer came, what it was (0: no
// answer within the client's timeout).
type readyAnswer struct {
	sent, answered time.Time
	status         int
}

func newReadyProbe(nodes []*Node) *readyProbe {
	p := &readyProbe{answers: map[string][]readyAnswer{}, done: make(chan struct{})}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, nd := range nodes {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-p.done:
					return
				case <-tick.C:
				}
				p.wg.Add(1)
				go func() {
					defer p.wg.Done()
					a := readyAnswer{sent: time.Now()}
					if resp, err := client.Get("http://" + nd.Addr + "/readyz"); err == nil {
						resp.Body.Close()
						a.status = resp.StatusCode
					}
					a.answered = time.Now()
					p.mu.Lock()
					p.answers[nd.Name] = append(p.answers[nd.Name], a)
					p.mu.Unlock()
				}()
			}
		}()
	}
	return p
}

func (p *readyProbe) stop() {
	p.once.Do(func() { close(p.done) })
	p.wg.Wait()
}

// check asserts what /readyz said. A cut-off node: 503 within netReadyBound of the
// blackhole's start, 503 to every probe sent after the start and answered before the
// end (every connection it has or opens is dead then, so no ping can succeed), and
// ready again within netRecoverBound of the end. The node that kept its path: ready to
// every probe sent during the blackhole.
func (p *readyProbe) check(t *testing.T, nodes, cut []*Node, black Window) {
	t.Helper()
	isCut := map[string]bool{}
	for _, nd := range cut {
		isCut[nd.Name] = true
	}
	for _, nd := range nodes {
		answers := p.answers[nd.Name]
		if !isCut[nd.Name] {
			for _, a := range answers {
				if !a.sent.Before(black.From) && !a.sent.After(black.To) && a.status != http.StatusOK {
					t.Errorf("node %s kept its path but /readyz answered %d %s into the blackhole", nd.Name, a.status, a.sent.Sub(black.From).Round(time.Millisecond))
					break
				}
			}
			continue
		}
		for _, a := range answers {
			if !a.sent.Before(black.From) && a.answered.Before(black.To) && a.status != http.StatusServiceUnavailable {
				t.Errorf("node %s answered /readyz with %d %s into the blackhole, want 503", nd.Name, a.status, a.sent.Sub(black.From).Round(time.Millisecond))
				break
			}
		}
		down, up := downUp(answers, black)
		switch {
		case down < 0:
			t.Errorf("node %s never answered /readyz with 503 while it was cut off", nd.Name)
		case down > netReadyBound:
			t.Errorf("node %s answered /readyz with 503 only %s into the blackhole, want within %s", nd.Name, down.Round(time.Millisecond), netReadyBound)
		}
		switch {
		case up < 0:
			t.Errorf("node %s never answered /readyz with 200 again after the blackhole", nd.Name)
		case up > netRecoverBound:
			t.Errorf("node %s was ready again only %s after the blackhole, want within %s", nd.Name, up.Round(time.Millisecond), netRecoverBound)
		}
	}
}

// downUp is how long after the blackhole began a node's first 503 came (to a probe sent
// after the start), and how long after it lifted its first 200 came (to a probe sent
// after the end); -1 for one that never came.
func downUp(answers []readyAnswer, black Window) (down, up time.Duration) {
	down, up = -1, -1
	for _, a := range answers {
		if down < 0 && !a.sent.Before(black.From) && a.status == http.StatusServiceUnavailable {
			down = a.answered.Sub(black.From)
		}
		if up < 0 && !a.sent.Before(black.To) && a.status == http.StatusOK {
			up = a.answered.Sub(black.To)
		}
	}
	return down, up
}

// fastest is the quickest answer, on any node, to a probe sent and answered within w;
// -1 when there was none.
func (p *readyProbe) fastest(w Window) time.Duration {
	fastest := time.Duration(-1)
	for _, answers := range p.answers {
		for _, a := range answers {
			if a.sent.After(w.From) && a.answered.Before(w.To) && (fastest < 0 || a.answered.Sub(a.sent) < fastest) {
				fastest = a.answered.Sub(a.sent)
			}
		}
	}
	return fastest
}

// worst is the slowest cut-off node's downUp, for the figures.
func (p *readyProbe) worst(cut []*Node, black Window) (down, up time.Duration) {
	for _, nd := range cut {
		d, u := downUp(p.answers[nd.Name], black)
		down, up = max(down, d), max(up, u)
	}
	return down, up
}
