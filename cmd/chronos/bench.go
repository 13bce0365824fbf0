package main

import (
	"context"
	"io"

	"github.com/chronoshq/chronos/internal/bench"
	"github.com/chronoshq/chronos/internal/flagenv"
)

// benchCommand is `chronos bench`: its options are the bench package's, parsed here
// like every other command's; the run is bench.Run.
func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg bench.Config
	fs := flagenv.NewNoEnv("bench", stderr)
	cfg.RegisterFlags(fs)
	if err := flagenv.ParseCommandLine(fs, args); err != nil {
		return err
	}
	w, err := benchWiring(stderr)
	if err != nil {
		return err
	}
	return bench.Run(ctx, cfg, w, stdout, stderr)
}

// benchWorkerCommand is the hidden bench.WorkerCommand: one node of `chronos bench
// --nodes K`, started by the bench itself.
func benchWorkerCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg bench.WorkerConfig
	fs := flagenv.NewNoEnv(bench.WorkerCommand, stderr)
	cfg.RegisterFlags(fs)
	if err := flagenv.ParseFlags(fs, args); err != nil {
		return err
	}
	w, err := benchWiring(stderr)
	if err != nil {
		return err
	}
	return bench.RunWorker(ctx, cfg, w, stdout)
}

// benchWiring opens stores as serve does, and logs warnings only.
func benchWiring(stderr io.Writer) (bench.Wiring, error) {
	log, err := newLogger("console", "warn", stderr)
	if err != nil {
		return bench.Wiring{}, err
	}
	return bench.Wiring{Open: openStore, Version: Version(), Log: log}, nil
}
