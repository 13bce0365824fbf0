package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/internal/flagenv"
	"github.com/chronoshq/chronos/internal/storeurl"
)

// backupCommand copies a SQLite store, consistently and while `chronos serve` runs on
// it, to a file (sqlite.Backup); on the server databases it says which of their own
// tools to use instead.
func backupCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flagenv.New("backup", stderr)
	store := fs.String("store", defaultStore, "the SQLite store to copy: sqlite://path.db (relative), sqlite:///abs/path.db")
	to := fs.String("to", "", "the file to write the copy to (required); it must not exist unless --force")
	force := fs.Bool("force", false, "replace --to if it exists (atomically, once the new copy is written and checked)")
	if err := flagenv.Parse(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return flagenv.Usagef(fs, "--to is required: the file to write the copy to")
	}
	d, err := dialectOf(*store)
	if err != nil {
		return flagenv.AsUsage(fs, err)
	}
	if d.backupTools != "" {
		return fmt.Errorf("chronos backup copies SQLite stores only; %s is backed up with its server's own tools: %s",
			storeurl.Redact(*store), d.backupTools)
	}
	if err := storeExists(*store); err != nil {
		return err
	}
	start := time.Now()
	n, err := sqlite.Backup(ctx, *store, *to, sqlite.BackupOptions{Force: *force})
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return fmt.Errorf("backup of %s interrupted; %s was not written", storeurl.Redact(*store), *to)
		}
		return fmt.Errorf("backup of %s to %s failed: %w", storeurl.Redact(*store), *to, storeurl.RedactError(err, *store))
	}
	fmt.Fprintf(stdout, "backed up %s to %s: %s in %s, PRAGMA integrity_check ok\n",
		storeurl.Redact(*store), *to, byteSize(n), time.Since(start).Round(time.Millisecond))
	return nil
}

// byteSize is n in bytes and, past a KiB, in the largest binary unit under it.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB (%d bytes)", float64(n)/float64(div), "KMGTP"[exp], n)
}
