package testdaemon

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestAsUserWhileAServerRenamesItsFiles: the failover test promotes a standby while
// the primary writes its data directory; a file the server creates and renames
// between the walk's listing and its chown must not fail the test.
func TestAsUserWhileAServerRenamesItsFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("AsUser changes owners only when the test runs as root")
	}
	dir := Dir(t, "chronos-asuser-")
	sub := filepath.Join(dir, "base")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	// Stopped before Dir's removal, also when AsUser fails.
	t.Cleanup(func() { close(stop); <-done })
	// A server's temp-file-then-rename, as fast as it goes.
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(sub, "pg_internal.init."+strconv.Itoa(i))
			if err := os.WriteFile(tmp, nil, 0o600); err == nil {
				_ = os.Rename(tmp, filepath.Join(sub, "pg_internal.init"))
			}
		}
	}()
	for range 300 {
		AsUser(t, "nobody", dir, exec.Command("true"))
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(sub)
	if err != nil {
		t.Fatal(err)
	}
	if uid := strconv.Itoa(int(info.Sys().(*syscall.Stat_t).Uid)); uid != nobody.Uid {
		t.Errorf("%s is owned by uid %s, not nobody's %s", sub, uid, nobody.Uid)
	}
}
