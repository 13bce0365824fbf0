package sqlite

import (
	"fmt"
	"net/url"
	"strings"
)

// scheme prefixes every SQLite store URL.
const scheme = "sqlite://"

// ParseURL returns the database file path named by a store URL:
//
//	sqlite://chronos.db            relative to the working directory
//	sqlite://./data/chronos.db     relative, explicitly
//	sqlite:///var/lib/chronos.db   absolute (three slashes)
//
// The path may be percent-encoded (sqlite:///tmp/my%20alarms.db). Query parameters are
// refused rather than ignored: the connection settings are the adapter's to choose.
//
// In-memory databases (sqlite::memory:) are refused on purpose. chronos's store is
// durable by definition, and this adapter reads through a pool separate from its single
// writer, which a private :memory: database cannot share; shared-cache memory databases
// would trade SQLite's busy timeout for table-level SQLITE_LOCKED errors. Tests and
// throwaway runs use a file in a temporary directory instead.
func ParseURL(raw string) (string, error) {
	if strings.Contains(raw, ":memory:") || strings.Contains(raw, "mode=memory") {
		return "", fmt.Errorf("sqlite: %q: in-memory databases are not supported (the store must survive restarts); use a file such as sqlite:///tmp/chronos.db", raw)
	}
	if !strings.HasPrefix(raw, scheme) {
		return "", fmt.Errorf("sqlite: %q is not a SQLite store URL: want sqlite://relative/path.db or sqlite:///absolute/path.db", raw)
	}
	rest := strings.TrimPrefix(raw, scheme)
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return "", fmt.Errorf("sqlite: %q: query parameters and fragments are not supported", raw)
	}
	path, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("sqlite: %q: bad percent-encoding in the path: %w", raw, err)
	}
	switch {
	case path == "" || path == "/":
		return "", fmt.Errorf("sqlite: %q names no database file: want sqlite://relative/path.db or sqlite:///absolute/path.db", raw)
	case strings.HasSuffix(path, "/"):
		return "", fmt.Errorf("sqlite: %q names a directory, not a database file", raw)
	case strings.ContainsAny(path, "?\x00"):
		// The driver splits its DSN at the first '?', so a path holding one cannot be
		// passed through faithfully.
		return "", fmt.Errorf("sqlite: %q: the path must not contain '?' or NUL", raw)
	}
	return path, nil
}
