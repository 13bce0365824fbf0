package domain

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintableText(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"line one\nline\ttwo", 100, "line one\nline\ttwo"},
		{"nul\x00 bell\a esc\x1b[0m del\x7f", 100, "nul\uFFFD bell\uFFFD esc\uFFFD[0m del\uFFFD"},
		{"bad \xff\xfe utf-8", 100, "bad \uFFFD utf-8"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcdef…"},
		{"abcdé", 5, "abcd…"}, // é is 2 bytes: never cut in two
		{strings.Repeat("é", 2000), MaxFailureText, strings.Repeat("é", MaxFailureText/2) + "…"},
	} {
		got := PrintableText(tt.in, tt.max)
		if got != tt.want || !utf8.ValidString(got) {
			t.Errorf("PrintableText(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
