package main

import (
	"flag"
	"io"

	"github.com/chronoshq/chronos/internal/flagenv"
)

// The flag helpers are package flagenv's. These two names remain because serve.go (and
// its test) call them; they go once serve calls flagenv directly.

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet { return flagenv.New(name, stderr) }

func parseWithEnv(fs *flag.FlagSet, args []string) error { return flagenv.Parse(fs, args) }
