package domain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFailureText bounds the failure text an outcome records (last_error and the
// attempt's event). A webhook error is far shorter (its quote of the receiver stops at
// 512 bytes); an in-process handler's error can be anything.
const MaxFailureText = 2048

// PrintableText makes text from outside (a waker's error, a receiver's answer) fit for
// last_error: every store keeps it as text (PostgreSQL refuses a NUL or invalid UTF-8,
// and an outcome it cannot write is never recorded: the lease expires and the wake is
// sent again, for ever) and owners read it in the API and the dashboard. Invalid UTF-8
// and control characters other than newline and tab become U+FFFD, and text longer
// than max bytes is cut at a character boundary at or before max and marked with "…"
// (so the result is at most max bytes plus the 3 of "…").
func PrintableText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
