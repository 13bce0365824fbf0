package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// newFlagSet makes a flag set whose usage lists each flag with its environment variable.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("chronos "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage of chronos %s:\n", name)
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(stderr, "  --%s (env %s, default %q)\n      %s\n", f.Name, envName(f.Name), f.DefValue, f.Usage)
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
