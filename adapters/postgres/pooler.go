package postgres

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A store URL with pooler=transaction goes through a pooler that hands each transaction
// (each statement outside one) to whichever server session is free, such as PgBouncer
// with pool_mode = transaction. Nothing may then rest on a session:
//
//   - no startup parameters beyond those the pooler knows: PgBouncer refuses the
//     connection ("unsupported startup parameter") otherwise, so the session settings
//     are not sent. They are required on the server instead, as the defaults of the
//     role in the database (checkPoolerSettings), where they reach every session the
//     pooler opens;
//   - no named prepared statements: statements are described once and run unnamed
//     (pgx's cache_describe mode), unless the URL sets default_query_exec_mode;
//   - no LISTEN: hints need a direct connection (Options.ListenURL), or are off;
//   - no session advisory locks: migrations lock through a table, maintenance vacuums
//     with SKIP_LOCKED.
//
// The parameter is chronos's own; it is taken out of the URL before pgx reads it.
const (
	poolerParam       = "pooler"
	transactionPooler = "transaction"
	execModeParam     = "default_query_exec_mode"
)

// parseStoreURL is parseURL that also says whether the URL goes through a transaction
// pooler.
func parseStoreURL(storeURL string) (cfg *pgxpool.Config, pooled bool, err error) {
	direct, pooled, execModeSet, err := takePoolerParam(storeURL)
	if err != nil {
		return nil, false, err
	}
	if cfg, err = parseDirectURL(direct); err != nil {
		return nil, false, err
	}
	if pooled {
		for name := range sessionSettings {
			delete(cfg.ConnConfig.RuntimeParams, name)
		}
		if !execModeSet {
			cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
		}
	}
	return cfg, pooled, nil
}

// takePoolerParam removes pooler=... from the URL's query, leaving every other byte of
// the URL as it was (a multi-host URL or an escaped password must reach pgx intact),
// and reports whether the URL sets default_query_exec_mode itself.
func takePoolerParam(storeURL string) (direct string, pooled, execModeSet bool, err error) {
	base, query, hasQuery := strings.Cut(storeURL, "?")
	if !hasQuery {
		return storeURL, false, false, nil
	}
	var kept []string
	for _, pair := range strings.Split(query, "&") {
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, nameErr := url.QueryUnescape(rawName)
		value, valueErr := url.QueryUnescape(rawValue)
		if nameErr != nil || valueErr != nil || name != poolerParam {
			kept = append(kept, pair)
			execModeSet = execModeSet || name == execModeParam
			continue
		}
		if value != transactionPooler {
			return "", false, false, fmt.Errorf("postgres: invalid store URL: %s=%q: the one pooler chronos knows is %q (PgBouncer's pool_mode = transaction); a session pooler needs no parameter",
				poolerParam, value, transactionPooler)
		}
		pooled = true
	}
	if len(kept) == 0 {
		return base, pooled, execModeSet, nil
	}
	return base + "?" + strings.Join(kept, "&"), pooled, execModeSet, nil
}

// checkPoolerSettings refuses a pooled store whose server sessions do not have the
// session settings: behind a transaction pooler the server's defaults for the role are
// the one place a setting reaches every session, and without them the claim plans
// sequential scans on a table never analyzed.
func checkPoolerSettings(ctx context.Context, pool *pgxpool.Pool) error {
	names := make([]string, 0, len(sessionSettings))
	for name := range sessionSettings {
		names = append(names, name)
	}
	sort.Strings(names)
	var database string
	if err := pool.QueryRow(ctx, `SELECT current_database()`).Scan(&database); err != nil {
		return mapError(err)
	}
	var missing []string
	for _, name := range names {
		var value string
		if err := pool.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&value); err != nil {
			return mapError(err)
		}
		if value != sessionSettings[name] {
			missing = append(missing, fmt.Sprintf("ALTER ROLE CURRENT_USER IN DATABASE %s SET %s = %s;",
				pgx.Identifier{database}.Sanitize(), name, sessionSettings[name]))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("postgres: the store URL has %s=%s, so chronos cannot set its planner settings per session; "+
		"set them on the server, then reconnect the pooler's server sessions (docs/postgres.md, \"PgBouncer\"): %s",
		poolerParam, transactionPooler, strings.Join(missing, " "))
}

// listenConfigFor is the connection hint listeners use: listenURL's when given (it must
// not go through a transaction pooler: a LISTEN there is lost with no error anywhere),
// else the store's own unless that is pooled; nil means no wake hints.
func listenConfigFor(store *pgxpool.Config, pooled bool, listenURL string) (*pgx.ConnConfig, error) {
	if listenURL == "" {
		if pooled {
			return nil, nil
		}
		return store.ConnConfig.Copy(), nil
	}
	cfg, listenPooled, err := parseStoreURL(listenURL)
	if err != nil {
		return nil, fmt.Errorf("%w (the listen URL)", err)
	}
	if listenPooled {
		return nil, fmt.Errorf("postgres: the listen URL has %s=%s: LISTEN needs a session of its own; give it a direct connection to the database",
			poolerParam, transactionPooler)
	}
	return cfg.ConnConfig, nil
}

// checkListenDatabase refuses a listener connection (from Options.ListenURL) on another
// database than the store's: NOTIFY stays within a database, so it would never hear a
// hint, and say nothing.
func (s *Store) checkListenDatabase(ctx context.Context, conn *pgx.Conn) error {
	if s.database == "" {
		return nil
	}
	var database string
	if err := conn.QueryRow(ctx, `SELECT current_database()`).Scan(&database); err != nil {
		return mapError(err)
	}
	if database != s.database {
		return fmt.Errorf("postgres: the listen URL reaches database %q, the store is in %q: hints are published in the store's database only",
			database, s.database)
	}
	return nil
}
