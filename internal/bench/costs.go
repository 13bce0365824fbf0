package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// costs is what the run's fires cost the machine, per fire: CPU on chronos's side and
// on the database server's, and the bytes the server wrote to its write-ahead log. They
// are the inputs of docs/scaling.md. CPU time, unlike a rate, barely moves with the
// machine's speed of the day; the server-wide figures count whatever else the server
// did meanwhile, so they are taken with nothing else running.
type costs struct {
	// NodeCPU is the bench process's user + system CPU and its node processes' (its
	// in-process nodes, the receiver and the creator included), in microseconds a fire.
	NodeCPU float64 `json:"node_cpu_us_per_fire"`
	// DBCPU is the database server's, in microseconds a fire; DBCPUSource says whose
	// (0 and "" where it cannot be read: SQLite runs in the node, a remote server).
	DBCPU       float64 `json:"db_cpu_us_per_fire,omitempty"`
	DBCPUSource string  `json:"db_cpu_source,omitempty"`
	// WAL is the server's write-ahead log (PostgreSQL) or redo log (InnoDB) bytes a
	// fire, server-wide; WALSource says which counter.
	WAL       float64 `json:"wal_bytes_per_fire,omitempty"`
	WALSource string  `json:"wal_source,omitempty"`
}

// serverMeter reads a database server's cumulative counters for costs. Either func may
// be nil where the server offers nothing to read.
type serverMeter struct {
	// cpu is the CPU each of the server's processes that count has used so far, by
	// process id; source names them. Processes that ended since the first reading
	// are missing from the second, and their CPU with them.
	cpu    func(ctx context.Context) (map[int]time.Duration, error)
	source string
	// wal is the log position in bytes; walSource names it.
	wal       func(ctx context.Context) (int64, error)
	walSource string
}

// costReading is one reading of every counter costs uses.
type costReading struct {
	node   time.Duration
	server map[int]time.Duration
	wal    int64
}

// readNodeCPU adds this process's CPU and its reaped children's (the node processes,
// once stopped) to r.
func (r *costReading) readNodeCPU() {
	r.node = rusageCPU(syscall.RUSAGE_SELF) + rusageCPU(syscall.RUSAGE_CHILDREN)
}

// readServer reads the server's counters into r; a counter that cannot be read is left
// unset and the figure it feeds is left out.
func (r *costReading) readServer(ctx context.Context, m serverMeter) {
	if m.cpu != nil {
		r.server, _ = m.cpu(ctx)
	}
	if m.wal != nil {
		if n, err := m.wal(ctx); err == nil {
			r.wal = n
		}
	}
}

// costsBetween is what fires fires cost between two readings.
func costsBetween(from, to costReading, m serverMeter, fires int64) *costs {
	if fires <= 0 {
		return nil
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(fires) }
	c := &costs{NodeCPU: per(to.node - from.node)}
	if from.server != nil && to.server != nil {
		var used time.Duration
		for pid, t := range to.server {
			used += t - from.server[pid] // a process new since the first reading counts whole
		}
		c.DBCPU, c.DBCPUSource = per(used), m.source
	}
	if m.wal != nil && to.wal > from.wal {
		c.WAL, c.WALSource = float64(to.wal-from.wal)/float64(fires), m.walSource
	}
	return c
}

func (c *costs) rows(row func(k, format string, v ...any)) {
	db := "not read (SQLite's is the node's; another server's when it is not on this host)"
	if c.DBCPUSource != "" {
		db = fmt.Sprintf("%.1f µs (%s)", c.DBCPU, c.DBCPUSource)
	}
	row("CPU per fire: node / database", "%.1f µs / %s", c.NodeCPU, db)
	if c.WALSource != "" {
		row("log bytes per fire", "%.0f (%s)", c.WAL, c.WALSource)
	}
}

func rusageCPU(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux architecture Go runs on.
const clockTicks = 100

// processCPU is a process's user + system CPU from /proc/PID/stat; false when the
// process is not on this host or cannot be read.
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces: count the
	// fields after its closing one. utime and stime are fields 14 and 15.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+sys) * time.Second / clockTicks, true
}

// processesCPU reads processCPU of every pid; an error when none of them can be read
// (the server is elsewhere).
func processesCPU(pids []int) (map[int]time.Duration, error) {
	out := make(map[int]time.Duration, len(pids))
	for _, pid := range pids {
		if t, ok := processCPU(pid); ok {
			out[pid] = t
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: no server process readable in /proc")
	}
	return out, nil
}
