package main

import (
	"context"
	"fmt"
	"io"

	"github.com/chronoshq/chronos/internal/flagenv"
	"github.com/chronoshq/chronos/internal/storeurl"
)

func migrateCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flagenv.New("migrate", stderr)
	store := fs.String("store", defaultStore, "store URL: sqlite://path.db, postgres://..., mysql://...")
	if err := flagenv.Parse(fs, args); err != nil {
		return err
	}
	if err := migrateStore(ctx, *store); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "store %s is up to date\n", storeurl.Redact(*store))
	return nil
}
