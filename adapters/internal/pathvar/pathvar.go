// Package pathvar checks what a request's path names ({id}, {name}, {owner}) before a
// use case sees it, for the API and the dashboard alike: bytes that no id or name can
// hold never reach a store (PostgreSQL refuses NUL and invalid UTF-8 in text, which
// would fail the request as the store's error).
package pathvar

import (
	"unicode"
	"unicode/utf8"
)

// MaxLen bounds an id or a name in a path. Ids are UUIDs and names are short; the bound
// only keeps absurd input away from the store.
const MaxLen = 255

// Valid reports a value an id or a name could be: 1 to MaxLen bytes of printable
// UTF-8.
func Valid(s string) bool { return s != "" && len(s) <= MaxLen && Printable(s) }

// Printable reports UTF-8 without control characters.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if unicode.IsControl(c) {
			return false
		}
	}
	return true
}
