// Package pgtest runs, for a test, the PostgreSQL processes a production cluster puts
// around chronos: a PgBouncer in transaction pooling mode in front of a server
// (StartBouncer), and a primary with a streaming standby of its own (NewCluster). The
// store's tests and the e2e tests share it.
//
// PgBouncer and PostgreSQL refuse to run as root: when the test runs as root, they run
// as the user postgres, from a temporary directory that user owns. Without their
// executables a test is skipped, and fails under CI=true.
package pgtest

import (
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// serverUser is the user the servers run as when the test runs as root.
const serverUser = "postgres"

// need returns the first of paths that is an executable, or skips (fails under
// CI=true) saying which package provides it.
func need(t testing.TB, what, pkg string, paths ...string) string {
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

// serverDir is a new temporary directory the servers may use, removed when t ends.
// Not t.TempDir: its parent is private to the test's user, and the servers may run as
// another one.
func serverDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// asServerUser makes cmd run as serverUser when the test runs as root, and everything
// under dir (the files the test wrote for it) that user's.
func asServerUser(t testing.TB, dir string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		return cmd
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		t.Fatalf("PostgreSQL's tools refuse to run as root, and there is no user %s to run them as: %v", serverUser, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	cmd.Env = append(os.Environ(), "HOME="+dir, "LC_ALL=C")
	return cmd
}
