//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// previousRelease is the commit the upgrade test builds as "the release before this
// one". chronos has no tags yet; this is issue 14's last commit, schema version 5:
// what follows it adds the series columns (migrations 00006) and endpoints (00007), so
// an upgrade from it runs every migration a database of that release needs. Move it
// forward when a release is tagged (keep it a commit CI's clone has: a full clone of
// main).
const previousRelease = "4c3898ad5e788db8a21b2539b0b32aef9b8d0b50"

// buildPrevious builds the chronos binary of previousRelease from this repository's
// history (git archive into a temporary directory, go build there) and returns its
// path; the directory is removed when t ends. Without git or the commit (a shallow
// clone, a source tarball) the test is skipped, saying so; with CI=true that fails.
func buildPrevious(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err == nil {
		err = exec.CommandContext(ctx, "git", "-C", strings.TrimSpace(string(root)), "cat-file", "-e", previousRelease+"^{commit}").Run()
	}
	if err != nil {
		msg := fmt.Sprintf("the previous release (commit %.12s) is not in this checkout's git history: %v", previousRelease, err)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI=true needs a full clone", msg)
		}
		t.Skip(msg + "; skipping")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.CommandContext(ctx, "git", "-C", strings.TrimSpace(string(root)), "archive", "--format=tar", previousRelease)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
	if untar.Stdin, err = archive.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	var archiveErr, untarErr strings.Builder
	archive.Stderr, untar.Stderr = &archiveErr, &untarErr
	if err := untar.Start(); err != nil {
		t.Fatalf("tar: %v", err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %.12s: %v: %s", previousRelease, err, archiveErr.String())
	}
	if err := untar.Wait(); err != nil {
		t.Fatalf("tar: %v: %s", err, untarErr.String())
	}

	bin := filepath.Join(dir, "chronos-previous")
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/chronos")
	build.Dir = src
	// Its own go.mod and go.sum, whatever workspace the test runs in.
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building chronos at %.12s: %v\n%s", previousRelease, err, out)
	}
	t.Logf("built the previous release (%.12s) in %s", previousRelease, time.Since(start).Round(100*time.Millisecond))
	return bin
}

// runChronos runs a chronos executable with args and returns its combined output,
// failing the test if it fails.
func runChronos(t *testing.T, bin string, timeout time.Duration, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("chronos %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
