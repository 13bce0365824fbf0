//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Gates sits in front of a Receiver and decides by a wake's payload: a wake whose
// payload is an object with "gate": NAME waits while that gate is held (so its alarm
// stays claimed, its wake in flight, for as long as a test needs), and one with
// "fail": true is answered 500 without reaching the receiver (so its alarm fails).
// Everything else goes straight to the receiver, which records it as usual.
type Gates struct {
	URL  string
	recv *Receiver

	mu      sync.Mutex
	held    map[string]chan struct{} // closed when the gate opens
	waiting map[string]int
}

func NewGates(t *testing.T, recv *Receiver) *Gates {
	g := &Gates{recv: recv, held: map[string]chan struct{}{}, waiting: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	g.URL = srv.URL
	t.Cleanup(func() {
		g.mu.Lock()
		for name, ch := range g.held {
			close(ch)
			delete(g.held, name)
		}
		g.mu.Unlock()
		srv.Close()
	})
	return g
}

// Hold closes gate name until Open; wakes naming it wait.
func (g *Gates) Hold(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.held[name]; !ok {
		g.held[name] = make(chan struct{})
	}
}

// Open lets every waiting and later wake naming the gate through.
func (g *Gates) Open(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ch, ok := g.held[name]; ok {
		close(ch)
		delete(g.held, name)
	}
}

// Waiting is how many wakes wait at gate name right now.
func (g *Gates) Waiting(name string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting[name]
}

// WaitFor waits until n wakes wait at gate name, failing the test after timeout.
func (g *Gates) WaitFor(t *testing.T, name string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for g.Waiting(name) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d wakes wait at gate %q after %s; want %d", g.Waiting(name), name, timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (g *Gates) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var wake struct {
		Payload json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(body, &wake)
	var says struct {
		Gate string `json:"gate"`
		Fail bool   `json:"fail"`
	}
	_ = json.Unmarshal(wake.Payload, &says) // a payload that is not an object says nothing
	if says.Fail {
		http.Error(w, "this alarm's wakes fail (test)", http.StatusInternalServerError)
		return
	}
	g.mu.Lock()
	ch, held := g.held[says.Gate]
	if held {
		g.waiting[says.Gate]++
	}
	g.mu.Unlock()
	if held {
		select {
		case <-ch:
		case <-req.Context().Done(): // the node gave up (delivery timeout) or died
		}
		g.mu.Lock()
		g.waiting[says.Gate]--
		g.mu.Unlock()
		if req.Context().Err() != nil {
			return
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	g.recv.serve(w, req)
}
