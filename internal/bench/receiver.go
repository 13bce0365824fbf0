package bench

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Receiver is the local webhook endpoint `chronos bench --waker webhook` delivers to.
// It checks every wake's signature with verify (a run passes webhook.Verify with the
// run's secret), refuses a bad one with 401 (the dispatcher then retries
// it, which the report shows as failures), and records good ones by their
// Idempotency-Key, so a double fire across any number of nodes is counted.
type Receiver struct {
	rec    *Recorder
	verify func(header string, body []byte) error
	bad    atomic.Int64
}

// NewReceiver records into rec; verify checks the Chronos-Signature header against the
// raw body.
func NewReceiver(rec *Recorder, verify func(header string, body []byte) error) *Receiver {
	return &Receiver{rec: rec, verify: verify}
}

// BadSignatures counts refused wakes.
func (r *Receiver) BadSignatures() int64 { return r.bad.Load() }

// ServeHTTP handles one wake.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	if err := r.verify(req.Header.Get("Chronos-Signature"), body); err != nil {
		r.bad.Add(1)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	key := req.Header.Get("Idempotency-Key")
	scheduled, ok := scheduledFor(body)
	if key == "" || !ok {
		r.bad.Add(1)
		http.Error(w, "wake without Idempotency-Key or scheduled_for", http.StatusBadRequest)
		return
	}
	var owner string
	if r.rec.TracksOwners() {
		owner, _ = field(body, ownerField)
	}
	r.rec.Record(key, owner, scheduled, at)
	w.WriteHeader(http.StatusNoContent)
}

var (
	scheduledField = []byte(`"scheduled_for":"`)
	ownerField     = []byte(`"owner":"`)
)

// scheduledFor reads the scheduled_for field of a wake body: a fixed-format RFC 3339
// string.
func scheduledFor(body []byte) (time.Time, bool) {
	v, ok := field(body, scheduledField)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// field reads a string field of the wake envelope without decoding the whole document
// (the payload may be large). The first match is the envelope's field: within a string
// (a label, the payload) every quote is escaped. The value is not unescaped: the bench's
// owners and timestamps need no escaping.
func field(body, name []byte) (string, bool) {
	i := bytes.Index(body, name)
	if i < 0 {
		return "", false
	}
	rest := body[i+len(name):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	return string(rest[:end]), true
}
