package bench

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// hungReceiver is the hung-endpoint mode's receiver that never answers: it holds each
// wake until the node gives up on it (its delivery timeout) or the run ends (release),
// then answers 503. It counts the attempts, the alarms attempted (by Idempotency-Key:
// a retry of an occurrence carries the same key) and the most requests it held at
// once, which the endpoint's max_in_flight caps on each node.
type hungReceiver struct {
	release     chan struct{}
	releaseOnce sync.Once
	// A request older than timeout less a margin is one the node has given up on, if
	// the server has not yet seen its connection close: it is not counted as held when
	// the next one arrives.
	timeout time.Duration

	mu        sync.Mutex
	keys      map[string]struct{}
	attempts  int64
	held      map[int64]time.Time // the requests being held by number, with their arrival
	peakHeld  int64
	want      int64     // the alarms to attempt
	attempted time.Time // when the want-th alarm had its first attempt; zero until then
}

// heldMargin is how much sooner than its timeout a held request counts as given up.
const heldMargin = 10 * time.Millisecond

func newHungReceiver(want int64, timeout time.Duration) *hungReceiver {
	return &hungReceiver{release: make(chan struct{}), timeout: timeout, keys: map[string]struct{}{},
		held: map[int64]time.Time{}, want: want}
}

func (h *hungReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	// Read to the end: only then does the server watch the connection, and end the
	// request's context when the node gives up and closes it.
	_, _ = io.Copy(io.Discard, io.LimitReader(req.Body, 1<<20))
	n := h.arrived(req.Header.Get("Idempotency-Key"), at)
	select {
	case <-h.release:
	case <-req.Context().Done():
	}
	h.mu.Lock()
	delete(h.held, n)
	h.mu.Unlock()
	http.Error(w, "the hung endpoint answers only when the run ends", http.StatusServiceUnavailable)
}

// arrived counts one attempt, of the alarm whose occurrence key is key, held from at,
// and returns its number.
func (h *hungReceiver) arrived(key string, at time.Time) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.attempts++
	h.held[h.attempts] = at
	var held int64
	for _, from := range h.held {
		if at.Sub(from) < h.timeout-heldMargin {
			held++
		}
	}
	h.peakHeld = max(h.peakHeld, held)
	if _, seen := h.keys[key]; !seen {
		h.keys[key] = struct{}{}
		if int64(len(h.keys)) == h.want {
			h.attempted = at
		}
	}
	return h.attempts
}

// releaseAll answers every held wake, and every later one at once.
func (h *hungReceiver) releaseAll() { h.releaseOnce.Do(func() { close(h.release) }) }

// hungCounts is what the hung receiver counted.
type hungCounts struct {
	Attempts, Attempted int64
	// PeakHeld is the most requests held at once that the node was still waiting on.
	PeakHeld int64
	// AllAttempted is when every alarm had had an attempt; zero: not all had.
	AllAttempted time.Time
}

func (h *hungReceiver) counts() hungCounts {
	h.mu.Lock()
	defer h.mu.Unlock()
	return hungCounts{Attempts: h.attempts, Attempted: int64(len(h.keys)), PeakHeld: h.peakHeld, AllAttempted: h.attempted}
}
