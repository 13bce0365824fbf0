package sqltext

// Statements of n items (an IN list of ids, a derived table, a multi-row INSERT) go to
// the database at a few sizes only, so each size's text can be prepared once and run
// again with new arguments: sent with a text of its own for every n, a statement is
// parsed anew each time and a cache of prepared texts misses nearly always
// (docs/benchmarks.md).
//
// A statement that can take padding (an IN list, a derived table joined on id) is sent
// at PaddedSize(n) items, the rest NULLs, which match no row. A multi-row INSERT cannot
// be padded, so it is cut into InsertPieces.

// PaddedSize is the size a paddable statement of n items is sent at: the smallest power
// of two that holds n, so at most twice the work, and 11 texts from 1 to 1,024 items.
func PaddedSize(n int) int {
	b := 1
	for b < n {
		b <<= 1
	}
	return b
}

// MinInsertPiece: fewer rows than this go in as one INSERT of their own size; at most
// seven such texts, and a piece that small is cheap however it is sent.
const MinInsertPiece = 8

// InsertPieces cuts n rows into the sizes a multi-row INSERT is sent at: powers of two,
// largest first, then one piece of the rest once it is below MinInsertPiece. A batch of
// 200 is 128, 64 and 8: three statements, each of a size seen before, where one
// statement of 200 rows is a text of its own.
func InsertPieces(n int) []int {
	var out []int
	for n > 0 {
		p := n
		if n >= MinInsertPiece {
			p = PaddedSize(n+1) >> 1 // the largest power of two <= n
		}
		out = append(out, p)
		n -= p
	}
	return out
}

// EachPiece calls insert with rows cut into InsertPieces, in order, and stops at the
// first error.
func EachPiece[T any](rows []T, insert func([]T) error) error {
	for _, n := range InsertPieces(len(rows)) {
		if err := insert(rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
