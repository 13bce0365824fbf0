package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/chronoshq/chronos/internal/storeurl"
)

// database is the throwaway database one bench run works in. The run never touches any
// database it did not create: it makes a new one on the server --store names, and
// drops it afterwards (unless --keep).
//
// Its connections are the bench's own (pgx, database/sql), not a store's, because no
// port does any of this: create or drop a database, read the server's commit counter,
// refresh statistics on demand (ports.Maintainer decides for itself whether upkeep is
// due, and does none where autovacuum runs), or report table sizes. Alarms never go
// through them: the run opens its stores with Wiring.Open.
type database struct {
	dialect string // sqlite, postgres or mysql
	url     string // store URL of the new database
	name    string // what to show: the database or file
	// commits reads the server's count of committed transactions that the comparison
	// uses; nil where the server keeps none (SQLite: the dispatchers' own counts are
	// used instead).
	commits       func(ctx context.Context) (int64, error)
	commitsSource string
	// analyze refreshes the planner's statistics after the load (PostgreSQL: and
	// vacuums), as autovacuum (or InnoDB's automatic statistics) would within a minute
	// on a real installation; nil where there is nothing to do.
	analyze func(ctx context.Context) error
	// sizes reads the space chronos's tables take (table sizes at the start and end
	// of a run, and every minute of a long one).
	sizes func(ctx context.Context) ([]tableSize, error)
	// meter reads the server's CPU and log counters for the run's costs.
	meter serverMeter
	drop  func(ctx context.Context) error
	close func()
}

// Short names for the local development databases, so `chronos bench --store
// postgres` works on a development machine as it is. Loopback PostgreSQL without TLS:
// pgx's default (sslmode=prefer) encrypts even on loopback, which cost the 2-core
// machine ~10% of a steady run's lag budget (docs/benchmarks.md) and measures the
// cipher, not chronos. A URL given in full keeps its own sslmode.
var storeShortcuts = map[string]string{
	"sqlite":   "sqlite://",
	"postgres": "postgres://root@127.0.0.1:5432/postgres?sslmode=disable",
	"mysql":    "mysql://root@127.0.0.1:3306/mysql",
	"mariadb":  "mysql://root@127.0.0.1:3306/mysql",
}

// newDatabase creates the run's database on the server of store.
func newDatabase(ctx context.Context, store string) (*database, error) {
	if full, ok := storeShortcuts[store]; ok {
		store = full
	}
	name := "chronos_bench_" + randomHex(4)
	scheme, _, _ := strings.Cut(store, ":")
	switch strings.ToLower(scheme) {
	case "sqlite":
		return newSQLiteDatabase(store, name)
	case "postgres", "postgresql":
		return newPostgresDatabase(ctx, store, name)
	case "mysql", "mariadb":
		return newMySQLDatabase(ctx, store, name)
	}
	return nil, fmt.Errorf("bench: --store %q: use sqlite, postgres, mysql, or a sqlite://, postgres:// or mysql:// URL", storeurl.Redact(store))
}

// newSQLiteDatabase makes a new file: in a temporary directory, or at the path the URL
// names, which must not exist yet.
func newSQLiteDatabase(store, name string) (*database, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(store, "sqlite:"), "//")
	var remove func() error
	if path == "" {
		dir, err := os.MkdirTemp("", "chronos-bench-")
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		path = filepath.Join(dir, name+".db")
		remove = func() error { return os.RemoveAll(dir) }
	} else {
		if _, err := os.Stat(path); err == nil {
			return nil, fmt.Errorf("bench: %s exists; the bench only creates new files (leave the path out for a temporary one)", path)
		}
		remove = func() error {
			var errs []error
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return &database{
		dialect: "sqlite", url: "sqlite://" + abs, name: abs,
		commitsSource: "dispatcher stats: claim + apply transactions",
		sizes:         func(ctx context.Context) ([]tableSize, error) { return sqliteSizes(ctx, abs) },
		drop:          func(context.Context) error { return remove() },
		close:         func() {},
	}, nil
}

// newPostgresDatabase creates a database on the server and counts commits with
// pg_stat_database.xact_commit of that database alone, read over a connection to the
// database the URL names (whose own queries count elsewhere).
func newPostgresDatabase(ctx context.Context, store, name string) (*database, error) {
	u, err := url.Parse(store)
	if err != nil {
		return nil, fmt.Errorf("bench: --store is not a URL: %w", errors.Unwrap(err))
	}
	admin, err := pgx.Connect(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("bench: connecting to %s: %w", storeurl.Redact(store), storeurl.RedactError(err, store))
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		return nil, fmt.Errorf("bench: creating database %s: %w", name, err)
	}
	u.Path = "/" + name
	return &database{
		dialect: "postgres", url: u.String(), name: "database " + name,
		commits: func(ctx context.Context) (int64, error) {
			var n int64
			err := admin.QueryRow(ctx, `SELECT xact_commit FROM pg_stat_database WHERE datname = $1`, name).Scan(&n)
			return n, err
		},
		commitsSource: "pg_stat_database.xact_commit of the bench database",
		analyze: func(ctx context.Context) error {
			c, err := pgx.Connect(ctx, u.String())
			if err != nil {
				return err
			}
			defer c.Close(context.WithoutCancel(ctx))
			// VACUUM, not ANALYZE: a load of a million rows would otherwise start
			// autovacuum's insert-triggered pass over the table in the middle of the
			// run. No statistics: the store's plans must not need them (they are the
			// same without; adapters/postgres TestPlansWithoutStatistics), and a
			// server with autovacuum off never has them.
			_, err = c.Exec(ctx, "VACUUM alarms, alarm_events")
			return err
		},
		sizes: func(ctx context.Context) ([]tableSize, error) { return postgresSizes(ctx, u.String()) },
		meter: serverMeter{
			cpu: func(ctx context.Context) (map[int]time.Duration, error) {
				rows, err := admin.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1`, name)
				if err != nil {
					return nil, err
				}
				pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
				if err != nil {
					return nil, err
				}
				return processesCPU(pids)
			},
			source: "the bench database's backends",
			wal: func(ctx context.Context) (n int64, err error) {
				err = admin.QueryRow(ctx, `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint`).Scan(&n)
				return n, err
			},
			walSource: "pg_current_wal_lsn, server-wide",
		},
		drop: func(ctx context.Context) error {
			_, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			return err
		},
		close: func() { _ = admin.Close(context.Background()) },
	}, nil
}

// newMySQLDatabase creates a database on the server. MySQL keeps no commit count per
// database, so the server-wide Com_commit is used: figures taken while anything else
// commits on the server are inflated by it (docs/benchmarks.md).
func newMySQLDatabase(ctx context.Context, store, name string) (*database, error) {
	u, err := url.Parse(store)
	if err != nil {
		return nil, fmt.Errorf("bench: --store is not a URL: %w", errors.Unwrap(err))
	}
	cfg := gomysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	port := u.Port()
	if port == "" {
		port = "3306"
	}
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(u.Hostname(), port)
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	admin := sql.OpenDB(c)
	admin.SetMaxOpenConns(1)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		admin.Close()
		return nil, fmt.Errorf("bench: creating database %s on %s: %w", name, storeurl.Redact(store), storeurl.RedactError(err, store))
	}
	u.Path = "/" + name
	return &database{
		dialect: "mysql", url: u.String(), name: "database " + name,
		commits: func(ctx context.Context) (int64, error) {
			var variable string
			var n int64
			err := admin.QueryRowContext(ctx, `SHOW GLOBAL STATUS LIKE 'Com_commit'`).Scan(&variable, &n)
			return n, err
		},
		commitsSource: "server-wide Com_commit (MySQL counts no commits per database)",
		analyze: func(ctx context.Context) error {
			_, err := admin.ExecContext(ctx, "ANALYZE TABLE "+name+".alarms, "+name+".alarm_events")
			return err
		},
		sizes: func(ctx context.Context) ([]tableSize, error) { return mysqlSizes(ctx, admin, name) },
		meter: serverMeter{
			cpu: func(ctx context.Context) (map[int]time.Duration, error) {
				var file string
				if err := admin.QueryRowContext(ctx, `SELECT @@pid_file`).Scan(&file); err != nil {
					return nil, err
				}
				b, err := os.ReadFile(file)
				if err != nil {
					return nil, err
				}
				pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil {
					return nil, err
				}
				return processesCPU([]int{pid})
			},
			source: "the whole server process, server-wide",
			wal: func(ctx context.Context) (int64, error) {
				var variable string
				var n int64
				err := admin.QueryRowContext(ctx, `SHOW GLOBAL STATUS LIKE 'Innodb_os_log_written'`).Scan(&variable, &n)
				return n, err
			},
			walSource: "Innodb_os_log_written, server-wide",
		},
		drop: func(ctx context.Context) error {
			_, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name)
			return err
		},
		close: func() { _ = admin.Close() },
	}, nil
}

// settledCommits reads the commit count until two readings 200ms apart agree (at most
// a few seconds): PostgreSQL backends publish their counts when they finish, not at
// once.
func (db *database) settledCommits(ctx context.Context) (int64, error) {
	prev, err := db.commits(ctx)
	if err != nil {
		return 0, err
	}
	for range 15 {
		time.Sleep(200 * time.Millisecond)
		n, err := db.commits(ctx)
		if err != nil {
			return 0, err
		}
		if n == prev {
			return n, nil
		}
		prev = n
	}
	return prev, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
