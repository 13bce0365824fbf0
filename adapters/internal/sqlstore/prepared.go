package sqlstore

import (
	"context"
	"database/sql"
	"sync"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// Prepared is a database/sql pool as a DB that runs every statement text prepared,
// preparing it on first use: a store whose driver re-parses unprepared text each time
// (SQLite) keeps the parse off its hot paths. Closing the pool closes the statements.
func Prepared(db *sql.DB) DB { return &prepared{db: db, stmts: map[string]*sql.Stmt{}} }

type prepared struct {
	db    *sql.DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func (p *prepared) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.stmts[query]; ok {
		return st, nil
	}
	st, err := p.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	p.stmts[query] = st
	return st, nil
}

func (p *prepared) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	return sqlrow.Affected(st.ExecContext(ctx, args...))
}

func (p *prepared) QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

func (p *prepared) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	st, err := p.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	return stdRows{rows}, nil
}

// errRow is a row whose statement could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
