package main

import (
	"bytes"
	"strings"
	"testing"
)

// The shell hands `chronos bench` to package bench: its options are listed, and bad ones
// are refused with bench's reasons before any database is made. (The runs themselves
// are tested in internal/bench.)
func TestBenchCommandIsWired(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := execute(t.Context(), []string{"bench", "-h"}, &out, &errOut); code != 0 {
		t.Fatalf("bench -h: exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"--store", "--find-knee", "--list-clients", "--via", "--noisy-owner", "--unfair-claims"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("bench -h does not list %s on stdout:\n%s", want, out.String())
		}
	}
	err := run(t.Context(), []string{"bench", "--store", "sqlite", "--nodes", "0"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--nodes must be at least 1") {
		t.Errorf("bench --nodes 0: %v", err)
	}
}
