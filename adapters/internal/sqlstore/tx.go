package sqlstore

import (
	"context"
	"database/sql"
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
