package bench

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// A fire's costs divide what the counters moved by the fires: a server process that
// started during the run counts whole, one that ended is missing from both sums.
func TestCostsBetween(t *testing.T) {
	m := serverMeter{cpu: nil, source: "backends", walSource: "lsn"}
	m.wal = func(_ context.Context) (int64, error) { return 0, nil }
	from := costReading{node: 2 * time.Second, server: map[int]time.Duration{10: time.Second, 11: time.Second}, wal: 1000}
	to := costReading{node: 3 * time.Second, server: map[int]time.Duration{10: 1500 * time.Millisecond, 12: 500 * time.Millisecond}, wal: 1000 + 4_000_000}
	c := costsBetween(from, to, m, 1000)
	if c.NodeCPU != 1000 {
		t.Errorf("node CPU: %v µs a fire, want 1000", c.NodeCPU)
	}
	if c.DBCPU != 1000 || c.DBCPUSource != "backends" { // (1.5-1) + 0.5 s over 1000 fires
		t.Errorf("database CPU: %v µs a fire (%q), want 1000 (backends)", c.DBCPU, c.DBCPUSource)
	}
	if c.WAL != 4000 || c.WALSource != "lsn" {
		t.Errorf("log: %v bytes a fire (%q), want 4000 (lsn)", c.WAL, c.WALSource)
	}
	if costsBetween(from, to, m, 0) != nil {
		t.Error("no fires: costs, want none")
	}
	// A server nobody could read (SQLite, a remote one): the node's figure alone.
	if c := costsBetween(costReading{node: 0}, costReading{node: time.Second}, serverMeter{}, 10); c.DBCPUSource != "" || c.WALSource != "" {
		t.Errorf("no server counters: %+v, want the node's figure alone", c)
	}
}

// processCPU reads this process's CPU from /proc as getrusage sees it.
func TestProcessCPUReadsProc(t *testing.T) {
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) { // burn some CPU, a few clock ticks' worth
	}
	got, ok := processCPU(os.Getpid())
	if !ok {
		t.Fatal("processCPU of this process: not readable")
	}
	want := rusageCPU(syscall.RUSAGE_SELF)
	if got <= 0 || got > want+20*time.Millisecond || got < want-100*time.Millisecond {
		t.Errorf("processCPU = %v, getrusage says %v", got, want)
	}
	if _, ok := processCPU(1 << 30); ok {
		t.Error("a pid that does not exist: readable, want not")
	}
}
