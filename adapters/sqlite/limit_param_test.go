package sqlite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// bareLimit is a LIMIT taking a bound parameter as it is.
var bareLimit = regexp.MustCompile(`LIMIT \?\d*(\s*[)\x60]|\s*$)`)

// Every LIMIT with a bound value takes it through an expression ("LIMIT ?4 + 0"). With
// a bare "LIMIT ?4" SQLite marks the statement to be prepared again whenever the bound
// value differs from the last one: the plain and fair claims (a 64-lane statement) then
// cost 6-7 ms of parsing each instead of 50 µs, since their limits change from claim to
// claim, which cut the steady rate SQLite holds several times over (docs/sqlite.md).
func TestNoBareLimitParameters(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if bareLimit.MatchString(line) {
				t.Errorf("%s:%d: a bare LIMIT parameter (write LIMIT ?N + 0): %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
