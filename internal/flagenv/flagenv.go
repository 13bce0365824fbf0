// Package flagenv is how every chronos command parses its flags: a flag.FlagSet named
// "chronos <command>" whose usage lists each flag's environment variable, and a parse
// that reads the CHRONOS_* environment first and lets the command line win. The binary
// (cmd/chronos) and the commands that live in other packages (internal/cli,
// internal/bench) share it, so every command's -h looks the same.
package flagenv

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// New makes a flag set whose usage lists each flag with its environment variable, for
// commands parsed with Parse.
func New(name string, stderr io.Writer) *flag.FlagSet {
	return flagSet(name, stderr, true)
}

// NewNoEnv is for commands that read no environment through Parse (bench: every figure
// must be reproducible from its command line alone; alarm and admin: only --server and
// --token, which they read themselves).
func NewNoEnv(name string, stderr io.Writer) *flag.FlagSet {
	return flagSet(name, stderr, false)
}

func flagSet(name string, stderr io.Writer, withEnv bool) *flag.FlagSet {
	fs := flag.NewFlagSet("chronos "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage of chronos %s:\n", name)
		fs.VisitAll(func(f *flag.Flag) {
			env := ""
			if withEnv {
				env = "env " + EnvName(f.Name) + ", "
			}
			fmt.Fprintf(w, "  --%s (%sdefault %q)\n      %s\n", f.Name, env, f.DefValue, f.Usage)
		})
	}
	return fs
}

// EnvName is the environment fallback of a flag: --wake-url → CHRONOS_WAKE_URL.
func EnvName(flagName string) string {
	return "CHRONOS_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Parse applies CHRONOS_* environment values, then the command line, which wins. A bad
// environment value is an error naming the variable; so is any argument left over.
// Errors and help come back as ParseFlags returns them.
func Parse(fs *flag.FlagSet, args []string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := os.LookupEnv(EnvName(f.Name))
		if !ok || err != nil {
			return
		}
		if l, ok := f.Value.(*List); ok {
			l.setEnv(v)
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("environment %s=%q: %v", EnvName(f.Name), v, e)
		}
	})
	if err != nil {
		return err
	}
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef(fs, "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// ParseCommandLine is Parse without the environment, for flag sets made with NewNoEnv.
func ParseCommandLine(fs *flag.FlagSet, args []string) error {
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef(fs, "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// ParseFlags parses the command line alone and prints nothing: -h comes back as a
// *Help (errors.Is flag.ErrHelp) holding the usage, for the caller to print on
// stdout; a bad flag as a *UsageError. Arguments after the flags stay in fs.Args().
func ParseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &Help{Text: UsageText(fs)}
	}
	return Usagef(fs, "%v", err)
}

// UsageText is what fs.Usage prints.
func UsageText(fs *flag.FlagSet) string {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.Usage()
	fs.SetOutput(out)
	return b.String()
}

// List is a repeatable flag: each use adds a value. Its environment variable gives
// values separated by commas (CHRONOS_WAKE_SECRET=new,old: an environment variable
// cannot be repeated), blanks around them dropped; the command line, when it uses the
// flag at all, replaces them (the command line wins, as for every flag). A value that
// holds a comma can only be given on the command line (or in a file the command reads).
type List struct {
	Values  []string
	fromEnv bool // Values holds the environment's value, which a command-line use replaces
}

func (l *List) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.Values, ",")
}

// Set adds v (after dropping the environment's value on the command line's first use).
func (l *List) Set(v string) error {
	if l.fromEnv {
		l.Values, l.fromEnv = nil, false
	}
	l.Values = append(l.Values, v)
	return nil
}

// setEnv takes the environment's comma-separated values, which a command-line use
// replaces. The value is not echoed in errors: it is often a secret.
func (l *List) setEnv(v string) {
	l.Values = nil
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			l.Values = append(l.Values, part)
		}
	}
	l.fromEnv = true
}
