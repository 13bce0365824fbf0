package mysql

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// A transaction the server rolls back as a deadlock victim is run again and commits.
//
// The deadlock is real: the store's transaction locks row 1, another transaction locks
// rows 2..201 and waits for row 1, then the store's transaction asks for row 2. InnoDB
// rolls back the transaction with the least work done, the store's, whose second
// attempt waits for the other to commit and then succeeds.
func TestDeadlockVictimIsRetried(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	ctx := t.Context()
	mustExec(t, s.db, "CREATE TABLE scratch (id INT PRIMARY KEY, n INT NOT NULL)")
	mustExec(t, s.db, `INSERT INTO scratch (id, n)
		SELECT a.d * 100 + b.d * 10 + c.d + 1, 0 FROM `+digits+` a, `+digits+` b, `+digits+` c`)

	otherDone := make(chan error, 1)
	attempts := 0
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		attempts++
		if _, err := tx.ExecContext(ctx, "UPDATE scratch SET n = n + 1 WHERE id = 1"); err != nil {
			return err
		}
		if attempts == 1 {
			go func() { otherDone <- heavyTxWaitingFor(ctx, s.db) }()
			waitForLockWait(t, s.db, otherDone)
		}
		_, err := tx.ExecContext(ctx, "UPDATE scratch SET n = n + 1 WHERE id = 2")
		return err
	})
	if err != nil {
		t.Fatalf("inTx = %v, want the retried transaction to commit", err)
	}
	if err := <-otherDone; err != nil {
		t.Fatalf("the other transaction: %v", err)
	}
	if attempts != 2 || s.retries.Load() != 1 {
		t.Fatalf("attempts = %d, retries = %d; want the deadlock victim run once more", attempts, s.retries.Load())
	}
	var n1, n2 int
	if err := s.db.QueryRowContext(ctx, "SELECT (SELECT n FROM scratch WHERE id = 1), (SELECT n FROM scratch WHERE id = 2)").Scan(&n1, &n2); err != nil {
		t.Fatal(err)
	}
	// Each transaction incremented both rows once; the victim's first attempt left nothing.
	if n1 != 2 || n2 != 2 {
		t.Errorf("rows 1, 2 = %d, %d; want 2, 2", n1, n2)
	}
}

// heavyTxWaitingFor locks rows 2..201 (enough undo that InnoDB prefers to roll back the
// other party), then waits for row 1, then commits.
func heavyTxWaitingFor(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE scratch SET n = n + 1 WHERE id BETWEEN 2 AND 201"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, heavyWaitSQL); err != nil {
		return err
	}
	return tx.Commit()
}

// heavyWaitSQL is the statement heavyTxWaitingFor blocks on; its comment makes it easy
// to find in the process list.
const heavyWaitSQL = "UPDATE scratch SET n = n + 1 WHERE id = 1 /* heavy waits */"

// waitForLockWait returns once heavyTxWaitingFor is blocked on row 1. The process list
// is portable across MySQL and MariaDB (their lock-wait tables are not).
func waitForLockWait(t *testing.T, db *sql.DB, otherDone <-chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-otherDone:
			t.Fatalf("the other transaction ended before waiting for the lock: %v", err)
		default:
		}
		var waiting int
		err := db.QueryRowContext(t.Context(),
			"SELECT COUNT(*) FROM information_schema.processlist WHERE info = ?", heavyWaitSQL).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the other transaction never waited for the lock")
}

func TestRetryableErrors(t *testing.T) {
	s, _ := openTestStore(t, Options{})
	// A duplicate key is a real answer, not a transient failure.
	mustExec(t, s.db, "CREATE TABLE scratch (id INT PRIMARY KEY)")
	mustExec(t, s.db, "INSERT INTO scratch VALUES (1)")
	_, err := s.db.ExecContext(t.Context(), "INSERT INTO scratch VALUES (1)")
	if err == nil || retryable(err) || !serverErrorIs(err, erDupEntry) {
		t.Errorf("duplicate key: err = %v, retryable = %v; want a non-retryable 1062", err, retryable(err))
	}
	for d := 1; d <= 10; d++ {
		if got := retryDelay(d); got <= 0 || got > retryMaxGap {
			t.Errorf("retryDelay(%d) = %s, want within (0, %s]", d, got, retryMaxGap)
		}
	}
}

// digits is a derived table of 0..9, to generate rows with cross joins on any server.
const digits = `(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
	UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)`

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%.80s: %v", q, err)
	}
}
