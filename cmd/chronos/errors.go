package main

import (
	"errors"
	"net"
	"strings"
	"syscall"
)

// rootCause is the part of a start-up error a person acts on, on one line: the system's
// own words for a refused or unreachable connection ("connection refused", "address
// already in use"), a name that does not resolve, else the error with its line breaks
// folded. The full error stays reachable with errors.Unwrap for code that asks.
func rootCause(err error) error {
	var errno syscall.Errno
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return &causeError{text: dns.Error(), err: err}
	case errors.As(err, &errno):
		return &causeError{text: errno.Error(), err: err}
	}
	return &causeError{text: oneLine(err.Error()), err: err}
}

type causeError struct {
	text string
	err  error
}

func (e *causeError) Error() string { return e.text }
func (e *causeError) Unwrap() error { return e.err }

// oneLine folds a multi-line error (pgx lists every address it tried, one a line) and
// drops repeated lines.
func oneLine(s string) string {
	var parts []string
	seen := map[string]bool{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(strings.TrimSpace(line), ":")
		if line != "" && !seen[line] {
			seen[line] = true
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, ": ")
}
