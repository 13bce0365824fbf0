package webhook

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestPrinterWritesOneLinePerWake(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out)
	a, b := sampleWake(), sampleWake()
	b.Attempt = 3
	if err := p.Wake(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := p.Wake(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	want := string(Body(a)) + "\n" + string(Body(b)) + "\n"
	if out.String() != want {
		t.Fatalf("printed:\n%s\nwant:\n%s", out.String(), want)
	}
}

// lineWriter records each Write call, so interleaving shows up as a broken line.
type lineWriter struct {
	mu     sync.Mutex
	writes []string
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, string(p))
	return len(p), nil
}

func TestPrinterIsSafeForConcurrentWakes(t *testing.T) {
	var out lineWriter
	p := NewPrinter(&out)
	want := string(Body(sampleWake())) + "\n"
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := p.Wake(context.Background(), sampleWake()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(out.writes) != 20 {
		t.Fatalf("%d writes for 20 wakes", len(out.writes))
	}
	for _, w := range out.writes {
		if w != want {
			t.Fatalf("write %q is not one whole line", w)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestPrinterReportsWriteErrors(t *testing.T) {
	err := NewPrinter(failingWriter{}).Wake(context.Background(), sampleWake())
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error = %v, want the write error", err)
	}
}
