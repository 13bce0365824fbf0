package mysql

// Batch statements go to the server at a few sizes only, so that each size's text is
// prepared once and then run with binary parameters (prepared.go). Sent as text, a
// statement of a batch of n items is lexed and parsed anew, literal by literal, each
// time; under a steady stream every batch has its own size (a claim takes what fell due
// since the last), so a cache of exact texts would miss nearly always (docs/benchmarks.md).
//
// Statements that can take padding (an IN list of ids, a derived table joined on id)
// are sent at paddedSize(n) items, the rest NULLs, which match no row. Multi-row INSERTs
// cannot be padded, so they are cut into insertPieces.

// paddedSize is the size a paddable statement of n items is sent at: the smallest power of
// two that holds n, so at most twice the work, and 11 texts from 1 to 1,024 items.
func paddedSize(n int) int {
	b := 1
	for b < n {
		b <<= 1
	}
	return b
}

// padNulls appends n NULL arguments to args.
func padNulls(args []any, n int) []any {
	for range n {
		args = append(args, nil)
	}
	return args
}

// paddedIn is the values of an IN list (ids, idempotency keys) as arguments, padded
// with NULLs to paddedSize(len(values)), and the placeholders for them. A NULL in an IN
// list matches nothing.
func paddedIn(values []string) ([]any, string) {
	n := paddedSize(len(values))
	args := make([]any, 0, n)
	for _, v := range values {
		args = append(args, v)
	}
	return padNulls(args, n-len(values)), placeholders(n)
}

// minInsertPiece: fewer rows than this go in as one INSERT of their own size; at most
// seven such texts, and a piece that small is cheap however it is sent.
const minInsertPiece = 8

// eachPiece calls insert with rows cut into insertPieces, in order, and stops at the
// first error.
func eachPiece[T any](rows []T, insert func([]T) error) error {
	for _, n := range insertPieces(len(rows)) {
		if err := insert(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// insertPieces cuts n rows into the sizes a multi-row INSERT is sent at: powers of two,
// largest first, then one piece of the rest once it is below minInsertPiece. A batch of
// 200 is 128, 64 and 8: three statements, each prepared, where one text statement of
// 200 rows is parsed whole every time.
func insertPieces(n int) []int {
	var out []int
	for n > 0 {
		p := n
		if n >= minInsertPiece {
			p = paddedSize(n+1) >> 1 // the largest power of two <= n
		}
		out = append(out, p)
		n -= p
	}
	return out
}
