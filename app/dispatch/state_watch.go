package dispatch

import (
	"context"
	"sync"
	"time"

	"github.com/chronoshq/chronos/ports"
)

// stateReader reads a cluster state value; a ports.Store is one.
type stateReader interface {
	GetState(ctx context.Context, name string) (ports.State, bool, error)
}

// stateWatch follows one cluster state value that every change of what it names moves
// (the endpoints, the calendars): a node keeps what it read of those until the value
// moves, and reads the value at most once per every, so a burst of wakes costs one
// small read a second, not one per wake.
type stateWatch struct {
	src   stateReader
	name  string
	every time.Duration

	mu      sync.Mutex
	version string
	checked time.Time
}

func newStateWatch(src stateReader, name string, every time.Duration) *stateWatch {
	return &stateWatch{src: src, name: name, every: every}
}

// moved reads the value when it is due and reports whether it moved since the last
// read. One caller reads at a time; the others go on with what they have. A failed
// read keeps what we have: the next look tries again.
func (w *stateWatch) moved(ctx context.Context) bool {
	w.mu.Lock()
	due := time.Since(w.checked) >= w.every
	if due {
		w.checked = time.Now()
	}
	w.mu.Unlock()
	if !due {
		return false
	}
	s, _, err := w.src.GetState(ctx, w.name)
	if err != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.Value == w.version {
		return false
	}
	w.version = s.Value
	return true
}

// current is the value last read: a cache filled from a read that began under another
// value must not keep it, since the change may postdate the read.
func (w *stateWatch) current() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version
}
