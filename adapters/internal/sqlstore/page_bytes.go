package sqlstore

import "github.com/chronoshq/chronos/ports"

// sizedRows ends a page's rows once those read carry more than ports.MaxListBytes of
// text and bytes (payloads and wake messages above all). Rows stream from the
// database, so a page of the largest alarms holds a few MiB however large its limit;
// cut says it ended a page that had rows left.
type sizedRows struct {
	Rows
	left int
	cut  bool
}

func newSizedRows(rows Rows) *sizedRows { return &sizedRows{Rows: rows, left: ports.MaxListBytes} }

func (r *sizedRows) Next() bool {
	if r.left < 0 {
		r.cut = r.Rows.Next()
		return false
	}
	return r.Rows.Next()
}

func (r *sizedRows) Scan(dest ...any) error {
	err := r.Rows.Scan(dest...)
	for _, d := range dest {
		switch v := d.(type) {
		case *[]byte:
			r.left -= len(*v)
		case *string:
			r.left -= len(*v)
		}
	}
	return err
}
