package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// newFlagSet makes a flag set whose usage lists each flag with its environment variable,
// for commands parsed with parseWithEnv.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	return flagSet(name, stderr, true)
}

// newFlagSetNoEnv is for commands that read no environment (bench: every figure must be
// reproducible from its command line alone).
func newFlagSetNoEnv(name string, stderr io.Writer) *flag.FlagSet {
	return flagSet(name, stderr, false)
}

func flagSet(name string, stderr io.Writer, withEnv bool) *flag.FlagSet {
	fs := flag.NewFlagSet("chronos "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage of chronos %s:\n", name)
		fs.VisitAll(func(f *flag.Flag) {
			env := ""
			if withEnv {
				env = "env " + envName(f.Name) + ", "
			}
			fmt.Fprintf(stderr, "  --%s (%sdefault %q)\n      %s\n", f.Name, env, f.DefValue, f.Usage)
		})
	}
	return fs
}

// envName is the environment fallback of a flag: --wake-url → CHRONOS_WAKE_URL.
func envName(flagName string) string {
	return "CHRONOS_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseWithEnv applies CHRONOS_* environment values, then the command line, which wins.
// A bad environment value is an error naming the variable.
func parseWithEnv(fs *flag.FlagSet, args []string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		v, ok := os.LookupEnv(envName(f.Name))
		if !ok || err != nil {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("environment %s=%q: %v", envName(f.Name), v, e)
		}
	})
	if err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
