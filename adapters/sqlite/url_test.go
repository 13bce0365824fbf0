package sqlite

import (
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	good := []struct{ url, path string }{
		{"sqlite://chronos.db", "chronos.db"},
		{"sqlite://./chronos.db", "./chronos.db"},
		{"sqlite://data/chronos.db", "data/chronos.db"},
		{"sqlite:///var/lib/chronos/chronos.db", "/var/lib/chronos/chronos.db"},
		{"sqlite:///tmp/my%20alarms.db", "/tmp/my alarms.db"},
	}
	for _, c := range good {
		got, err := ParseURL(c.url)
		if err != nil || got != c.path {
			t.Errorf("ParseURL(%q) = %q, %v; want %q", c.url, got, err, c.path)
		}
	}

	bad := []struct{ url, says string }{
		{"", "not a SQLite store URL"},
		{"chronos.db", "not a SQLite store URL"},
		{"postgres://localhost/chronos", "not a SQLite store URL"},
		{"sqlite:chronos.db", "not a SQLite store URL"},
		{"sqlite::memory:", "in-memory"},
		{"sqlite://:memory:", "in-memory"},
		{"sqlite://file:x?mode=memory", "in-memory"},
		{"sqlite://", "names no database file"},
		{"sqlite:///", "names no database file"},
		{"sqlite:///var/lib/", "directory"},
		{"sqlite://chronos.db?_pragma=foo", "query parameters"},
		{"sqlite://chronos.db#x", "query parameters"},
		{"sqlite:///tmp/%zz.db", "percent-encoding"},
		{"sqlite:///tmp/a%3Fb.db", "must not contain"},
	}
	for _, c := range bad {
		got, err := ParseURL(c.url)
		if err == nil {
			t.Errorf("ParseURL(%q) = %q, want an error saying %q", c.url, got, c.says)
			continue
		}
		if !strings.HasPrefix(err.Error(), "sqlite: ") || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseURL(%q) error = %q, want it prefixed \"sqlite: \" and saying %q", c.url, err, c.says)
		}
	}
}
