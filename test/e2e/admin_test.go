package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestOperateAClusterThroughTheCLI: two nodes on PostgreSQL, driven by an operator
// through `chronos admin` (and an owner through `chronos alarm`): the pause gate holds
// every wake on both nodes and, once resumed, every due alarm is delivered exactly once;
// every admin route answers through the CLI; a secret payload never shows in an admin
// view; and both nodes' /metrics parse with Prometheus's own parser and count what
// happened.
func TestOperateAClusterThroughTheCLI(t *testing.T) {
	store := newStoreURL(t, onPostgres)
	recv := NewReceiver(t, e2eSecret)
	owner := CreateToken(t, store, "shop")
	ops := CreateToken(t, store, "ops", "--admin")
	reader := CreateToken(t, store, "ops", "--admin", "read")
	metricsAddr := freeAddr(t)
	flags := []string{"--tick", "300ms", "--retention", "1h"}
	a := StartNode(t, "a", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret,
		Extra: append([]string{"--metrics-listen", metricsAddr}, flags...)})
	b := StartNode(t, "b", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret, Extra: flags})

	// The gate: paused through one node, both stop claiming within a tick.
	var gate struct {
		Dispatch struct {
			Paused bool   `json:"paused"`
			By     string `json:"by"`
		} `json:"dispatch"`
	}
	cliJSON(t, a, ops, &gate, "admin", "pause")
	if !gate.Dispatch.Paused || !strings.HasPrefix(gate.Dispatch.By, "tok_") {
		t.Fatalf("admin pause answered %+v", gate.Dispatch)
	}
	if out, err := cli(t, b, reader, "admin", "resume"); err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("a read-only token resumed dispatch: %v\n%s", err, out)
	}
	if out, err := cli(t, b, owner, "admin", "overview"); err == nil || !strings.Contains(out, "forbidden") {
		t.Errorf("an owner token read the overview: %v\n%s", err, out)
	}
	time.Sleep(time.Second) // > one tick: both nodes have read the gate
	if out := cliText(t, b, reader, "admin", "dispatch"); !strings.Contains(out, "true") {
		t.Errorf("admin dispatch on the other node does not say paused:\n%s", out)
	}

	c := NewClient(t, owner)
	due := time.Now().Add(500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	var ids []string
	for i := range 40 {
		n := []*Node{a, b}[i%2]
		ids = append(ids, c.Create(n, fmt.Sprintf(`{"kind":"once","fire_at":%q,"label":"gate-%d"}`, due, i)).ID)
	}
	var created struct {
		Alarm struct {
			ID string `json:"id"`
		} `json:"alarm"`
	}
	cliJSON(t, b, owner, &created, "alarm", "create", "--in", "500ms", "--label", "gate-cli")
	ids = append(ids, created.Alarm.ID)
	time.Sleep(3 * time.Second)
	if n := len(recv.Deliveries()); n != 0 {
		t.Fatalf("%d wakes delivered while dispatch was paused", n)
	}
	var ov struct {
		Overview struct {
			DueBacklog  int64 `json:"due_backlog"`
			LiveWorkers int   `json:"live_workers"`
			Dispatch    struct {
				Paused        bool    `json:"paused"`
				PausedSeconds float64 `json:"paused_seconds"`
			} `json:"dispatch"`
		} `json:"overview"`
	}
	// The counts are the sampling node's (every 15 s): the held alarms show by the next sample.
	waitFor(t, 25*time.Second, "the overview to count the held alarms", func() bool {
		cliJSON(t, b, reader, &ov, "admin", "overview")
		return ov.Overview.DueBacklog == int64(len(ids))
	})
	if n := len(recv.Deliveries()); n != 0 {
		t.Fatalf("%d wakes delivered while dispatch was paused", n)
	}
	if o := ov.Overview; o.DueBacklog != int64(len(ids)) || o.LiveWorkers != 2 || !o.Dispatch.Paused || o.Dispatch.PausedSeconds < 3 {
		t.Errorf("overview while paused = %+v; want %d due, 2 live workers, paused for over 3 s", o, len(ids))
	}
	if out := cliText(t, a, reader, "admin", "workers"); len(strings.Split(strings.TrimSpace(out), "\n")) != 3 {
		t.Errorf("admin workers printed, want a header and two nodes:\n%s", out)
	}
	var ws struct {
		Workers []struct {
			Alive   bool   `json:"alive"`
			Version string `json:"version"`
		} `json:"workers"`
	}
	cliJSON(t, a, reader, &ws, "admin", "workers")
	if len(ws.Workers) != 2 || !ws.Workers[0].Alive || !ws.Workers[1].Alive || ws.Workers[0].Version == "" {
		t.Errorf("admin workers = %+v, want two live nodes with their version", ws.Workers)
	}

	cliJSON(t, b, ops, &gate, "admin", "resume")
	if gate.Dispatch.Paused {
		t.Fatal("admin resume answered paused")
	}
	waitFor(t, 15*time.Second, "every alarm held by the pause delivered", func() bool { return len(recv.Deliveries()) >= len(ids) })
	time.Sleep(500 * time.Millisecond) // a double delivery would arrive now
	got := map[string]int{}
	for _, d := range recv.Deliveries() {
		got[d.AlarmID]++
	}
	for _, id := range ids {
		if got[id] != 1 {
			t.Errorf("alarm %s delivered %d times after resume, want once", id, got[id])
		}
	}

	// A secret in a payload and a wake message never shows in an admin view.
	const secret = "sk_live_e2eSECRET42"
	cliJSON(t, a, owner, &created, "alarm", "create", "--in", "1h", "--label", "secret",
		"--payload", `{"card":"`+secret+`"}`, "--wake-message", "pin "+secret)
	secretID := created.Alarm.ID
	for _, args := range [][]string{
		{"admin", "alarm", secretID}, {"admin", "alarm", secretID, "--json"},
		{"admin", "alarms", "--owner", "shop", "--json"}, {"admin", "alarms", "--label-prefix", "sec"},
		{"admin", "events", secretID, "--json"},
	} {
		if out := cliText(t, b, reader, args...); strings.Contains(out, secret) {
			t.Errorf("chronos %s shows the secret:\n%s", strings.Join(args, " "), out)
		}
	}
	if out := cliText(t, b, owner, "alarm", "get", secretID, "--json"); !strings.Contains(out, secret) {
		t.Errorf("the owner's own view lost the payload:\n%s", out)
	}

	// A failed alarm: listed by status, retried, delivered.
	recv.Fail()
	cliJSON(t, a, owner, &created, "alarm", "create", "--in", "0s", "--max-failures", "1", "--label", "flaky")
	failedID := created.Alarm.ID
	var one struct {
		Alarm struct {
			ID       string `json:"id"`
			Owner    string `json:"owner"`
			Status   string `json:"status"`
			Redacted bool   `json:"redacted"`
		} `json:"alarm"`
	}
	waitFor(t, 10*time.Second, "the flaky alarm failed", func() bool {
		cliJSON(t, a, reader, &one, "admin", "alarm", failedID)
		return one.Alarm.Status == "failed"
	})
	if one.Alarm.Owner != "shop" || !one.Alarm.Redacted {
		t.Errorf("admin alarm = %+v, want owner shop, redacted", one.Alarm)
	}
	var list struct {
		Alarms []struct {
			ID string `json:"id"`
		} `json:"alarms"`
	}
	cliJSON(t, b, reader, &list, "admin", "alarms", "--status", "failed", "--failed-since", time.Now().Add(-time.Minute).UTC().Format(time.RFC3339))
	if len(list.Alarms) != 1 || list.Alarms[0].ID != failedID {
		t.Errorf("failed alarms = %+v, want [%s]", list.Alarms, failedID)
	}
	recv.Recover()
	cliJSON(t, b, ops, &one, "admin", "retry", failedID)
	if one.Alarm.Status != "active" {
		t.Errorf("retried alarm is %s", one.Alarm.Status)
	}
	waitFor(t, 10*time.Second, "the retried alarm delivered", func() bool { return len(recv.Acked(failedID)) == 1 })
	if out := cliText(t, a, reader, "admin", "events", failedID); !strings.Contains(out, "retried") {
		t.Errorf("the history does not show the retry:\n%s", out)
	}

	// Cancel and delete one; then in bulk by filter.
	cliJSON(t, a, ops, &one, "admin", "cancel", secretID)
	if one.Alarm.Status != "cancelled" {
		t.Errorf("admin cancel left the alarm %s", one.Alarm.Status)
	}
	cliText(t, a, ops, "admin", "delete", secretID)
	if out, err := cli(t, a, reader, "admin", "alarm", secretID); err == nil || !strings.Contains(out, "not_found") {
		t.Errorf("a deleted alarm still reads: %v\n%s", err, out)
	}
	for i := range 3 {
		cliJSON(t, b, owner, &created, "alarm", "create", "--in", "1h", "--label", fmt.Sprintf("bulk-%d", i))
	}
	var bulk struct {
		Matched int  `json:"matched"`
		Changed int  `json:"changed"`
		More    bool `json:"more"`
	}
	cliJSON(t, a, ops, &bulk, "admin", "cancel", "--label-prefix", "bulk-")
	if bulk.Matched != 3 || bulk.Changed != 3 || bulk.More {
		t.Errorf("bulk cancel = %+v, want 3 changed", bulk)
	}
	cliJSON(t, a, ops, &bulk, "admin", "delete", "--label-prefix", "bulk-", "--status", "cancelled")
	if bulk.Changed != 3 {
		t.Errorf("bulk delete = %+v, want 3 changed", bulk)
	}
	cliJSON(t, a, ops, &bulk, "admin", "retry", "--owner", "shop")
	if bulk.Changed != 0 {
		t.Errorf("bulk retry with nothing failed = %+v", bulk)
	}

	// Retention: its settings, and a run on demand.
	var ret struct {
		Retention struct {
			Enabled          bool    `json:"enabled"`
			RetentionSeconds float64 `json:"retention_seconds"`
		} `json:"retention"`
	}
	cliJSON(t, a, reader, &ret, "admin", "retention")
	if !ret.Retention.Enabled || ret.Retention.RetentionSeconds != 3600 {
		t.Errorf("admin retention = %+v", ret.Retention)
	}
	if out := cliText(t, b, ops, "admin", "retention", "--run"); !strings.Contains(out, "node") {
		t.Errorf("admin retention --run printed:\n%s", out)
	}

	// Metrics: both nodes, parsed as Prometheus parses them.
	fa := scrape(t, "http://"+metricsAddr+"/metrics")
	fb := scrape(t, "http://"+b.Addr+"/metrics")
	for _, name := range []string{
		"chronos_wakes_total", "chronos_wake_lag_seconds", "chronos_delivery_duration_seconds",
		"chronos_claim_duration_seconds", "chronos_claimed_total", "chronos_retention_deleted_total",
		"chronos_dispatch_paused", "chronos_api_requests_total", "chronos_api_request_duration_seconds",
		"go_goroutines", "process_resident_memory_bytes",
	} {
		if fa[name] == nil || fb[name] == nil {
			t.Errorf("metric %s missing (node a: %t, node b: %t)", name, fa[name] != nil, fb[name] != nil)
		}
	}
	delivered := counter(fa, "chronos_wakes_total", "outcome", "delivered") + counter(fb, "chronos_wakes_total", "outcome", "delivered")
	if delivered < float64(len(ids)+1) {
		t.Errorf("chronos_wakes_total{outcome=delivered} over both nodes = %v, want at least %d", delivered, len(ids)+1)
	}
	if failed := counter(fa, "chronos_wakes_total", "outcome", "failed") + counter(fb, "chronos_wakes_total", "outcome", "failed"); failed < 1 {
		t.Errorf("chronos_wakes_total{outcome=failed} = %v, want the flaky alarm's failure", failed)
	}
	if claimed := counter(fa, "chronos_claimed_total", "", "") + counter(fb, "chronos_claimed_total", "", ""); claimed < delivered {
		t.Errorf("chronos_claimed_total = %v < delivered %v", claimed, delivered)
	}
	if counter(fa, "chronos_dispatch_paused", "", "")+counter(fb, "chronos_dispatch_paused", "", "") != 0 {
		t.Error("chronos_dispatch_paused is not 0 after resume")
	}
	if n := counter(fa, "chronos_api_requests_total", "route", "/v1/alarms") + counter(fb, "chronos_api_requests_total", "route", "/v1/alarms"); n < float64(len(ids)) {
		t.Errorf("chronos_api_requests_total{route=/v1/alarms} = %v, want at least %d", n, len(ids))
	}
	// The sampled counts come from one node of the two.
	if (fa["chronos_due_backlog"] != nil) == (fb["chronos_due_backlog"] != nil) {
		t.Errorf("chronos_due_backlog reported by node a: %t, node b: %t; want exactly one", fa["chronos_due_backlog"] != nil, fb["chronos_due_backlog"] != nil)
	}
	// No label value is an alarm id (or anything else unbounded).
	for _, fams := range []map[string]*dto.MetricFamily{fa, fb} {
		for name, fam := range fams {
			for _, m := range fam.GetMetric() {
				for _, l := range m.GetLabel() {
					for _, id := range append(ids, failedID, secretID) {
						if strings.Contains(l.GetValue(), id) {
							t.Errorf("%s has a label %s=%q carrying an alarm id", name, l.GetName(), l.GetValue())
						}
					}
				}
			}
		}
	}
}

// cli runs the chronos binary against node n with token, returning stdout and stderr
// together and the exit error.
func cli(t *testing.T, n *Node, token string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(cmd.Environ(), "CHRONOS_SERVER=http://"+n.Addr, "CHRONOS_TOKEN="+token)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// cliText runs the CLI and fails the test unless it exits 0.
func cliText(t *testing.T, n *Node, token string, args ...string) string {
	t.Helper()
	out, err := cli(t, n, token, args...)
	if err != nil {
		t.Fatalf("chronos %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// cliJSON runs the CLI with --json and decodes its answer into v.
func cliJSON(t *testing.T, n *Node, token string, v any, args ...string) {
	t.Helper()
	out := cliText(t, n, token, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("chronos %s --json printed no JSON (%v):\n%s", strings.Join(args, " "), err, out)
	}
}

func waitFor(t *testing.T, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for: %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scrape reads a /metrics page with Prometheus's text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: HTTP %d", url, res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// counter sums the counter or gauge values of name whose label has value ("" label:
// every series).
func counter(fams map[string]*dto.MetricFamily, name, label, value string) float64 {
	var sum float64
	for _, m := range fams[name].GetMetric() {
		if label != "" && !hasLabel(m, label, value) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			sum += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			sum += m.GetGauge().GetValue()
		}
	}
	return sum
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}
