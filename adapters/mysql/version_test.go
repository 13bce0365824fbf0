package mysql

import (
	"strings"
	"testing"
)

func TestServerVersion(t *testing.T) {
	cases := []struct {
		raw                 string
		mariaDB             bool
		major, minor, patch int
		supported           bool
	}{
		{"8.0.36", false, 8, 0, 36, true},
		{"8.4.0-0ubuntu0.24.04.1", false, 8, 4, 0, true},
		{"8.0.35-27", false, 8, 0, 35, true}, // Percona Server
		{"9.1.0-commercial", false, 9, 1, 0, true},
		{"5.7.44-log", false, 5, 7, 44, false},
		{"10.11.19-MariaDB-0+deb12u1", true, 10, 11, 19, true},
		{"10.6.0-MariaDB", true, 10, 6, 0, true},
		{"11.4.2-MariaDB-log", true, 11, 4, 2, true},
		{"5.5.5-10.6.12-MariaDB", true, 10, 6, 12, true}, // replication handshake prefix
		{"10.5.23-MariaDB-1:10.5.23+maria~ubu2004", true, 10, 5, 23, false},
		{"10.4.8-MariaDB", true, 10, 4, 8, false},
		{"8.0", false, 8, 0, 0, true},
	}
	for _, c := range cases {
		v, err := parseServerVersion(c.raw)
		if err != nil {
			t.Errorf("parseServerVersion(%q): %v", c.raw, err)
			continue
		}
		if v.MariaDB != c.mariaDB || v.Major != c.major || v.Minor != c.minor || v.Patch != c.patch {
			t.Errorf("parseServerVersion(%q) = %+v, want MariaDB=%v %d.%d.%d", c.raw, v, c.mariaDB, c.major, c.minor, c.patch)
		}
		err = v.check()
		if c.supported != (err == nil) {
			t.Errorf("check(%q) = %v, want supported=%v", c.raw, err, c.supported)
		}
		if err != nil && (!strings.Contains(err.Error(), c.raw) || !strings.Contains(err.Error(), v.String())) {
			t.Errorf("check(%q) = %q, want it to name the version found", c.raw, err)
		}
	}
}

func TestServerVersionUnreadable(t *testing.T) {
	for _, raw := range []string{"", "MariaDB", "vitess", "x8.0.1"} {
		if v, err := parseServerVersion(raw); err == nil {
			t.Errorf("parseServerVersion(%q) = %+v, want an error", raw, v)
		}
	}
}

// The server the tests run against is one the store accepts, and Open remembers it.
func TestOpenReadsServerVersion(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	if s.server.Major == 0 || s.server.check() != nil {
		t.Errorf("server = %+v", s.server)
	}
	t.Logf("server: %s (%q)", s.server, s.server.Raw)
}
