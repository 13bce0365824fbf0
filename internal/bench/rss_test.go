package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A node process the bench starts after it grew (a burn-down loads every alarm first)
// reports its own peak RSS, not the bench's: getrusage's ru_maxrss carried the
// parent's over the exec, and a worker once reported ~590 MiB with a heap of 131 MB.
func TestPeakRSSIsTheChildsOwn(t *testing.T) {
	if os.Getenv("CHRONOS_RSS_CHILD") != "" {
		fmt.Printf("peak=%d\n", peakRSS())
		os.Exit(0)
	}
	const grown = 256 << 20
	ballast := make([]byte, grown)
	for i := range ballast {
		ballast[i] = 1 // touched, so resident
	}
	if got := peakRSS(); got < grown {
		t.Fatalf("peakRSS() = %d MiB after touching %d MiB", got>>20, grown>>20)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSIsTheChildsOwn$")
	cmd.Env = append(os.Environ(), "CHRONOS_RSS_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	_, v, ok := strings.Cut(strings.TrimSpace(string(out)), "peak=")
	peak, perr := strconv.ParseInt(strings.Fields(v + " ")[0], 10, 64)
	if !ok || perr != nil {
		t.Fatalf("child said %q", out)
	}
	if peak <= 0 || peak >= grown/2 {
		t.Errorf("child's peakRSS() = %d MiB, started by a parent of %d MiB: not its own", peak>>20, grown>>20)
	}
	ballast[len(ballast)-1] = 2 // kept alive until the child has run
}
