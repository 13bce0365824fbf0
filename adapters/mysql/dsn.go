package mysql

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// managedParams are driver settings the store depends on. A store URL may repeat them
// with the required value but never change them: a different value would break the
// store silently (times read back in the wrong zone, fences that never match).
var managedParams = map[string]string{
	// DATETIME columns scan into time.Time, read and written as UTC.
	"parseTime": "true",
	"loc":       "UTC",
	// One statement per query: a stray ';' in a value can never start a second one.
	"multiStatements": "false",
	// UPDATE reports matched rows, not changed rows, so "revoke a revoked token" and a
	// heartbeat within the same microsecond are found, not missing.
	"clientFoundRows": "true",
	// NOW() and friends in UTC. The store reads UTC_TIMESTAMP(6), which ignores the
	// session zone, but ad hoc SQL on these connections should agree with it.
	"time_zone": "'+00:00'",
}

// connConfig is a store URL, translated.
type connConfig struct {
	driver       *mysql.Config
	maxOpenConns int // pool_max_conns
}

// defaultMaxConns is the pool size when the URL does not set pool_max_conns: enough for
// the dispatcher's claim and apply and a little API traffic (docs/mysql.md).
func defaultMaxConns() int { return max(4, runtime.NumCPU()) }

// parseURL translates a store URL, mysql://user:password@host:port/dbname?params, into
// the driver's configuration and the pool size.
//
// The query may carry any go-sql-driver/mysql DSN parameter (tls, timeout,
// readTimeout, interpolateParams, ...) or session variable, with these rules:
//   - parseTime, loc, multiStatements, clientFoundRows and time_zone are managed: they
//     may only repeat the value the store needs.
//   - charset and collation must be utf8mb4 ones: labels and messages carry 4-byte
//     characters.
//   - interpolateParams defaults to true: a query with arguments is then one round
//     trip instead of prepare, execute and close. It is safe here because the
//     connection charset is always utf8mb4, where the driver's escaping is exact (the
//     driver itself refuses it under the multi-byte charsets where it is not).
//   - socket=/path connects over a Unix socket instead of host:port.
//   - ssl-mode, ssl-ca, ssl-cert and ssl-key set up TLS as MySQL's client does (tls.go);
//     the driver's tls parameter still works, but not with them.
//   - pool_max_conns=N caps the connections the store opens (default: the larger of 4
//     and the number of CPUs).
//
// The port defaults to 3306. The password never appears in an error.
func parseURL(raw string) (connConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password included: name only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return connConfig{}, fmt.Errorf("mysql: store URL: %w", err)
	}
	if u.Scheme != "mysql" {
		return connConfig{}, fmt.Errorf("mysql: store URL: scheme is %q, want mysql://user:password@host:port/dbname", u.Scheme)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	if dbName == "" || strings.Contains(dbName, "/") {
		return connConfig{}, fmt.Errorf("mysql: store URL: want exactly one database name in the path, got %q", u.Path)
	}
	query := u.Query()
	for name, want := range managedParams {
		if vs, ok := query[name]; ok && (len(vs) != 1 || vs[0] != want) {
			return connConfig{}, fmt.Errorf("mysql: store URL: %s=%s is not allowed: the store needs %s=%s", name, strings.Join(vs, ","), name, want)
		}
		query.Del(name)
	}
	for _, name := range []string{"charset", "collation"} {
		for _, v := range query[name] {
			for _, one := range strings.Split(v, ",") {
				if !strings.HasPrefix(strings.ToLower(one), "utf8mb4") {
					return connConfig{}, fmt.Errorf("mysql: store URL: %s=%s is not allowed: the store needs utf8mb4", name, v)
				}
			}
		}
	}
	socket := query.Get("socket")
	query.Del("socket")
	maxConns := defaultMaxConns()
	if query.Has("pool_max_conns") {
		n, err := strconv.Atoi(query.Get("pool_max_conns"))
		if err != nil || n < 1 {
			return connConfig{}, fmt.Errorf("mysql: store URL: pool_max_conns=%s: want a positive number", query.Get("pool_max_conns"))
		}
		maxConns = n
		query.Del("pool_max_conns")
	}
	ssl, err := takeTLSParams(query)
	if err != nil {
		return connConfig{}, err
	}
	if !query.Has("interpolateParams") {
		query.Set("interpolateParams", "true")
	}

	// The driver validates and applies its own parameters; user, password, address
	// and database name are set on the result, never pasted into a DSN string where
	// an '@' or '/' in a password would change its meaning.
	cfg, err := mysql.ParseDSN("/?" + query.Encode())
	if err != nil {
		return connConfig{}, fmt.Errorf("mysql: store URL parameters: %w", err)
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = dbName
	switch {
	case socket != "":
		cfg.Net, cfg.Addr = "unix", socket
	case u.Hostname() == "":
		return connConfig{}, errors.New("mysql: store URL: missing host (or socket=/path)")
	default:
		port := u.Port()
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(u.Hostname(), port)
	}
	switch {
	case cfg.TLSConfig != "":
		// ParseDSN built the driver's TLS configuration for its placeholder address, so
		// tls=true would check the certificate names 127.0.0.1: drop it, and the
		// connector builds it again for the real one.
		cfg.TLS = nil
	case ssl.mode != "":
		cfg.TLS, cfg.AllowFallbackToPlaintext, err = ssl.config(u.Hostname())
		if err != nil {
			return connConfig{}, err
		}
	}

	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.MultiStatements = false
	cfg.ClientFoundRows = true
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = managedParams["time_zone"]
	// Anything the store forgets to truncate is cut to the column's microseconds, never
	// rounded up by the server (MySQL rounds, MariaDB truncates).
	if err := cfg.Apply(mysql.TimeTruncate(time.Microsecond)); err != nil {
		return connConfig{}, fmt.Errorf("mysql: store URL: %w", err)
	}
	return connConfig{driver: cfg, maxOpenConns: maxConns}, nil
}
