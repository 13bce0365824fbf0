package e2e

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
)

// Delivery is one wake as the receiver recorded it.
type Delivery struct {
	AlarmID       string          `json:"alarm_id"`
	OccurrenceKey string          `json:"occurrence_key"`
	Attempt       int             `json:"attempt"`
	ScheduledFor  time.Time       `json:"scheduled_for"`
	Payload       json.RawMessage `json:"payload"`
	Arrived       time.Time       `json:"-"`
	Via           string          `json:"-"` // the wake URL's path without "/": tests give each node its own
	SignatureOK   bool            `json:"-"`
	Status        int             `json:"-"` // what the receiver answered
}

// Receiver records every wake and answers 200, or 503 while failing.
type Receiver struct {
	URL     string
	secret  []byte
	srv     *httptest.Server
	failing atomic.Bool
	delay   atomic.Int64 // most time to think before answering, in nanoseconds
	mu      sync.Mutex
	got     []Delivery
}

func NewReceiver(t *testing.T, secret string) *Receiver {
	r := &Receiver{secret: []byte(secret)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var d Delivery
	_ = json.Unmarshal(body, &d)
	d.Arrived = time.Now()
	d.Via = strings.TrimPrefix(req.URL.Path, "/")
	d.SignatureOK = webhook.Verify(r.secret, req.Header.Get("Chronos-Signature"), body, d.Arrived, time.Minute) == nil &&
		req.Header.Get("Idempotency-Key") == d.OccurrenceKey
	d.Status = http.StatusOK
	if r.failing.Load() {
		d.Status = http.StatusServiceUnavailable
	}
	r.mu.Lock()
	r.got = append(r.got, d)
	r.mu.Unlock()
	if most := r.delay.Load(); most > 0 {
		time.Sleep(time.Duration(rand.Int64N(most)))
	}
	w.WriteHeader(d.Status)
}

// Think makes the receiver take up to most (uniformly random) to answer, like a real
// one, so that wakes are in flight when a node dies.
func (r *Receiver) Think(most time.Duration) { r.delay.Store(int64(most)) }

// Fail makes the receiver answer 503 until Recover.
func (r *Receiver) Fail()    { r.failing.Store(true) }
func (r *Receiver) Recover() { r.failing.Store(false) }

// Deliveries returns everything received so far.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// Acked returns the acknowledged deliveries of one alarm.
func (r *Receiver) Acked(alarmID string) []Delivery {
	var out []Delivery
	for _, d := range r.Deliveries() {
		if d.AlarmID == alarmID && d.Status == http.StatusOK {
			out = append(out, d)
		}
	}
	return out
}
