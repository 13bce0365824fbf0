//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	atLeastOnce = "at_least_once"
	atMostOnce  = "at_most_once"
)

// Spec is one alarm a scenario creates.
type Spec struct {
	Kind        string        // "once" or "cron"
	Delivery    string        // atLeastOnce or atMostOnce
	FireAt      time.Time     // once: the due time; zero means use Delay
	Delay       time.Duration // once, when FireAt is zero: delay_seconds
	Every       time.Duration // cron: "@every <Every>"
	MaxFailures int           // 0: the server's default
}

func (s Spec) body(label string) string {
	req := map[string]any{"kind": s.Kind, "delivery": s.Delivery, "label": label}
	switch {
	case s.Kind == "cron":
		req["cron_expr"] = fmt.Sprintf("@every %s", s.Every)
	case s.FireAt.IsZero():
		req["delay_seconds"] = s.Delay.Seconds()
	default:
		req["fire_at"] = s.FireAt.UTC().Format(time.RFC3339Nano)
	}
	if s.MaxFailures > 0 {
		req["max_failures"] = s.MaxFailures
	}
	b, _ := json.Marshal(req)
	return string(b)
}

// MixedSpecs is the usual load: once alarms due evenly over [start, start+window),
// alternating at-least-once and at-most-once, and cron series firing every `every`,
// half of each delivery mode. The order is shuffled so every node creates every kind.
func MixedSpecs(once, cron int, start time.Time, window, every time.Duration) []Spec {
	specs := make([]Spec, 0, once+cron)
	modes := [2]string{atLeastOnce, atMostOnce}
	for i := range once {
		at := start.Add(time.Duration(i) * window / time.Duration(max(once, 1)))
		specs = append(specs, Spec{Kind: "once", Delivery: modes[i%2], FireAt: at})
	}
	for i := range cron {
		specs = append(specs, Spec{Kind: "cron", Delivery: modes[i%2], Every: every})
	}
	rand.Shuffle(len(specs), func(i, j int) { specs[i], specs[j] = specs[j], specs[i] })
	return specs
}

// CreateAll creates every spec through the nodes in turn, 16 requests at a time, and
// returns the alarms in spec order. It fails the test if any create fails.
func CreateAll(t *testing.T, c *Client, nodes []*Node, specs []Spec) []Alarm {
	t.Helper()
	out := make([]Alarm, len(specs))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []string
	)
	work := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				a, err := c.TryCreate(nodes[i%len(nodes)], specs[i].body(fmt.Sprintf("e2e-%d", i)))
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
					continue
				}
				out[i] = a
			}
		}()
	}
	began := time.Now()
	for i := range specs {
		work <- i
	}
	close(work)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d creates failed; first: %s", len(errs), len(specs), errs[0])
	}
	t.Logf("created %d alarms in %s", len(specs), time.Since(began).Round(time.Millisecond))
	return out
}

// workerPID reads the process id out of a worker id, "<host>-<pid>-<6 random chars>"
// (chores.NewWorkerID); 0 when it does not have that shape.
func workerPID(worker string) int {
	if len(worker) < 9 {
		return 0
	}
	rest := worker[:len(worker)-7]
	i := strings.LastIndex(rest, "-")
	if i < 0 {
		return 0
	}
	var pid int
	if _, err := fmt.Sscanf(rest[i+1:], "%d", &pid); err != nil {
		return 0
	}
	return pid
}
