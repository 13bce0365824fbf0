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
	Command string // "chronos alarm create", for the pointer to its -h; "" for the binary itself
	Err     error  // the message, shown as it is
}

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef makes a UsageError for the command fs parses (nil: the binary), its message
// prefixed with the command's name ("alarm create: ...").
func Usagef(fs *flag.FlagSet, format string, args ...any) error {
	if fs == nil {
		return &UsageError{Err: fmt.Errorf(format, args...)}
	}
	return &UsageError{Command: fs.Name(), Err: fmt.Errorf(strings.TrimPrefix(fs.Name(), "chronos ")+": "+format, args...)}
}

// AsUsage marks err, already worded, as a mistake on fs's command line. Help and
// errors already marked pass through, as does nil.
func AsUsage(fs *flag.FlagSet, err error) error {
	var u *UsageError
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.As(err, &u) {
		return err
	}
	return &UsageError{Command: fs.Name(), Err: err}
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
