// Package e2e runs real chronos processes: it builds the binary once, starts a local
// receiver, and starts, kills and restarts `chronos serve` against one store. Every
// process it starts is stopped when the test ends, pass or fail.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binary is the chronos executable built for this test run.
var binary string

// TestMain builds the binary, or uses the one CHRONOS_E2E_BINARY names (to test a
// build made elsewhere, or a snapshot while the working tree does not compile).
func TestMain(m *testing.M) {
	if prebuilt := os.Getenv("CHRONOS_E2E_BINARY"); prebuilt != "" {
		binary = prebuilt
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "chronos-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "chronos")
	build := exec.Command("go", "build", "-o", binary, "github.com/chronoshq/chronos/cmd/chronos")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building chronos:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
