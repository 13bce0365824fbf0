package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/chronoshq/chronos/adapters/mysql"
	"github.com/chronoshq/chronos/adapters/postgres"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/ports"
)

// dialect knows how to open and migrate one kind of store URL.
type dialect struct {
	open    func(ctx context.Context, url string, migrate bool) (ports.Store, error)
	migrate func(ctx context.Context, url string) error
}

var dialects = map[string]dialect{
	"sqlite": {
		open: func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
			clock, err := processClock()
			if err != nil {
				return nil, err
			}
			return sqlite.Open(ctx, url, sqlite.Options{Migrate: migrate, Clock: clock})
		},
		migrate: sqlite.Migrate,
	},
	"postgres": {
		open: func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
			return postgres.Open(ctx, url, postgres.Options{Migrate: migrate})
		},
		migrate: postgres.Migrate,
	},
	"mysql": {
		open: func(ctx context.Context, url string, migrate bool) (ports.Store, error) {
			return mysql.Open(ctx, url, mysql.Options{Migrate: migrate})
		},
		migrate: mysql.Migrate,
	},
}

// dialectOf picks the dialect from the URL scheme.
func dialectOf(url string) (dialect, error) {
	scheme, _, ok := strings.Cut(url, ":")
	if !ok {
		return dialect{}, fmt.Errorf("store URL %q has no scheme; use sqlite://, postgres:// or mysql://", redact(url))
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

func openStore(ctx context.Context, url string, migrate bool) (ports.Store, error) {
	d, err := dialectOf(url)
	if err != nil {
		return nil, err
	}
	s, err := d.open(ctx, url, migrate)
	if err != nil {
		return nil, fmt.Errorf("opening store %s: %w", redact(url), err)
	}
	return s, nil
}

func migrateStore(ctx context.Context, url string) error {
	d, err := dialectOf(url)
	if err != nil {
		return err
	}
	if err := d.migrate(ctx, url); err != nil {
		return fmt.Errorf("migrating store %s: %w", redact(url), err)
	}
	return nil
}

// redact hides a password in a store URL for messages and logs.
func redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return url
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return url
	}
	userinfo := rest[:at]
	if user, _, hasPass := strings.Cut(userinfo, ":"); hasPass {
		return scheme + "://" + user + ":xxxxx" + rest[at:]
	}
	return url
}
