package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

const (
	quotaRefresh = 2 * time.Second
	onceBody     = `{"kind": "once", "delay_seconds": 3600}`
)

// newLimitsEnv is a server with a quota of maxActive and a rate of rate per token (0:
// off), both measuring time on a clock the test moves.
func newLimitsEnv(t *testing.T, maxActive, rate int) (*env, *manualClock) {
	t.Helper()
	clock := &manualClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	return newEnvWith(t, envOptions{maxActive: maxActive, quotaRefresh: quotaRefresh, rateLimit: rate,
		limitsClock: clock, metrics: true}), clock
}

// stored is how many alarms the owner has in the store, in any status.
func (e *env) stored(owner string) int {
	e.t.Helper()
	as, _, err := e.store.List(e.ctx, ports.ListFilter{Scope: ports.OwnedBy(owner), Limit: ports.MaxListLimit})
	if err != nil {
		e.t.Fatal(err)
	}
	return len(as)
}

// expectLimited asserts a 429 with code and a Retry-After of retry seconds.
func expectLimited(t *testing.T, res response, code, retry string) {
	t.Helper()
	expectError(t, res, http.StatusTooManyRequests, code, "")
	if got := res.header.Get("Retry-After"); got != retry {
		t.Errorf("Retry-After %q, want %q", got, retry)
	}
}

// refusals reads chronos_refusals_total{reason} from GET /metrics.
func (e *env) refusals(reason string) string {
	e.t.Helper()
	res := e.request("GET", "/metrics", "", nil)
	prefix := `chronos_refusals_total{reason="` + reason + `"} `
	for _, line := range strings.Split(string(res.body), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return v
		}
	}
	e.t.Fatalf("no %s in /metrics", prefix)
	return ""
}

// An owner at its quota gets 429 quota_exceeded on create, with Retry-After, and
// nothing is written; another owner is not held by it. A batch that would cross the
// quota is refused whole; one that fits is created. A backfill is a create too.
func TestQuotaRefusesCreatesOverIt(t *testing.T) {
	t.Parallel()
	e, _ := newLimitsEnv(t, 5, 0)
	series := e.create(e.alice, `{"kind": "cron", "cron_expr": "0 9 * * *"}`)
	for range 2 {
		e.create(e.alice, onceBody)
	}
	res := e.as(e.alice, "POST", "/v1/alarms/batch", `{"alarms": [`+strings.Repeat(onceBody+",", 2)+onceBody+`]}`)
	expectLimited(t, res, "quota_exceeded", "2")
	if n := e.stored("alice"); n != 3 {
		t.Fatalf("after a refused batch of 3 with 3 of 5: %d alarms stored, want 3 (nothing of the batch)", n)
	}
	if rs := e.batch(e.alice, onceBody, onceBody); rs[0].Alarm == nil || rs[1].Alarm == nil {
		t.Fatalf("a batch of 2 with 3 of 5: %+v, want both created", rs)
	}
	res = e.as(e.alice, "POST", "/v1/alarms", `{"kind": "cron", "cron_expr": "@hourly", "idempotency_key": "k"}`)
	expectLimited(t, res, "quota_exceeded", "2")
	day := time.Now().UTC().Truncate(24 * time.Hour)
	window := fmt.Sprintf(`{"from": %q, "to": %q}`, day.Add(-72*time.Hour).Format(time.RFC3339), day.Add(-24*time.Hour).Format(time.RFC3339))
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms/"+series.ID+"/backfill", window), "quota_exceeded", "2")
	if n := e.stored("alice"); n != 5 {
		t.Errorf("after a refused create and backfill at 5 of 5: %d alarms stored, want 5", n)
	}
	e.create(e.bob, onceBody) // bob's quota is his own
	if got := e.refusals("quota_exceeded"); got != "3" {
		t.Errorf("chronos_refusals_total{reason=quota_exceeded} = %s, want 3", got)
	}
}

// A batch larger than the whole quota can never be created: 429 quota_exceeded saying
// so, without a Retry-After (no wait makes it fit), and nothing written, on a fresh count
// and on a stale one alike.
func TestQuotaRefusesABatchLargerThanItWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	e, clock := newLimitsEnv(t, 5, 0)
	e.create(e.alice, onceBody)
	six := `{"alarms": [` + strings.Repeat(onceBody+",", 5) + onceBody + `]}`
	for _, when := range []string{"on a fresh count", "on a stale count"} {
		res := e.as(e.alice, "POST", "/v1/alarms/batch", six)
		ev := expectError(t, res, http.StatusTooManyRequests, "quota_exceeded", "")
		if got, sent := res.header["Retry-After"]; sent {
			t.Errorf("%s: Retry-After %q on a batch of 6 with a quota of 5, which no retry can create", when, got)
		}
		if !strings.Contains(ev.Message, "alone exceeds the quota") {
			t.Errorf("%s: message %q does not say the batch alone exceeds the quota", when, ev.Message)
		}
		if n := e.stored("alice"); n != 1 {
			t.Fatalf("%s: %d alarms stored, want 1 (nothing of the batch)", when, n)
		}
		clock.advance(quotaRefresh)
	}
}

// Room freed by a cancel is seen within one refresh interval of the count (the honest
// bound: before it, the node still holds its count); a paused series keeps counting.
func TestQuotaFreedWithinTheRefresh(t *testing.T) {
	t.Parallel()
	e, clock := newLimitsEnv(t, 2, 0)
	series := e.create(e.alice, `{"kind": "cron", "cron_expr": "@hourly"}`)
	once := e.create(e.alice, onceBody)
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "quota_exceeded", "2")

	if res := e.act(e.alice, "pause", series.ID); res.status != http.StatusOK {
		t.Fatalf("pause: %d %s", res.status, res.body)
	}
	if res := e.as(e.alice, "DELETE", "/v1/alarms/"+once.ID, ""); res.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.status, res.body)
	}
	clock.advance(quotaRefresh / 2)
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "quota_exceeded", "1")
	clock.advance(quotaRefresh / 2)
	e.create(e.alice, onceBody) // the cancelled one's room; the paused series still counts
	if n := e.stored("alice"); n != 3 {
		t.Fatalf("%d alarms stored, want 3 (the series, the cancelled one, the new one)", n)
	}
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "quota_exceeded", "2")
	if n := e.stored("alice"); n != 3 {
		t.Errorf("after a refused create: %d alarms stored, want 3", n)
	}
}

// A token may make 2N requests at once, then N a second; the next is 429 rate_limited
// with Retry-After, and writes nothing. Other tokens, admin tokens on /admin/v1
// included, have their own buckets; health, metrics, the document and refused tokens
// are not paced.
func TestRateLimitPerToken(t *testing.T) {
	t.Parallel()
	e, clock := newLimitsEnv(t, 0, 2)
	for i := range 4 {
		if res := e.as(e.alice, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
			t.Fatalf("request %d of the burst of 4: %d %s", i+1, res.status, res.body)
		}
	}
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "rate_limited", "1")
	if n := e.stored("alice"); n != 0 {
		t.Errorf("a rate-limited create stored %d alarms, want 0", n)
	}
	for i := range 4 {
		if res := e.as(e.bob, "POST", "/v1/alarms", onceBody); res.status != http.StatusCreated {
			t.Fatalf("bob's request %d: %d %s, want his own burst", i+1, res.status, res.body)
		}
		if res := e.as(e.ops, "GET", "/admin/v1/alarms", ""); res.status != http.StatusOK {
			t.Fatalf("the admin's request %d: %d %s, want its own burst", i+1, res.status, res.body)
		}
	}
	expectLimited(t, e.as(e.ops, "GET", "/admin/v1/overview", ""), "rate_limited", "1")
	for range 10 {
		for _, path := range []string{"/healthz", "/readyz", "/openapi.json", "/metrics"} {
			if res := e.request("GET", path, "", nil); res.status != http.StatusOK {
				t.Fatalf("GET %s: %d, want 200 (not paced)", path, res.status)
			}
		}
		expectError(t, e.as("chr_not_a_token", "GET", "/v1/alarms", ""), http.StatusUnauthorized, "unauthenticated", "")
	}

	clock.advance(time.Second) // two more
	for i := range 2 {
		if res := e.as(e.alice, "GET", "/v1/alarms", ""); res.status != http.StatusOK {
			t.Fatalf("a second later, request %d of 2: %d %s", i+1, res.status, res.body)
		}
	}
	expectLimited(t, e.as(e.alice, "GET", "/v1/alarms", ""), "rate_limited", "1")
	if got := e.refusals("rate_limited"); got != "3" {
		t.Errorf("chronos_refusals_total{reason=rate_limited} = %s, want 3", got)
	}
}

// 0 turns each limit off: well past a small quota's and a small rate's worth, nothing
// is refused.
func TestLimitsOff(t *testing.T) {
	t.Parallel()
	e, _ := newLimitsEnv(t, 0, 0)
	for i := range 60 {
		if res := e.as(e.alice, "POST", "/v1/alarms", onceBody); res.status != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i+1, res.status, res.body)
		}
	}
	if rs := e.batch(e.alice, strings.Split(strings.Repeat(onceBody+"\n", 100), "\n")[:100]...); len(rs) != 100 {
		t.Fatalf("a batch of 100: %d results", len(rs))
	}
	if n := e.stored("alice"); n != 160 {
		t.Errorf("%d alarms stored, want 160", n)
	}
	for _, reason := range []string{"quota_exceeded", "rate_limited"} {
		if got := e.refusals(reason); got != "0" {
			t.Errorf("chronos_refusals_total{reason=%s} = %s, want 0", reason, got)
		}
	}
}

// The quota and the rate limit together: a create refused for its rate is not held
// against the quota, and one refused by the quota still spends a request.
func TestQuotaAndRateTogether(t *testing.T) {
	t.Parallel()
	e, clock := newLimitsEnv(t, 1, 1)
	e.create(e.alice, onceBody)
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "quota_exceeded", "2")
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "rate_limited", "1")
	clock.advance(time.Second)
	expectLimited(t, e.as(e.alice, "POST", "/v1/alarms", onceBody), "quota_exceeded", "1")
	if n := e.stored("alice"); n != 1 {
		t.Errorf("%d alarms stored, want 1", n)
	}
	if q, r := e.refusals("quota_exceeded"), e.refusals("rate_limited"); q != "2" || r != "1" {
		t.Errorf("refusals: quota %s, rate %s; want 2 and 1", q, r)
	}
}
