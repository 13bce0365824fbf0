package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// transitionSet is the SET list of a transition: exactly the mutable columns the domain
// decided (domain.Transition), and the lease kept (?8 true) or released.
const transitionSet = `UPDATE alarms SET
	status = ?1, next_fire_at = ?2, scheduled_for = ?3, failure_count = ?4, last_error = ?5,
	last_fired_at = ?6, updated_at = ?7,
	claimed_by = CASE WHEN ?8 THEN claimed_by END,
	claimed_at = CASE WHEN ?8 THEN claimed_at END
	WHERE id = ?9`

// statements are prepared once on the writer and reused by every transaction (through
// tx.StmtContext), the hot path of a dispatcher applying batches.
type statements struct {
	// applyFenced applies a transition only while the row carries the worker's lease.
	// IS, not =, so a fence naming "no lease" compares correctly with NULL.
	applyFenced *sql.Stmt
	// applyUnfenced applies an owner action, already serialized by the write lock.
	applyUnfenced *sql.Stmt
}

func prepare(ctx context.Context, db *sql.DB) (statements, error) {
	var st statements
	var err error
	if st.applyFenced, err = db.PrepareContext(ctx, transitionSet+` AND claimed_by IS ?10 AND claimed_at IS ?11`); err != nil {
		return statements{}, mapError(fmt.Errorf("prepare: %w", err))
	}
	if st.applyUnfenced, err = db.PrepareContext(ctx, transitionSet); err != nil {
		st.close()
		return statements{}, mapError(fmt.Errorf("prepare: %w", err))
	}
	return st, nil
}

func (st statements) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.applyFenced, st.applyUnfenced} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}
