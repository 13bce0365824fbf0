package sqlstore

import (
	"container/list"
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
)

// PreparedOptions say which of a pool's statement texts Prepared keeps prepared.
type PreparedOptions struct {
	// Max is the most texts kept prepared: the least recently used is closed to make
	// room, so a process whose users send many shapes of a statement keeps its hot ones
	// prepared and its memory (and a server's prepared-statement count) bounded.
	Max int
	// After is the call of a text that prepares it: 1 prepares every text at its first
	// use; 2 leaves a text called only once unprepared (it costs the server a prepare and
	// a close for nothing).
	After int
	// Refused says whether err is the server refusing to prepare (a limit shared with
	// its other clients). Such a statement runs as text, and its text is not prepared
	// again until the cache lets it go. Nil: a prepare's error is any other.
	Refused func(error) bool
}

// Prepared is a database/sql pool as a DB that runs its statement texts prepared, as
// opts say: a driver that parses unprepared text on every call (SQLite), or a server
// that lexes and parses it and answers it in text rows (MySQL), then keeps the parse
// off the hot paths. A text not prepared (yet, or refused, or whose prepare failed)
// runs as text, with the same result and error. Closing the pool closes the statements.
func Prepared(db *sql.DB, opts PreparedOptions) *PreparedDB {
	return &PreparedDB{db: db, opts: opts, byQ: map[string]*list.Element{}, seen: map[string]int{}}
}

// PreparedDB is Prepared's DB.
type PreparedDB struct {
	db   *sql.DB
	opts PreparedOptions
	mu   sync.Mutex
	byQ  map[string]*list.Element // of *preparedText, in lru
	lru  list.List                // most recently used first
	seen map[string]int           // calls of texts not prepared yet, below opts.After
	runs atomic.Int64             // statements that ran prepared
}

// preparedText is one text of the cache. users counts the calls between taking stmt and
// the statement's start: database/sql refuses a closed statement, so one let go while
// held is closed by the last of them (a statement's open rows keep it alive by
// themselves).
type preparedText struct {
	query   string
	stmt    *sql.Stmt // nil: being prepared, or refused; run as text (set under mu)
	users   atomic.Int32
	evicted atomic.Bool
}

// take returns query's prepared statement and the release to call once it has started,
// or nil: run it as text. It prepares query on the pool at its opts.After-th call; the
// caller holds no connection (a DB of the pool), so the prepare's wait for one cannot
// hold up another.
func (p *PreparedDB) take(ctx context.Context, query string) (*sql.Stmt, func()) {
	p.mu.Lock()
	if e, ok := p.byQ[query]; ok {
		p.lru.MoveToFront(e)
		pt := e.Value.(*preparedText)
		if pt.stmt == nil {
			p.mu.Unlock()
			return nil, nil
		}
		pt.users.Add(1)
		p.mu.Unlock()
		return pt.stmt, pt.release
	}
	if n := p.seen[query] + 1; n < p.opts.After {
		if len(p.seen) >= 4*p.opts.Max {
			clear(p.seen) // texts seen long ago: forget them rather than grow
		}
		p.seen[query] = n
		p.mu.Unlock()
		return nil, nil
	}
	delete(p.seen, query)
	pt := &preparedText{query: query}
	p.byQ[query] = p.lru.PushFront(pt)
	var closing *sql.Stmt
	if p.lru.Len() > p.opts.Max {
		closing = p.evict(p.lru.Back())
	}
	p.mu.Unlock()
	if closing != nil {
		_ = closing.Close()
	}
	st, err := p.db.PrepareContext(ctx, query)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case pt.evicted.Load():
		// Let go while it was being prepared: not kept.
		if err == nil {
			_ = st.Close()
		}
		return nil, nil
	case err == nil:
		pt.stmt = st
		pt.users.Add(1)
		return st, pt.release
	case p.opts.Refused != nil && p.opts.Refused(err):
		return nil, nil // kept without a statement: not prepared again until let go
	default:
		// A lost connection, a cancelled context, a statement the database rejects
		// (which its run as text reports): prepared again on a later call.
		p.lru.Remove(p.byQ[query])
		delete(p.byQ, query)
		pt.evicted.Store(true)
		return nil, nil
	}
}

// evict lets e's text go (p.mu held) and returns its statement to close now, or nil when
// there is none or calls still hold it (the last one closes it).
func (p *PreparedDB) evict(e *list.Element) *sql.Stmt {
	pt := e.Value.(*preparedText)
	p.lru.Remove(e)
	delete(p.byQ, pt.query)
	pt.evicted.Store(true)
	if pt.users.Load() > 0 {
		return nil
	}
	return pt.stmt
}

// release ends a call's hold on pt's statement, and closes it when the call was the
// last to hold a statement let go. Without a lock: evict marks before it counts the
// holders, release counts down before it reads the mark, so one of them sees the other
// (at worst both close it, which database/sql allows).
func (pt *preparedText) release() {
	if pt.users.Add(-1) == 0 && pt.evicted.Load() {
		_ = pt.stmt.Close() // database/sql closes it once its open rows are done
	}
}

func (p *PreparedDB) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, release := p.take(ctx, query)
	if st == nil {
		return sqlrow.Affected(p.db.ExecContext(ctx, query, args...))
	}
	res, err := st.ExecContext(ctx, args...)
	release()
	if p.refused(err) {
		return sqlrow.Affected(p.db.ExecContext(ctx, query, args...))
	}
	p.runs.Add(1)
	return sqlrow.Affected(res, err)
}

func (p *PreparedDB) QueryRow(ctx context.Context, query string, args ...any) sqlrow.Scanner {
	st, release := p.take(ctx, query)
	if st == nil {
		return p.db.QueryRowContext(ctx, query, args...)
	}
	row := st.QueryRowContext(ctx, args...)
	release()
	p.runs.Add(1)
	return preparedRow{row, func() sqlrow.Scanner { return p.db.QueryRowContext(ctx, query, args...) }, p.refused}
}

func (p *PreparedDB) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	st, release := p.take(ctx, query)
	if st != nil {
		rows, err := st.QueryContext(ctx, args...)
		release()
		if err == nil {
			p.runs.Add(1)
			return stdRows{rows}, nil
		}
		if !p.refused(err) {
			return nil, err
		}
	}
	rows, err := p.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return stdRows{rows}, nil
}

// refused says whether err is opts.Refused's: database/sql prepares a cached statement
// again on each connection it first runs on, and the server may refuse it there.
// Nothing ran, so the caller runs the text instead.
func (p *PreparedDB) refused(err error) bool {
	return err != nil && p.opts.Refused != nil && p.opts.Refused(err)
}

// preparedRow is a prepared QueryRow that runs the text when the server refused to
// prepare the statement on the connection the row was read on.
type preparedRow struct {
	row     *sql.Row
	asText  func() sqlrow.Scanner
	refused func(error) bool
}

func (r preparedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if r.refused(err) {
		return r.asText().Scan(dest...)
	}
	return err
}

// Held is how many texts p holds prepared, and Runs how many statements ran prepared.
func (p *PreparedDB) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if e.Value.(*preparedText).stmt != nil {
			n++
		}
	}
	return n
}

// Runs: see Held.
func (p *PreparedDB) Runs() int64 { return p.runs.Load() }

// Close closes the statements p holds (those calls still use close after them).
func (p *PreparedDB) Close() {
	p.mu.Lock()
	var closing []*sql.Stmt
	for p.lru.Len() > 0 {
		if st := p.evict(p.lru.Front()); st != nil {
			closing = append(closing, st)
		}
	}
	clear(p.seen)
	p.mu.Unlock()
	for _, st := range closing {
		_ = st.Close()
	}
}
