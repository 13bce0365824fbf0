// Package storetest is what the SQL stores' tests share besides the contract suite and
// the upgrade scenarios: reaching the test server, throwaway databases' names, the
// contract harness of a store that opens by where its database is, and reading rows
// back. Imported by tests only.
package storetest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io"
	"net/url"
	"os"
	"testing"

	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
)

// ServerURL is the test server's URL: the environment variable env, else def (the
// server every development and CI machine runs, DEVELOPERS.md).
func ServerURL(env, def string) string {
	if u := os.Getenv(env); u != "" {
		return u
	}
	return def
}

// Unreachable ends the test because the server what names cannot be reached (err): a
// failure under CI=true, which requires it, and a skip saying why everywhere else.
func Unreachable(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is unreachable (CI=true requires it): %v", what, err)
	}
	t.Skipf("%s is unreachable, skipping: %v", what, err)
}

// UniqueName is prefix and 12 random hex digits: a database or schema of a test's own.
func UniqueName(t testing.TB, prefix string) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return prefix + hex.EncodeToString(b[:])
}

// WithPath is serverURL naming the database name.
func WithPath(t testing.TB, serverURL, name string) string {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatalf("test server URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// WithQuery is storeURL with the query parameters of pairs (name, value, ...) set; an
// empty value removes the parameter.
func WithQuery(t testing.TB, storeURL string, pairs ...string) string {
	t.Helper()
	u, err := url.Parse(storeURL)
	if err != nil {
		t.Fatalf("store URL: %v", err)
	}
	q := u.Query()
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			q.Del(pairs[i])
		} else {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Opened is s, which Open returned with err, closed when t ends; an error fails t.
func Opened[S io.Closer](t testing.TB, s S, err error) S {
	t.Helper()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Count is the one integer q reads, such as a COUNT(*); an error fails t.
func Count(t testing.TB, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// Contract runs the store conformance suite on stores that open on a database D (a URL,
// or the URLs a store takes): each case's NewStore opens a migrated store on a database
// of its own from newDatabase, and Reopen a second store on the same one, as a second
// chronos process would. open opens a store on d (migrating it when migrate), closed
// when t ends.
func Contract[D any](t *testing.T, newDatabase func(t *testing.T) D,
	open func(t *testing.T, d D, clock ports.Clock, migrate bool) ports.Store) {
	contract.Run(t, func(t *testing.T) contract.Harness { return &harness[D]{newDatabase: newDatabase, open: open} })
}

type harness[D any] struct {
	newDatabase func(t *testing.T) D
	open        func(t *testing.T, d D, clock ports.Clock, migrate bool) ports.Store
	d           D
	made        bool
}

var _ contract.Reopener = (*harness[string])(nil)

func (h *harness[D]) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	h.d, h.made = h.newDatabase(t), true
	return h.open(t, h.d, clock, true)
}

func (h *harness[D]) Reopen(t *testing.T, clock ports.Clock) ports.Store {
	t.Helper()
	if !h.made {
		t.Fatal("Reopen before NewStore")
	}
	return h.open(t, h.d, clock, false)
}

// Asked is the value of env, which a long measurement runs only when it is set; unset,
// the test is skipped with how to ask for it: "set env=value to what".
func Asked(t testing.TB, env, value, what string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		t.Skipf("set %s=%s to %s", env, value, what)
	}
	return v
}
