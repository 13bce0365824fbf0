// Package sqltext builds the pieces of SQL text the stores share: placeholders for
// those that bind with "?", and literal lists for all of them.
package sqltext

import "strings"

// Placeholders is "?, ?, ?" with n marks (n >= 1).
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// ValuesRows is "(?, ?), (?, ?)": rows rows of cols marks each.
func ValuesRows(rows, cols int) string {
	row := "(" + Placeholders(cols) + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
}
