package mysql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// serverVersion is what SELECT VERSION() says about the server.
type serverVersion struct {
	Raw                 string
	MariaDB             bool
	Major, Minor, Patch int
}

// The claim needs FOR UPDATE SKIP LOCKED: MySQL 8.0 and MariaDB 10.6 are the first
// releases with it.
const (
	minMySQLMajor, minMySQLMinor     = 8, 0
	minMariaDBMajor, minMariaDBMinor = 10, 6
)

// versionNumber is the leading "major.minor[.patch]" of a version string.
var versionNumber = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?`)

// parseServerVersion reads the result of SELECT VERSION(): "8.0.36",
// "8.4.0-0ubuntu0.24.04.1", "10.11.19-MariaDB-0+deb12u1", "11.4.2-MariaDB-log". Old
// MariaDB replication handshakes prefix "5.5.5-" ("5.5.5-10.6.12-MariaDB"); that prefix
// is skipped so the real version is read.
func parseServerVersion(raw string) (serverVersion, error) {
	v := serverVersion{Raw: raw, MariaDB: strings.Contains(strings.ToLower(raw), "mariadb")}
	s := strings.TrimSpace(raw)
	if v.MariaDB {
		s = strings.TrimPrefix(s, "5.5.5-")
	}
	m := versionNumber.FindStringSubmatch(s)
	if m == nil {
		return serverVersion{}, fmt.Errorf("mysql: cannot read the server version from %q", raw)
	}
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		v.Patch, _ = strconv.Atoi(m[3])
	}
	return v, nil
}

// product is "MySQL" or "MariaDB".
func (v serverVersion) product() string {
	if v.MariaDB {
		return "MariaDB"
	}
	return "MySQL"
}

// String is "MariaDB 10.11.19".
func (v serverVersion) String() string {
	return fmt.Sprintf("%s %d.%d.%d", v.product(), v.Major, v.Minor, v.Patch)
}

// check refuses a server too old for the store, naming the version found.
func (v serverVersion) check() error {
	minMajor, minMinor := minMySQLMajor, minMySQLMinor
	if v.MariaDB {
		minMajor, minMinor = minMariaDBMajor, minMariaDBMinor
	}
	if v.Major > minMajor || v.Major == minMajor && v.Minor >= minMinor {
		return nil
	}
	return fmt.Errorf("mysql: server is %s (VERSION() = %q); chronos needs MySQL %d.%d+ or MariaDB %d.%d+, the first releases with FOR UPDATE SKIP LOCKED",
		v, v.Raw, minMySQLMajor, minMySQLMinor, minMariaDBMajor, minMariaDBMinor)
}
