package sqlstore

import (
	"context"
	"database/sql"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// StdTx runs fn in a transaction begun on db and commits it. An error from fn rolls the
// transaction back and comes back as it is; txErr maps the transaction's own errors
// (beginning, committing), and nil.
func StdTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error, txErr func(error) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return txErr(err)
	}
	if err := fn(tx); err != nil {
		// The error that matters is fn's, and a rollback that fails leaves nothing
		// behind (after a deadlock the server has rolled back already).
		_ = tx.Rollback()
		return err
	}
	return txErr(tx.Commit())
}

// SQLTx is a database/sql transaction as the engine's DB (what a dialect's Tx hands
// fn), keeping the *sql.Tx for the dialect's own prepared statements. Exec runs the
// statements ByText names (by their text) prepared, the others as DB runs them.
type SQLTx struct {
	DB
	Tx     *sql.Tx
	ByText map[string]*sql.Stmt
}

func (w SQLTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if st := w.ByText[query]; st != nil {
		return sqlrow.Affected(w.Tx.StmtContext(ctx, st).ExecContext(ctx, args...))
	}
	return w.DB.Exec(ctx, query, args...)
}

// EngineTx is a dialect's transaction runner (run: fn in one transaction, committed,
// run again when the database rolled it back) as the engine's Tx: fn gets each
// transaction as an SQLTx with byText.
func EngineTx(run func(ctx context.Context, fn func(*sql.Tx) error) error, byText map[string]*sql.Stmt) func(ctx context.Context, fn func(DB) error) error {
	return func(ctx context.Context, fn func(DB) error) error {
		return run(ctx, func(tx *sql.Tx) error { return fn(SQLTx{Std(tx), tx, byText}) })
	}
}
