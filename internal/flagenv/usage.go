package flagenv

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// Exit statuses of the chronos binary: a mistake on the command line is told apart
// from a failure at run time, so a script can tell "fix the call" from "try again".
const (
	ExitRuntime = 1 // the command ran and failed: a store, a server or a request said no
	ExitUsage   = 2 // the command line is wrong: unknown command or flag, a missing argument
)

// UsageError is a mistake on the command line: the binary exits ExitUsage and points
// at the command's -h.
type UsageError struct {
	Command string // "chronos alarm create"; "" for the binary itself
	Err     error
}

func (e *UsageError) Error() string {
	if e.Command == "" {
		return e.Err.Error()
	}
	return strings.TrimPrefix(e.Command, "chronos ") + ": " + e.Err.Error()
}

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef makes a UsageError for the command fs parses (fs may be nil: the binary).
func Usagef(fs *flag.FlagSet, format string, args ...any) error {
	name := ""
	if fs != nil {
		name = fs.Name()
	}
	return &UsageError{Command: name, Err: fmt.Errorf(format, args...)}
}

// Help is the answer to -h: the usage, which the binary prints on stdout before exiting
// 0. errors.Is(h, flag.ErrHelp) holds.
type Help struct{ Text string }

func (h *Help) Error() string { return flag.ErrHelp.Error() }

func (h *Help) Is(target error) bool { return target == flag.ErrHelp }

// ExitCode is the binary's exit status for the error a command returned.
func ExitCode(err error) int {
	var u *UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		return ExitUsage
	}
	return ExitRuntime
}
