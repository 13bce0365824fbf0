// Package pgtest runs, for a test, the PostgreSQL processes a production cluster puts
// around chronos: a PgBouncer in transaction pooling mode in front of a server
// (StartBouncer), a primary with a streaming standby of its own (NewCluster), and a
// server that accepts TLS connections only, with a CA the test makes (NewTLSServer).
// The store's tests and the e2e tests share it.
//
// PgBouncer and PostgreSQL refuse to run as root: when the test runs as root, they run
// as the user postgres, from a temporary directory that user owns. Without their
// executables a test is skipped, and fails under CI=true.
package pgtest

import (
	"os/exec"
	"testing"

	"github.com/chronoshq/chronos/internal/testdaemon"
)

// serverUser is the user the servers run as when the test runs as root.
const serverUser = "postgres"

// asServerUser makes cmd run as serverUser when the test runs as root, and everything
// under dir (the files the test wrote for it) that user's.
func asServerUser(t testing.TB, dir string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	return testdaemon.AsUser(t, serverUser, dir, cmd)
}
