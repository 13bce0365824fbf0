package sqlstore

import (
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // a real database under the cache: SQLite in memory
)

// memoryDB is a private in-memory SQLite database, one connection per pool so that
// every statement sees the tables the test made.
func memoryDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+t.Name()+"?mode=memory&cache=private")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func scanInt(t *testing.T, p *PreparedDB, q string) int {
	t.Helper()
	var n int
	if err := p.QueryRow(t.Context(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// A text is prepared at its After-th call, at most Max are held, and the least recently
// used is let go to make room: it runs as text again, and is prepared again at its next
// After-th call.
func TestPreparedHoldsTheMostRecentlyUsedTexts(t *testing.T) {
	p := Prepared(memoryDB(t), PreparedOptions{Max: 2, After: 2})
	defer p.Close()
	call := func(q string, wantRuns int64) {
		t.Helper()
		runs := p.Runs()
		want, _ := strings.CutPrefix(q, "SELECT ")
		if got := scanInt(t, p, q); fmt.Sprint(got) != want {
			t.Fatalf("%s = %d", q, got)
		}
		if got := p.Runs() - runs; got != wantRuns {
			t.Fatalf("%s ran prepared %d times, want %d", q, got, wantRuns)
		}
	}
	call("SELECT 1", 0) // first call: as text
	call("SELECT 1", 1) // second: prepared
	call("SELECT 2", 0)
	call("SELECT 2", 1)
	call("SELECT 1", 1) // 1 used last: 2 is the least recent
	call("SELECT 3", 0)
	call("SELECT 3", 1) // 2 let go
	if p.Held() != 2 {
		t.Errorf("Held() = %d, want Max = 2", p.Held())
	}
	call("SELECT 1", 1)
	call("SELECT 3", 1)
	call("SELECT 2", 0) // let go: as text again
	call("SELECT 2", 1) // and prepared again: 1, used before 3, is let go
	call("SELECT 3", 1)
	call("SELECT 1", 0)
}

// Calls that share texts while others push them out of the cache never meet a closed
// statement: the last call holding a let-go statement closes it.
func TestPreparedLetsGoOfStatementsInUse(t *testing.T) {
	one := Prepared(memoryDB(t), PreparedOptions{Max: 1, After: 1})
	defer one.Close()
	st, release := one.take(t.Context(), "SELECT 1")
	if st == nil {
		t.Fatal("SELECT 1 was not prepared at its first call")
	}
	scanInt(t, one, "SELECT 2") // lets SELECT 1 go while st is taken
	if err := st.QueryRowContext(t.Context()).Scan(new(int)); err != nil {
		t.Fatalf("a taken statement let go meanwhile: %v", err)
	}
	release()
	if err := st.QueryRowContext(t.Context()).Scan(new(int)); err == nil {
		t.Error("a statement let go still runs after its last release: it was never closed")
	}

	db := memoryDB(t)
	db.SetMaxOpenConns(4)
	p := Prepared(db, PreparedOptions{Max: 2, After: 1})
	defer p.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				q := fmt.Sprintf("SELECT %d", (g+i)%5)
				rows, err := p.Query(t.Context(), q)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", q, err)
					return
				}
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
				if err != nil {
					errs <- fmt.Errorf("%s: %w", q, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if p.Runs() == 0 {
		t.Error("no statement ran prepared")
	}
}

// A text the database will not prepare runs as text, with the database's answer. When
// Refused says the refusal is the server's limit the text stays unprepared, as text,
// until the cache lets it go; any other failure is tried again at a later call.
func TestPreparedRunsAsTextWhatCannotBePrepared(t *testing.T) {
	ctx := t.Context()
	refused := func(err error) bool { return strings.Contains(err.Error(), "no such table") }
	p := Prepared(memoryDB(t), PreparedOptions{Max: 4, After: 1, Refused: refused})
	defer p.Close()
	const q = "SELECT count(*) FROM later"
	if err := p.QueryRow(ctx, q).Scan(new(int)); err == nil || !refused(err) {
		t.Fatalf("%s before the table = %v, want the database's no such table", q, err)
	}
	if _, err := p.Exec(ctx, "CREATE TABLE later (x)"); err != nil {
		t.Fatal(err)
	}
	runs := p.Runs()
	if n := scanInt(t, p, q); n != 0 {
		t.Fatalf("%s = %d", q, n)
	}
	if p.Runs() != runs || p.Held() != 1 { // the CREATE alone
		t.Errorf("a refused text ran prepared (runs %d → %d, held %d): it stays text until let go", runs, p.Runs(), p.Held())
	}

	other := Prepared(memoryDB(t), PreparedOptions{Max: 4, After: 1})
	defer other.Close()
	if _, err := other.Query(ctx, "SELEC 1"); err == nil || !strings.Contains(err.Error(), "syntax error") {
		t.Fatalf("SELEC 1 = %v, want the database's syntax error", err)
	}
	if err := other.QueryRow(ctx, q).Scan(new(int)); err == nil {
		t.Fatalf("%s on a database without the table succeeded", q)
	}
	if _, err := other.Exec(ctx, "CREATE TABLE later (x)"); err != nil {
		t.Fatal(err)
	}
	if scanInt(t, other, q); other.Held() != 2 { // CREATE and the count, prepared now
		t.Errorf("Held() = %d after the table was made, want 2: a failed prepare is tried again", other.Held())
	}
}
