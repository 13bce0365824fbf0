//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTenantAbuse: one node with serve's default flags, an owner that attacks it and
// a quiet owner that creates an alarm every 100 ms over the API, each due 0.5 s after
// its create, to the --wake-url receiver. The attacker points an endpoint into the
// node's network (by address: refused when registered; by the name localhost: the
// wake and its redelivery refused at connect, the internal service never reached),
// floods calendars until refused, cancels 100,000 alarms by cursor, bounded calls
// each, and sends 16 MB batches, which are refused without the node's memory
// following them. Meanwhile every quiet alarm arrives, on time.
//
// The lateness bound is loose for a busy CI machine: it guards against the class of
// bug where one owner's abuse held the others' wakes back by seconds. The figures are
// logged; chronos bench --punctuality --punctuality-noise abuse measures them
// (docs/benchmarks.md).
//
// SQLite only: on PostgreSQL the 100,000 cancels alone take a minute and a half (each
// alarm is its own transaction), too long for the suite.
func TestTenantAbuse(t *testing.T) {
	t.Parallel()
	tenantAbuse(t, onSQLite)
}

const (
	abuseLatenessBound = 500 * time.Millisecond
	abuseBulkAlarms    = 100_000
	// abuseBodyGrowth bounds how much the node's peak memory may grow over three
	// 16 MB batches it refuses: together they are 50 MB of body, and a node that read
	// any of them whole would pass it.
	abuseBodyGrowth = 48 << 20
)

func tenantAbuse(t *testing.T, kind storeKind) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	ops := NewClient(t, CreateToken(t, store, "ops", "--admin"))
	evilToken := CreateToken(t, store, "tenant-evil")
	evil := NewClient(t, evilToken)
	quiet := NewClient(t, CreateToken(t, store, "tenant-quiet"))
	node := StartNode(t, "n1", NodeConfig{Store: store, WakeURL: recv.URL, Secret: e2eSecret}) // the default flags
	began := time.Now()

	trickle := startTrickle(quiet, node)

	// (d) 16 MB batches first, while the node does little else, so that its peak memory
	// is theirs: refused early (a 400 at the 1,001st item, a 413 at an item over a
	// create's limit or at the body's limit), the node's memory not following them.
	before := peakMemory(t, node)
	for _, b := range []struct {
		what   string
		body   []byte
		status int
	}{
		{"2,000 items of 8 KB", abuseBatch(2000, 8000), http.StatusBadRequest},
		{"one item of 16 MB", abuseBatch(1, 16<<20-200), http.StatusRequestEntityTooLarge},
		{"1,000 items of 17 KB", abuseBatch(1000, 17000), http.StatusRequestEntityTooLarge},
	} {
		start := time.Now()
		status, raw, err := rawCall(node, evilToken, http.MethodPost, "/v1/alarms/batch", bytes.NewReader(b.body))
		if err != nil {
			t.Fatalf("batch of %s: %v", b.what, err)
		}
		if status != b.status {
			t.Errorf("batch of %s (%d bytes): HTTP %d %s, want %d", b.what, len(b.body), status, raw, b.status)
		}
		t.Logf("batch of %s (%.1f MB): HTTP %d in %s", b.what, float64(len(b.body))/1e6, status, time.Since(start).Round(time.Millisecond))
	}
	after := peakMemory(t, node)
	t.Logf("the node's peak memory (VmHWM): %.1f MB before the batches, %.1f MB after", float64(before)/1e6, float64(after)/1e6)
	if after-before > abuseBodyGrowth {
		t.Errorf("three refused 16 MB batches raised the node's peak memory by %.1f MB, want under %d MB", float64(after-before)/1e6, abuseBodyGrowth>>20)
	}

	// (c) runs beside the rest: 100,000 alarms due far ahead, then cancelled by cursor.
	bulkDone := make(chan bulkOutcome, 1)
	go func() { bulkDone <- bulkCancel(node, evilToken) }()

	// (a) SSRF.
	internal, internalHits := internalService(t)
	port := internal.URL[strings.LastIndex(internal.URL, ":")+1:]
	for _, u := range []string{internal.URL + "/", "http://[::1]:" + port + "/", "http://2130706433:" + port + "/"} {
		body := fmt.Sprintf(`{"name":"probe","url":%q,"secrets":[%q]}`, u, e2eSecret)
		status, raw := ops.do(node, http.MethodPost, "/admin/v1/owners/tenant-evil/endpoints", body, nil)
		if status != http.StatusBadRequest || !strings.Contains(string(raw), `"field":"url"`) {
			t.Errorf("an endpoint at %s: HTTP %d %s, want 400 naming url", u, status, raw)
		}
	}
	byName := fmt.Sprintf(`{"name":"byname","url":"http://localhost:%s/","secrets":[%q]}`, port, e2eSecret)
	if status, raw := ops.do(node, http.MethodPost, "/admin/v1/owners/tenant-evil/endpoints", byName, nil); status != http.StatusCreated {
		t.Fatalf("an endpoint at localhost (a name, so accepted): HTTP %d %s", status, raw)
	}
	probe := evil.Create(node, `{"kind":"once","delay_seconds":0,"endpoint":"byname","label":"probe"}`)
	waitFor(t, 15*time.Second, "the probe's refusal", func() bool { return evil.Get(node, probe.ID).Status != "active" })
	if a := evil.Get(node, probe.ID); a.Status != "failed" || a.FailureCount != 1 || !strings.Contains(a.LastError, "egress refused") {
		t.Errorf("the probe: %s after %d failures, last_error %q; want failed at its first attempt, egress refused, not retried", a.Status, a.FailureCount, a.LastError)
	}
	var attempts struct {
		Attempts []struct {
			Error    string          `json:"error"`
			Status   *int            `json:"status"`
			Response json.RawMessage `json:"response"`
		} `json:"attempts"`
	}
	if status, raw := evil.do(node, http.MethodGet, "/v1/alarms/"+probe.ID+"/attempts", "", &attempts); status != http.StatusOK {
		t.Fatalf("the probe's attempts: HTTP %d %s", status, raw)
	}
	if len(attempts.Attempts) != 1 {
		t.Errorf("the probe has %d attempts, want 1 (a refusal is not retried)", len(attempts.Attempts))
	}
	for _, at := range attempts.Attempts {
		if !strings.Contains(at.Error, "egress refused") || at.Status != nil || (len(at.Response) > 0 && string(at.Response) != "null") {
			t.Errorf("the probe's attempt: error %q, status %v, response %s; want the refusal and no answer", at.Error, at.Status, at.Response)
		}
	}
	var redelivered struct {
		Redelivery struct {
			Delivered bool   `json:"delivered"`
			Error     string `json:"error"`
		} `json:"redelivery"`
	}
	if status, raw := evil.do(node, http.MethodPost, "/v1/alarms/"+probe.ID+"/redeliver", `{}`, &redelivered); status != http.StatusOK ||
		redelivered.Redelivery.Delivered || !strings.Contains(redelivered.Redelivery.Error, "egress refused") {
		t.Errorf("redelivering the probe: HTTP %d %s; want delivered false, egress refused", status, raw)
	}
	t.Logf("SSRF: the probe failed with %q", evil.Get(node, probe.ID).LastError)

	// (b) a calendar flood: calendars of the most entries until the owner's limit.
	var dates []string
	for i := range 1000 {
		dates = append(dates, time.Date(2030, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02"))
	}
	full := jsonString(map[string]any{"timezone": "UTC", "exclude_dates": dates})
	refusedAt := 0
	for i := 1; i <= 200 && refusedAt == 0; i++ {
		status, raw := evil.do(node, http.MethodPut, fmt.Sprintf("/v1/calendars/flood-%d", i), full, nil)
		switch {
		case status == http.StatusTooManyRequests && strings.Contains(string(raw), `"field":"name"`):
			refusedAt = i
		case status != http.StatusOK:
			t.Fatalf("calendar flood-%d: HTTP %d %s", i, status, raw)
		}
	}
	if refusedAt == 0 {
		t.Errorf("200 calendars of 1,000 dates each were all accepted; want a 429 naming name at the owner's limit")
	}
	tooMany := jsonString(map[string]any{"timezone": "UTC", "exclude_dates": append(dates, "2035-01-01")})
	if status, raw := evil.do(node, http.MethodPut, "/v1/calendars/flood-1", tooMany, nil); status != http.StatusBadRequest {
		t.Errorf("a calendar of 1,001 dates: HTTP %d %s, want 400", status, raw)
	}
	t.Logf("calendar flood: refused at calendar %d", refusedAt)

	bulk := <-bulkDone
	if bulk.err != nil {
		t.Fatalf("bulk: %v", bulk.err)
	}
	creates := trickle.stop()
	t.Logf("bulk: %d alarms created in %s, cancelled by %d calls in %s (each at most %d, the longest %s)", abuseBulkAlarms,
		bulk.created.Round(time.Millisecond), bulk.calls, bulk.cancelled.Round(time.Millisecond), bulk.most, bulk.longest.Round(time.Millisecond))
	if bulk.matched != abuseBulkAlarms || bulk.changed != abuseBulkAlarms {
		t.Errorf("the bulk cancel matched %d and changed %d, want %d each: every alarm cancelled exactly once", bulk.matched, bulk.changed, abuseBulkAlarms)
	}
	if bulk.most > 1000 || bulk.calls < abuseBulkAlarms/1000 {
		t.Errorf("the bulk cancel took %d calls of at most %d alarms; want calls bounded by --max-bulk-per-call (1,000)", bulk.calls, bulk.most)
	}

	// The quiet owner: every alarm arrived, on time.
	if trickle.err != nil {
		t.Fatalf("the quiet owner's creates: %v", trickle.err)
	}
	waitFor(t, 15*time.Second, "every quiet alarm", func() bool { return len(quietArrivals(recv, trickle.ids)) >= len(trickle.ids) })
	time.Sleep(time.Second) // a wake delivered twice arrives now
	var late []time.Duration
	seen := map[string]bool{}
	for _, d := range quietArrivals(recv, trickle.ids) {
		if seen[d.OccurrenceKey] {
			t.Errorf("quiet alarm %s delivered twice", d.AlarmID)
		}
		seen[d.OccurrenceKey] = true
		if !d.SignatureOK {
			t.Errorf("quiet alarm %s: bad signature", d.AlarmID)
		}
		late = append(late, d.Arrived.Sub(d.ScheduledFor))
	}
	if internalHits.Load() != 0 {
		t.Errorf("the internal service was reached %d times", internalHits.Load())
	}
	slices.Sort(late)
	slices.Sort(creates)
	p99 := late[(len(late)*99+99)/100-1]
	t.Logf("quiet owner on %s during the abuse (%s in all): %d wakes, lateness median %s, p99 %s, worst %s; creates median %s, p99 %s",
		kind, time.Since(began).Round(time.Second), len(late), late[len(late)/2].Round(time.Microsecond), p99.Round(time.Microsecond),
		late[len(late)-1].Round(time.Microsecond), creates[len(creates)/2].Round(time.Microsecond),
		creates[(len(creates)*99+99)/100-1].Round(time.Microsecond))
	if p99 > abuseLatenessBound {
		t.Errorf("the quiet owner's wakes: p99 lateness %s during the abuse, want under %s", p99, abuseLatenessBound)
	}
	stopAll(t, []*Node{node})
}

// trickle is the quiet owner's alarms: one created every 100 ms on the node, each due
// 0.5 s after its create, until stop.
type trickle struct {
	ids     map[string]bool
	creates []time.Duration
	err     error
	quit    chan struct{}
	done    chan struct{}
}

func startTrickle(c *Client, n *Node) *trickle {
	tr := &trickle{ids: map[string]bool{}, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(tr.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			start := time.Now()
			a, err := c.TryCreate(n, `{"kind":"once","delay_seconds":0.5,"label":"quiet"}`)
			if err != nil {
				tr.err = err
				return
			}
			tr.creates = append(tr.creates, time.Since(start))
			tr.ids[a.ID] = true
			select {
			case <-tr.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return tr
}

// stop ends the trickle and returns its creates' request times.
func (tr *trickle) stop() []time.Duration {
	close(tr.quit)
	<-tr.done
	return tr.creates
}

func quietArrivals(r *Receiver, ids map[string]bool) []Delivery {
	var out []Delivery
	for _, d := range r.Deliveries() {
		if ids[d.AlarmID] {
			out = append(out, d)
		}
	}
	return out
}

// internalService is a service on the node's loopback that answers what an attacker
// would like to read, and counts who reached it.
func internalService(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("internal: the database's password"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// abuseBatch is a batch body of n items, each with a payload of size bytes.
func abuseBatch(n, size int) []byte {
	item := `{"kind":"once","delay_seconds":3600,"payload":"` + strings.Repeat("x", size) + `"}`
	var b bytes.Buffer
	b.WriteString(`{"alarms":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// peakMemory is the node process's peak resident memory (VmHWM), in bytes.
func peakMemory(t *testing.T, n *Node) int64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.PID()))
	if err != nil {
		t.Fatalf("reading the node's memory: %v", err)
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// bulkOutcome is what the bulk cancel did.
type bulkOutcome struct {
	created, cancelled, longest time.Duration
	calls, most                 int
	matched, changed            int
	err                         error
}

// bulkCancel creates abuseBulkAlarms alarms due in a year, 1,000 a batch, then cancels
// them by label with POST /v1/alarms/bulk, going on by cursor while the answer says
// more. It runs beside the test's goroutine, so it returns its failure.
func bulkCancel(n *Node, token string) (out bulkOutcome) {
	start := time.Now()
	due := time.Now().Add(365 * 24 * time.Hour).UTC().Format(time.RFC3339)
	item := fmt.Sprintf(`{"kind":"once","fire_at":%q,"label":"bulk"}`, due)
	batch := `{"alarms":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`
	for range abuseBulkAlarms / 1000 {
		status, raw, err := rawCall(n, token, http.MethodPost, "/v1/alarms/batch", strings.NewReader(batch))
		if err != nil || status != http.StatusOK || strings.Contains(string(raw), `"error"`) {
			out.err = fmt.Errorf("creating the bulk's alarms: HTTP %d %.300s %v", status, raw, err)
			return out
		}
	}
	out.created = time.Since(start)
	start = time.Now()
	cursor := ""
	for {
		call := time.Now()
		body := jsonString(map[string]any{"filter": map[string]any{"label_prefix": "bulk"}, "action": "cancel", "cursor": cursor})
		status, raw, err := rawCall(n, token, http.MethodPost, "/v1/alarms/bulk", strings.NewReader(body))
		if err != nil || status != http.StatusOK {
			out.err = fmt.Errorf("bulk cancel call %d: HTTP %d %.300s %v", out.calls+1, status, raw, err)
			return out
		}
		out.longest = max(out.longest, time.Since(call))
		var res struct {
			Matched    int     `json:"matched"`
			Changed    int     `json:"changed"`
			More       bool    `json:"more"`
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			out.err = fmt.Errorf("bulk cancel: %s: %w", raw, err)
			return out
		}
		out.calls++
		out.most = max(out.most, res.Matched)
		out.matched += res.Matched
		out.changed += res.Changed
		if !res.More {
			break
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			out.err = fmt.Errorf("bulk cancel: more without a cursor: %s", raw)
			return out
		}
		cursor = *res.NextCursor
	}
	out.cancelled = time.Since(start)
	return out
}

var abuseHTTP = &http.Client{Timeout: 60 * time.Second}

// rawCall sends body to the node with token and returns the answer, for goroutines
// other than the test's and for bodies too large for a string.
func rawCall(n *Node, token, method, path string, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequest(method, "http://"+n.Addr+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := abuseHTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}
