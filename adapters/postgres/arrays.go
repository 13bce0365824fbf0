package postgres

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// elems is a one-dimensional array parameter (Apply's) that pgx encodes without
// reflection or an allocation per element: Index hands out a pointer to the element,
// and each element type used here (pgtype.Text, Timestamptz, Int4, Bool) has a codec
// that takes that pointer as it is. A plain []*time.Time or []*string goes through
// pgx's reflection path instead, two allocations per element; and even a []string is
// boxed one element at a time. Encoding Apply's arrays that way was a tenth of the
// dispatcher's CPU in a burn-down, and its garbage a third of what it allocated.
type elems[T any] []T

func (a elems[T]) Dimensions() []pgtype.ArrayDimension {
	// Never nil: a nil slice would be sent as a NULL array; an empty one says what is
	// meant.
	return []pgtype.ArrayDimension{{Length: int32(len(a)), LowerBound: 1}}
}

func (a elems[T]) Index(i int) any { return &a[i] }

func (a elems[T]) IndexType() any { return new(T) }

// text is s as an array element.
func text(s string) pgtype.Text { return pgtype.Text{String: s, Valid: true} }

// nullText is s as an array element, NULL when empty (claimed_by, the fence worker).
func nullText(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

// timestamptz is t as an array element, as timeArg makes it: NULL when zero, else UTC
// at the store's precision.
func timestamptz(t time.Time) pgtype.Timestamptz {
	if t.IsZero() {
		return pgtype.Timestamptz{}
	}
	return pgtype.Timestamptz{Time: t.UTC().Truncate(time.Microsecond), Valid: true}
}

func int4(n int) pgtype.Int4 { return pgtype.Int4{Int32: int32(n), Valid: true} }

func boolean(b bool) pgtype.Bool { return pgtype.Bool{Bool: b, Valid: true} }
