package sqltext

import (
	"strings"

	"github.com/chronoshq/chronos/domain"
)

// StatusList is sts as an SQL list of string literals, "'active', 'paused'", for an
// IN (...) written into a statement's text rather than bound: the planners of all three
// stores then see the statuses and pick the (owner, status, ...) index ranges for them.
// A quote in a status (none has one) would be doubled, which every store reads as one.
func StatusList(sts []domain.Status) string {
	in := make([]string, len(sts))
	for i, st := range sts {
		in[i] = `'` + strings.ReplaceAll(string(st), `'`, `''`) + `'`
	}
	return strings.Join(in, ", ")
}
