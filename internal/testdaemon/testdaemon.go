// Package testdaemon is what the tests' throwaway servers (internal/pgtest's
// PostgreSQL and PgBouncer, internal/mysqltest's MariaDB) have in common: finding the
// executable, a spare loopback port, a directory the server's user may use, running
// as that user when the test runs as root (the servers refuse root), and stopping the
// process when the test ends.
package testdaemon

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Need returns the first of paths that is an executable, or skips (fails under
// CI=true) saying which Debian package provides it.
func Need(t testing.TB, what, pkg string, paths ...string) string {
	t.Helper()
	var err error
	for _, p := range paths {
		var bin string
		if bin, err = exec.LookPath(p); err == nil {
			return bin
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (CI=true requires it; apt-get install %s): %v", what, pkg, err)
	}
	t.Skipf("%s is not installed, skipping (apt-get install %s): %v", what, pkg, err)
	return ""
}

// SparePort is a loopback port nothing listens on right now.
func SparePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Dir is a new temporary directory the servers may use, removed when t ends. Not
// t.TempDir: its parent is private to the test's user, and the servers may run as
// another one.
func Dir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// AsUser makes cmd run as the user name when the test runs as root, and everything
// under dir (the files the test wrote for it) that user's.
func AsUser(t testing.TB, name, dir string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		return cmd
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("%s refuses to run as root, and there is no user %s to run it as: %v", filepath.Base(cmd.Path), name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// A server already running under dir (a primary while its standby is promoted)
	// creates and renames files of its own as the walk goes: one gone between the
	// listing and the chown is that server's, and already the user's.
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err == nil {
			err = os.Lchown(path, uid, gid)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Pdeathsig: a test binary killed outright (a timeout, ^C) runs no cleanup; the
	// daemon then dies with it instead of holding its port for the next run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
		Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(os.Environ(), "HOME="+dir, "LC_ALL=C")
	return cmd
}

// Start starts cmd and, when t ends, sends it SIGTERM and waits up to grace for it to
// exit before killing it. The channel receives Wait's result once the process exits.
func Start(t testing.TB, cmd *exec.Cmd, grace time.Duration) <-chan error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", filepath.Base(cmd.Path), err)
	}
	exited := make(chan error, 1)
	finished := make(chan struct{}) // closed on exit, whoever took the error
	go func() {
		exited <- cmd.Wait()
		close(finished)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-finished:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			<-finished
		}
	})
	return exited
}
