package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/chronoshq/chronos/adapters/mysql"
	"github.com/chronoshq/chronos/adapters/postgres"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/internal/storeurl"
	"github.com/chronoshq/chronos/ports"
)

// dialect knows how to open and migrate one kind of store URL.
type dialect struct {
	open    func(ctx context.Context, url string, o openOptions) (ports.Store, error)
	migrate func(ctx context.Context, url string) error
	// path is the file a URL names, for the dialects whose store is a file; nil
	// otherwise.
	path func(url string) (string, error)
	// backupTools names the database's own backup tools, for the dialects chronos
	// backup does not copy; "" for SQLite, which it does.
	backupTools string
}

// openOptions is how a store is opened: migrated first or not, and, for PostgreSQL
// behind a transaction pooler, the direct URL its wake hints listen on.
type openOptions struct {
	migrate   bool
	listenURL string
}

var dialects = map[string]dialect{
	"sqlite": {
		open: func(ctx context.Context, url string, o openOptions) (ports.Store, error) {
			clock, err := processClock()
			if err != nil {
				return nil, err
			}
			return sqlite.Open(ctx, url, sqlite.Options{Migrate: o.migrate, Clock: clock})
		},
		migrate: sqlite.Migrate,
		path:    sqlite.ParseURL,
	},
	"postgres": {
		open: func(ctx context.Context, url string, o openOptions) (ports.Store, error) {
			return postgres.Open(ctx, url, postgres.Options{Migrate: o.migrate, ListenURL: o.listenURL})
		},
		migrate:     postgres.Migrate,
		backupTools: "pg_dump for a copy, continuous WAL archiving (point-in-time recovery) to lose nothing between copies",
	},
	"mysql": {
		open: func(ctx context.Context, url string, o openOptions) (ports.Store, error) {
			return mysql.Open(ctx, url, mysql.Options{Migrate: o.migrate})
		},
		migrate:     mysql.Migrate,
		backupTools: "mysqldump --single-transaction (or mariadb-dump) for a copy, the binary log to lose nothing between copies",
	},
}

// dialectOf picks the dialect from the URL scheme.
func dialectOf(url string) (dialect, error) {
	scheme, _, ok := strings.Cut(url, ":")
	if !ok {
		return dialect{}, fmt.Errorf("store URL %q has no scheme; use sqlite://, postgres:// or mysql://", storeurl.Redact(url))
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		return dialects["sqlite"], nil
	case "postgres", "postgresql":
		return dialects["postgres"], nil
	case "mysql", "mariadb":
		return dialects["mysql"], nil
	}
	return dialect{}, fmt.Errorf("store URL scheme %q is not supported; use sqlite://, postgres:// or mysql://", scheme)
}

// isPostgresURL says whether url names a PostgreSQL store.
func isPostgresURL(url string) bool {
	scheme, _, _ := strings.Cut(url, ":")
	return strings.EqualFold(scheme, "postgres") || strings.EqualFold(scheme, "postgresql")
}

func openStore(ctx context.Context, url string, migrate bool) (ports.Store, error) {
	return openStoreWith(ctx, url, openOptions{migrate: migrate})
}

func openStoreWith(ctx context.Context, url string, o openOptions) (ports.Store, error) {
	d, err := dialectOf(url)
	if err != nil {
		return nil, err
	}
	s, err := d.open(ctx, url, o)
	if err != nil {
		return nil, fmt.Errorf("cannot open store %s: %w", storeurl.Redact(url), rootCause(storeurl.RedactError(err, url, o.listenURL)))
	}
	return s, nil
}

// openExistingStore is openStore for the commands other than serve and migrate: they
// work on the store a server runs on, so a store that does not exist yet is a wrong
// --store (or a command run from another directory), never one to create. Creating it
// would leave a new database behind and, for `token create`, print a token the running
// server answers with 401.
func openExistingStore(ctx context.Context, url string, migrate bool) (ports.Store, error) {
	if err := storeExists(url); err != nil {
		return nil, err
	}
	return openStore(ctx, url, migrate)
}

// storeExists refuses a SQLite URL whose file is missing. A PostgreSQL or MySQL
// database is never created by opening it: the server refuses a missing one itself.
func storeExists(url string) error {
	d, err := dialectOf(url)
	if err != nil || d.path == nil {
		return err
	}
	path, err := d.path(url)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return fmt.Errorf("store %s does not exist (no file %s): give the server's store with --store URL or CHRONOS_STORE; "+
			"only chronos serve and chronos migrate create a store", storeurl.Redact(url), path)
	}
	return nil
}

func migrateStore(ctx context.Context, url string) error {
	d, err := dialectOf(url)
	if err != nil {
		return err
	}
	if err := d.migrate(ctx, url); err != nil {
		return fmt.Errorf("cannot migrate store %s: %w", storeurl.Redact(url), rootCause(storeurl.RedactError(err, url)))
	}
	return nil
}
