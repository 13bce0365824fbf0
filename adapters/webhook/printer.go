package webhook

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Printer is the waker of `chronos serve --dev`: instead of POSTing, it writes each
// wake's body (the same JSON a receiver would get) as one line to out.
type Printer struct {
	mu  sync.Mutex
	out io.Writer
	buf []byte // reused line buffer, guarded by mu
}

var _ ports.Waker = (*Printer)(nil)

// NewPrinter returns a Printer writing to out.
func NewPrinter(out io.Writer) *Printer {
	return &Printer{out: out}
}

// Wake writes w as one JSON line. The line goes out in a single Write under a mutex, so
// concurrent wakes never interleave. It fails only when out refuses the write.
func (p *Printer) Wake(_ context.Context, w domain.Wake) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(AppendBody(p.buf[:0], w), '\n')
	if _, err := p.out.Write(p.buf); err != nil {
		return fmt.Errorf("webhook: print wake: %w", err)
	}
	return nil
}
