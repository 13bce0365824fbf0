package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The punctuality mode's noise (--punctuality-noise): while the quiet owner's trickle
// runs (one alarm every 100 ms over the API, each due noiseLead after its create),
// something else falls due noiseAfter into the run, and the report gives the quiet
// owner's lateness beside what the noise got:
//
//   - burst: another owner's --noise-alarms (default 30,000) alarms due at one instant
//     on the shared --wake-url;
//   - hung: another owner's endpoint that never answers, --noise-alarms (default
//     3,000) wakes due at one instant, the quiet owner's alarms to an endpoint of its
//     own that answers at once; both capped at --endpoint-max-in-flight, both with the
//     --delivery-timeout;
//   - sibling: the quiet owner's two endpoints, both capped, --noise-alarms (default
//     200) wakes due at one instant on each, one endpoint hanging; sibling-answering
//     is the same with both answering, the reference the hung one is compared to;
//   - abuse: another owner attacking the nodes for the whole trickle
//     (punctuality_abuse.go), over --noise-alarms (default 100,000) alarms of its own;
//   - none: the trickle alone, the reference the others are compared to.
const (
	noiseBurst            = "burst"
	noiseHung             = "hung"
	noiseSibling          = "sibling"
	noiseSiblingAnswering = "sibling-answering"
	noiseAbuse            = "abuse"
	noiseNone             = "none"

	noiseLead  = 500 * time.Millisecond
	noiseAfter = 5 * time.Second
	noiseOwner = "noisy"
	adminOwner = "bench-admin"

	fastEndpointName = "fast"
	hungEndpointName = "hung"
)

var noiseDefaults = map[string]int{noiseBurst: 30_000, noiseHung: 3_000, noiseSibling: 200, noiseSiblingAnswering: 200,
	noiseAbuse: 100_000, noiseNone: 0}

func (c *Config) validatePunctuality() []error {
	var errs []error
	if c.Duration <= 0 || c.NoisyOwner != 0 || c.HungEndpoint != 0 || c.Rate != 0 || c.FindKnee {
		errs = append(errs, fmt.Errorf("--punctuality takes a positive --duration and none of --rate, --find-knee, --noisy-owner, --hung-endpoint"))
	}
	if c.PunctualityNoise != "" {
		n, ok := noiseDefaults[c.PunctualityNoise]
		if !ok {
			errs = append(errs, fmt.Errorf("--punctuality-noise must be burst, hung, sibling, sibling-answering, abuse or none, got %q", c.PunctualityNoise))
		}
		if c.NoiseAlarms == 0 {
			c.NoiseAlarms = n
		}
		if c.NoiseAlarms < 1 && c.PunctualityNoise != noiseNone {
			errs = append(errs, fmt.Errorf("--noise-alarms must be at least 1, got %d", c.NoiseAlarms))
		}
	}
	return errs
}

// reachesLoopback says whether the noise's endpoints are receivers on loopback that the
// nodes must be allowed to reach (abuse's must not be: refusing them is its point).
func reachesLoopback(noise string) bool {
	return noise == noiseHung || noise == noiseSibling || noise == noiseSiblingAnswering
}

// noisePlan is what the noise loaded: when it is due, and which endpoint the quiet
// owner's alarms name ("" for the wake URL).
type noisePlan struct {
	due       time.Time
	quietEnds string
}

// loadNoise registers the endpoints the noise needs and creates its alarms, due at one
// instant noiseAfter from now.
func (p *punctualityRun) loadNoise(ctx context.Context, base, secret string) (noisePlan, error) {
	noise := p.cfg.PunctualityNoise
	plan := noisePlan{due: time.Now().Add(noiseAfter).Truncate(time.Second)}
	if plan.due.Before(time.Now().Add(3 * time.Second)) {
		plan.due = plan.due.Add(time.Second)
	}
	noisyToken, err := newOwnerToken(ctx, p.db.url, noiseOwner)
	if err != nil {
		return plan, err
	}
	spec := func(endpoint string) map[string]any {
		m := map[string]any{"kind": "once", "fire_at": plan.due.UTC().Format(time.RFC3339Nano), "label": "noise"}
		if endpoint != "" {
			m["endpoint"] = endpoint
		}
		return m
	}
	if reachesLoopback(noise) {
		admin, err := newOwnerToken(ctx, p.db.url, adminOwner, "--admin")
		if err != nil {
			return plan, err
		}
		hungOwner := noiseOwner
		if noise != noiseHung {
			hungOwner = punctualityOwner // the quiet owner's own second endpoint
		}
		hungPath := "/hung"
		if noise == noiseSiblingAnswering {
			hungPath = "/wake"
		}
		for _, e := range []struct{ owner, name, path string }{
			{punctualityOwner, fastEndpointName, "/wake"},
			{hungOwner, hungEndpointName, hungPath},
		} {
			body := map[string]any{"name": e.name, "url": base + e.path, "secrets": []string{secret},
				"timeout_seconds": p.cfg.DeliveryTimeout.Seconds(), "max_in_flight": p.cfg.EndpointMaxInFlight}
			if err := p.post(ctx, admin, "/admin/v1/owners/"+e.owner+"/endpoints", body); err != nil {
				return plan, err
			}
		}
		plan.quietEnds = fastEndpointName
		if noise == noiseHung {
			return plan, p.createMany(ctx, noisyToken, p.cfg.NoiseAlarms, spec(hungEndpointName))
		}
		// sibling: the quiet owner's two endpoints, each with its own wakes due at once.
		fast := spec(fastEndpointName)
		fast["label"] = "sibling:" + fastEndpointName
		if err := p.createMany(ctx, p.token, p.cfg.NoiseAlarms, fast); err != nil {
			return plan, err
		}
		hung := spec(hungEndpointName)
		hung["label"] = "sibling:" + hungEndpointName
		return plan, p.createMany(ctx, p.token, p.cfg.NoiseAlarms, hung)
	}
	return plan, p.createMany(ctx, noisyToken, p.cfg.NoiseAlarms, spec(""))
}

// createMany creates n copies of spec with POST /v1/alarms/batch, 500 a request.
func (p *punctualityRun) createMany(ctx context.Context, token string, n int, spec map[string]any) error {
	const per = 500
	for done := 0; done < n; done += per {
		items := make([]map[string]any, min(per, n-done))
		for i := range items {
			items[i] = spec
		}
		if err := p.post(ctx, token, "/v1/alarms/batch", map[string]any{"alarms": items}); err != nil {
			return err
		}
	}
	return nil
}

// post sends body to path on the first node with token and wants a 2xx.
func (p *punctualityRun) post(ctx context.Context, token, path string, body any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.nodes[0].addr+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("bench: POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode >= 300 {
		return fmt.Errorf("bench: POST %s answered %d: %s", path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	return nil
}

// hungHandler never answers a wake: it holds the request until the node gives up on it.
func hungHandler(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// noiseFigures is what the noise got, beside the quiet owner's lateness.
type noiseFigures struct {
	Kind   string `json:"kind"`
	Alarms int    `json:"alarms"`
	// Noise is the lateness of the noise's wakes that arrived (burst: all of them;
	// sibling: the answering endpoint's).
	Noise lateness `json:"noise"`
	// Abuse is what the attacker's requests got (abuse only).
	Abuse *abuseFigures `json:"abuse,omitempty"`
}
