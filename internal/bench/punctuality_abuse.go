package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The abuse noise (--punctuality-noise abuse): for the whole of the quiet owner's
// trickle, owner noiseOwner attacks the nodes from one goroutine per attack, each
// sending its next request as soon as the last is answered:
//
//   - SSRF: an endpoint an admin registered at http://localhost:<receiver port>/internal
//     (a name, so accepted; the egress policy refuses it at connect), an alarm to it
//     created and an earlier one redelivered in turn;
//   - calendars: PUTs of calendars of the most entries, past the owner's limit (those
//     are refused), and previews of an every-minute series naming eight of them;
//   - bulk: over --noise-alarms alarms (default 100,000) created before the trickle,
//     due in a year, a dry run and a cancel in turn, each going on by cursor;
//   - batches of 16 MB: 2,000 items (refused at the 1,001st), one 16 MB item, 1,000
//     items of 17 KB (over the body's limit), in turn.
//
// The nodes run without --endpoint-allow-cidr: what an owner reaches is the default's.
const (
	abuseEndpoint  = "probe"
	abuseBulkLabel = "bulk"
	abuseCalendars = 120 // names cycled by the PUTs: past serve's default limit of 100
	abuseEntries   = 1000
	abusePath      = "/internal"
)

// abuseFigures is what the attacker's requests got, by attack.
type abuseFigures struct {
	// RegisterByAddress is the status of registering an endpoint at 127.0.0.1 (400).
	RegisterByAddress int `json:"register_by_address"`
	// InternalReached counts the requests that reached the receiver's /internal.
	InternalReached int64                     `json:"internal_reached"`
	Requests        map[string]map[string]int `json:"requests"` // attack → "status" → count
	BulkChanged     int                       `json:"bulk_changed"`
}

// abuse is the attack in progress.
type abuse struct {
	p       *punctualityRun
	token   string
	batches [][]byte

	mu          sync.Mutex
	requests    map[string]map[string]int
	probes      []string // the probe alarms created, to redeliver
	bulkChanged int
}

// loadAbuse registers the attacker's endpoint (and tries one at an address) and
// creates its --noise-alarms alarms for the bulk calls.
func (p *punctualityRun) loadAbuse(ctx context.Context, base string, figures *abuseFigures) (*abuse, error) {
	token, err := newOwnerToken(ctx, p.db.url, noiseOwner)
	if err != nil {
		return nil, err
	}
	admin, err := newOwnerToken(ctx, p.db.url, adminOwner, "--admin")
	if err != nil {
		return nil, err
	}
	port := base[strings.LastIndex(base, ":")+1:]
	secret := randomHex(16)
	byAddress := map[string]any{"name": "by-address", "url": base + abusePath, "secrets": []string{secret}}
	figures.RegisterByAddress, err = p.status(ctx, admin, http.MethodPost, "/admin/v1/owners/"+noiseOwner+"/endpoints", byAddress)
	if err != nil {
		return nil, err
	}
	byName := map[string]any{"name": abuseEndpoint, "url": "http://localhost:" + port + abusePath, "secrets": []string{secret}}
	if err := p.post(ctx, admin, "/admin/v1/owners/"+noiseOwner+"/endpoints", byName); err != nil {
		return nil, err
	}
	due := time.Now().Add(365 * 24 * time.Hour).UTC().Format(time.RFC3339)
	if err := p.createMany(ctx, token, p.cfg.NoiseAlarms, map[string]any{"kind": "once", "fire_at": due, "label": abuseBulkLabel}); err != nil {
		return nil, err
	}
	a := &abuse{p: p, token: token, requests: map[string]map[string]int{}}
	a.batches = [][]byte{abuseBatch(2000, 8000), abuseBatch(1, 16<<20-200), abuseBatch(1000, 17000)}
	return a, nil
}

// run attacks until ctx ends, one goroutine per attack.
func (a *abuse) run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, attack := range []func(context.Context){a.ssrf, a.calendars, a.bulk, a.bigBatches} {
		wg.Go(func() { attack(ctx) })
	}
	wg.Wait()
}

// figures fills in what the attack got.
func (a *abuse) figures(f *abuseFigures, internal int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f.Requests, f.BulkChanged, f.InternalReached = a.requests, a.bulkChanged, internal
}

func (a *abuse) ssrf(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		if i%2 == 0 || len(a.probes) == 0 {
			body := map[string]any{"kind": "once", "delay_seconds": 0, "endpoint": abuseEndpoint, "label": "probe"}
			raw := a.call(ctx, "ssrf create", http.MethodPost, "/v1/alarms", jsonBody(body))
			var out struct {
				Alarm struct {
					ID string `json:"id"`
				} `json:"alarm"`
			}
			if json.Unmarshal(raw, &out) == nil && out.Alarm.ID != "" {
				a.probes = append(a.probes, out.Alarm.ID)
			}
			continue
		}
		id := a.probes[rand.IntN(len(a.probes))]
		a.call(ctx, "ssrf redeliver", http.MethodPost, "/v1/alarms/"+id+"/redeliver", []byte(`{}`))
	}
}

func (a *abuse) calendars(ctx context.Context) {
	dates := make([]string, abuseEntries)
	for i := range dates {
		dates[i] = time.Date(2030, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	}
	full := jsonBody(map[string]any{"timezone": "UTC", "exclude_dates": dates})
	names := make([]string, 8)
	for i := range names {
		names[i] = fmt.Sprintf("flood-%d", i)
	}
	preview := jsonBody(map[string]any{"cron_expr": "* * * * *", "timezone": "UTC", "count": 100, "exclude_calendars": names})
	for i := 0; ctx.Err() == nil; i++ {
		if i%2 == 0 {
			a.call(ctx, "calendar put", http.MethodPut, fmt.Sprintf("/v1/calendars/flood-%d", (i/2)%abuseCalendars), full)
			continue
		}
		a.call(ctx, "calendar preview", http.MethodPost, "/v1/schedules/preview", preview)
	}
}

func (a *abuse) bulk(ctx context.Context) {
	for pass := 0; ctx.Err() == nil; pass++ {
		dryRun := pass%2 == 0
		what := "bulk cancel"
		if dryRun {
			what = "bulk dry run"
		}
		cursor := ""
		for ctx.Err() == nil {
			body := jsonBody(map[string]any{"filter": map[string]any{"label_prefix": abuseBulkLabel}, "action": "cancel",
				"dry_run": dryRun, "cursor": cursor})
			var out struct {
				Changed    int     `json:"changed"`
				More       bool    `json:"more"`
				NextCursor *string `json:"next_cursor"`
			}
			if err := json.Unmarshal(a.call(ctx, what, http.MethodPost, "/v1/alarms/bulk", body), &out); err != nil {
				break // refused (a 409 while another call holds the owner's bulk lease): a new pass
			}
			if !dryRun {
				a.mu.Lock()
				a.bulkChanged += out.Changed
				a.mu.Unlock()
			}
			if !out.More || out.NextCursor == nil {
				break
			}
			cursor = *out.NextCursor
		}
	}
}

func (a *abuse) bigBatches(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		a.call(ctx, "16 MB batch", http.MethodPost, "/v1/alarms/batch", a.batches[i%len(a.batches)])
	}
}

// call sends one of the attacker's requests to a random node, counts its answer under
// what, and returns the answer's body (nil when there was none).
func (a *abuse) call(ctx context.Context, what, method, path string, body []byte) []byte {
	n := a.p.nodes[rand.IntN(len(a.p.nodes))]
	req, _ := http.NewRequestWithContext(ctx, method, "http://"+n.addr+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	status := "error"
	var raw []byte
	if resp, err := abuseClient.Do(req); err == nil {
		raw, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		status = fmt.Sprint(resp.StatusCode)
	} else if ctx.Err() != nil {
		return nil // the run ended mid-request: not counted
	}
	a.mu.Lock()
	if a.requests[what] == nil {
		a.requests[what] = map[string]int{}
	}
	a.requests[what][status]++
	a.mu.Unlock()
	return raw
}

// abuseClient keeps the attacker's connections apart from the quiet owner's client.
var abuseClient = &http.Client{Timeout: time.Minute, Transport: http.DefaultTransport.(*http.Transport).Clone()}

// status sends body to path on the first node with token and returns the answer's
// status, whatever it is.
func (p *punctualityRun) status(ctx context.Context, token, method, path string, body any) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, method, "http://"+p.nodes[0].addr+path, bytes.NewReader(jsonBody(body)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("bench: %s %s: %w", method, path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func jsonBody(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// abuseBatch is a batch body of n items, each with a payload of size bytes.
func abuseBatch(n, size int) []byte {
	item := `{"kind":"once","delay_seconds":3600,"payload":"` + strings.Repeat("x", size) + `"}`
	var b bytes.Buffer
	b.Grow(n*(len(item)+1) + 16)
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

// internalHits counts the requests to the receiver's /internal: an attacker's endpoint
// points there, and the egress policy must keep every wake away from it.
type internalHits struct{ n atomic.Int64 }

func (h *internalHits) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.n.Add(1)
	_, _ = io.Copy(io.Discard, r.Body)
	_, _ = w.Write([]byte("internal: what an attacker would like to read"))
}
