package mysql

import "github.com/chronoshq/chronos/adapters/internal/sqltext"

// Batch statements go to the server at a few sizes only (sqltext's buckets), so that
// each size's text is prepared once and then run with binary parameters (prepared.go).
// Under a steady stream every batch has its own size (a claim takes what fell due since
// the last), so a cache of exact texts would miss nearly always (docs/benchmarks.md).

// paddedSize, insertPieces: sqltext's, under the names this package's statements use.
var (
	paddedSize   = sqltext.PaddedSize
	insertPieces = sqltext.InsertPieces
)

// eachPiece is sqltext.EachPiece.
func eachPiece[T any](rows []T, insert func([]T) error) error { return sqltext.EachPiece(rows, insert) }

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
