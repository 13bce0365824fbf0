package api_test

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// attemptsPage is GET .../attempts as a client reads it.
type attemptsPage struct {
	Attempts []struct {
		ID            int64   `json:"id"`
		Type          string  `json:"type"`
		At            string  `json:"at"`
		Attempt       int     `json:"attempt"`
		ScheduledFor  *string `json:"scheduled_for"`
		OccurrenceKey string  `json:"occurrence_key"`
		Node          string  `json:"node"`
		DurationMS    float64 `json:"duration_ms"`
		Status        *int    `json:"status"`
		Error         *string `json:"error"`
		Response      *struct {
			ContentType  string  `json:"content_type"`
			Body         *string `json:"body"`
			BodyEncoding string  `json:"body_encoding"`
			BodySize     int     `json:"body_size"`
			Truncated    bool    `json:"truncated"`
			Redacted     bool    `json:"redacted"`
			BodySHA256   string  `json:"body_sha256"`
		} `json:"response"`
	} `json:"attempts"`
	NextCursor string `json:"next_cursor"`
}

// attempted creates a once alarm of token's owner, due now, and records deliveries of
// it through the store as a dispatcher would: a 503 with a text body, a transport
// error, and a 200 with a binary body, in that order.
func (e *env) attempted(token string) alarmView {
	e.t.Helper()
	a := e.create(token, `{"kind":"once","delay_seconds":0,"max_failures":5}`)
	receipts := []struct {
		o domain.Outcome
		r domain.Receipt
	}{
		{domain.DeliveryFailed("HTTP 503"), domain.Receipt{Duration: 1500 * time.Microsecond, Status: 503, ContentType: "text/plain", Body: []byte("busy"), Truncated: true}},
		{domain.DeliveryFailed("webhook: connection refused"), domain.Receipt{Duration: 2 * time.Millisecond}},
		{domain.Delivered(), domain.Receipt{Duration: time.Millisecond, Status: 200, ContentType: "application/octet-stream", Body: []byte{0xff, 0}}},
	}
	for i, rc := range receipts {
		time.Sleep(5 * time.Millisecond) // the retry is due a millisecond after the failure
		c, err := e.store.ClaimDue(e.ctx, ports.ClaimParams{Worker: "api-test", Lease: time.Minute, Batch: 10})
		if err != nil || len(c.Alarms) != 1 {
			e.t.Fatalf("claiming %s (attempt %d): %v %d alarms", a.ID, i+1, err, len(c.Alarms))
		}
		o := rc.o
		o.Receipt = &rc.r
		t := domain.Decide(domain.Begin(c.Alarms[0], c.Now, domain.Policy{}), o, c.Now, domain.Policy{Backoff: domain.Backoff{Base: time.Millisecond, Cap: time.Millisecond}})
		if r, err := e.store.Apply(e.ctx, []domain.Transition{t}); err != nil || r.Applied != 1 {
			e.t.Fatalf("recording attempt %d of %s: %v %+v", i+1, a.ID, err, r)
		}
	}
	return a
}

// The owner reads its alarm's attempts newest first, each with its status or error,
// duration, node and the answer's body (text, or base64 when it is not UTF-8).
func TestAttemptsOfAnAlarm(t *testing.T) {
	e := newEnv(t)
	a := e.attempted(e.alice)
	res := e.as(e.alice, http.MethodGet, "/v1/alarms/"+a.ID+"/attempts", "")
	if res.status != http.StatusOK {
		t.Fatalf("GET attempts = %d %s", res.status, res.body)
	}
	var p attemptsPage
	decodeStrict(t, res, &p)
	if len(p.Attempts) != 3 || p.NextCursor != "" {
		t.Fatalf("attempts: %d, next %q; want 3, none", len(p.Attempts), p.NextCursor)
	}
	ok, refused, transport := p.Attempts[0], p.Attempts[2], p.Attempts[1]
	if ok.Type != "fired" || ok.Attempt != 3 || ok.Status == nil || *ok.Status != 200 || ok.Error != nil || ok.Node != "api-test" || ok.DurationMS != 1 {
		t.Errorf("the delivery = %+v", ok)
	}
	if r := ok.Response; r == nil || r.BodyEncoding != "base64" || r.Body == nil || *r.Body != base64.StdEncoding.EncodeToString([]byte{0xff, 0}) || r.Redacted {
		t.Errorf("the delivery's response = %+v, want its binary body in base64", r)
	}
	if transport.Status != nil || transport.Response != nil || transport.Error == nil || *transport.Error != "webhook: connection refused" || transport.DurationMS != 2 {
		t.Errorf("the transport failure = %+v, want no status or response, its error", transport)
	}
	if r := refused.Response; refused.Status == nil || *refused.Status != 503 || r == nil || r.Body == nil || *r.Body != "busy" ||
		r.BodyEncoding != "text" || !r.Truncated || r.ContentType != "text/plain" || refused.DurationMS != 1.5 || refused.OccurrenceKey == "" {
		t.Errorf("the refusal = %+v (response %+v)", refused, r)
	}

	// Pages of one, walked with the cursor, give the same attempts.
	var ids []int64
	for cursor, i := "", 0; i < 5; i++ {
		res := e.as(e.alice, http.MethodGet, "/v1/alarms/"+a.ID+"/attempts?limit=1&cursor="+cursor, "")
		var page attemptsPage
		decodeStrict(t, res, &page)
		for _, at := range page.Attempts {
			ids = append(ids, at.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(ids) != 3 || ids[0] != ok.ID || ids[2] != refused.ID {
		t.Errorf("pages of one walked %v, want %d, %d, %d", ids, ok.ID, transport.ID, refused.ID)
	}
}

// Another owner's alarm is not found; a bad limit or cursor is a 400 naming it.
func TestAttemptsErrors(t *testing.T) {
	e := newEnv(t)
	a := e.attempted(e.alice)
	expectError(t, e.as(e.bob, http.MethodGet, "/v1/alarms/"+a.ID+"/attempts", ""), http.StatusNotFound, "not_found", "")
	expectError(t, e.as(e.alice, http.MethodGet, "/v1/alarms/nope/attempts", ""), http.StatusNotFound, "not_found", "")
	for _, q := range []string{"limit=0", "limit=101", "limit=x"} {
		expectError(t, e.as(e.alice, http.MethodGet, "/v1/alarms/"+a.ID+"/attempts?"+q, ""), http.StatusBadRequest, "invalid_argument", "limit")
	}
	expectError(t, e.as(e.alice, http.MethodGet, "/v1/alarms/"+a.ID+"/attempts?cursor=nope", ""), http.StatusBadRequest, "invalid_argument", "cursor")
}

// The admin view shows any owner's attempts with their bodies redacted like payloads,
// unless the node shows payloads.
func TestAdminAttemptsRedactBodies(t *testing.T) {
	for _, show := range []bool{false, true} {
		e := newEnvWith(t, envOptions{showPayloads: show})
		a := e.attempted(e.alice)
		res := e.as(e.reader, http.MethodGet, "/admin/v1/alarms/"+a.ID+"/attempts", "")
		var p attemptsPage
		decodeStrict(t, res, &p)
		if len(p.Attempts) != 3 {
			t.Fatalf("show %v: %d attempts, want 3", show, len(p.Attempts))
		}
		r := p.Attempts[2].Response
		switch {
		case r == nil:
			t.Errorf("show %v: the refusal has no response", show)
		case !show && (r.Body != nil || !r.Redacted || r.BodySize != 4 || r.BodySHA256 == ""):
			t.Errorf("redacted: response %+v, want no body, its size and hash", r)
		case show && (r.Body == nil || *r.Body != "busy" || r.Redacted):
			t.Errorf("shown: response %+v, want the body", r)
		}
	}
}
