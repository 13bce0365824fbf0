package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chronoshq/chronos/internal/flagenv"
	"github.com/chronoshq/chronos/internal/storeurl"
	"github.com/chronoshq/chronos/internal/transfer"
)

// `chronos export` and `chronos import` move a cluster between stores of any kind
// (docs/migrating-stores.md); the work is package transfer's, through the ports.

const exportHelp = `
Writes every alarm (its whole state: status, next fire, counts, series options and
state, endpoint, payload byte for byte, idempotency key, lease), its stored history
with its attempt log (what each delivery's receiver answered), every endpoint WITH ITS
SIGNING SECRETS, every API token's SHA-256 hash (never a token:
none is stored), every owner's exclusion calendars and the cluster values that move (the dispatch pause gate, the secret
fingerprints' key), as JSON lines.

THE FILE HOLDS SECRETS: it is created with mode 0600 and never overwrites a file; keep
it as private as the database, and delete it once imported. Stop every node first: the
export reads the store in pages, not in one snapshot (it warns when nodes heartbeat).
Read it back with "chronos import". --owner exports one owner alone, to move it to
another cluster with "chronos import --into-nonempty" (docs/scaling.md).
`

const importHelp = `
Writes an export (chronos export) into --store, migrating its schema first: cluster
values, endpoints, tokens, calendars, then alarms and their histories in batches of
one transaction each (a series keeps the calendars it excludes). Every lease is cleared, so the new cluster claims what the old one
held: at-least-once alarms that were in delivery are delivered again; an at-most-once
wake already sent is not (its advance is in the file; its "outcome unknown" error
stays). A file is read whole and checked before anything is written; standard input
is checked as it goes.

A target that holds any alarm, endpoint, calendar or token is refused unless --into-nonempty,
which still refuses any record whose id the target holds. If an import fails part way,
drop the target database, create it anew and import again.
`

func exportCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flagenv.New("export", stderr)
	store := fs.String("store", defaultStore, "store URL to export: sqlite://path.db, postgres://..., mysql://...")
	to := fs.String("to", "", `file to write (created with mode 0600; an existing file is refused), or "-" for standard output`)
	owner := fs.String("owner", "", "export this owner alone: its alarms and histories, endpoints, calendars and tokens, no cluster value (moving an owner: docs/scaling.md)")
	if err := flagenv.Parse(fs, args); err != nil {
		return withHelp(err, exportHelp)
	}
	if *to == "" {
		return flagenv.Usagef(fs, "give --to FILE (or --to - for standard output): the export holds endpoint secrets")
	}
	out, done, err := exportOutput(*to, stdout)
	if err != nil {
		return err
	}
	s, err := openExistingStore(ctx, *store, false)
	if err != nil {
		done(false)
		return err
	}
	defer s.Close()
	src, err := transfer.AsSource(s)
	if err != nil {
		done(false)
		return err
	}
	if live, err := transfer.LiveWorkers(ctx, s, time.Minute); err == nil && len(live) > 0 {
		fmt.Fprintf(stderr, "chronos export: warning: %d node(s) heartbeat on this store (%s): stop them first, or the export may catch alarms half way through a change\n",
			len(live), live[0].ID)
	}
	res, err := transfer.Export(ctx, src, out, transfer.ExportOptions{ChronosVersion: Version(), StoreKind: storeKind(*store), Owner: *owner})
	if err := errors.Join(err, done(err == nil)); err != nil {
		return fmt.Errorf("export of %s: %w", storeurl.Redact(*store), storeurl.RedactError(err, *store))
	}
	report := stderr
	where := "standard output"
	if *to != "-" {
		report, where = stdout, *to+" (mode 0600)"
	}
	c := res.Counts
	fmt.Fprintf(report, "exported %d alarms, %d events, %d endpoints, %d tokens, %d calendars, %d cluster values from %s to %s\n",
		c.Alarms, c.Events, c.Endpoints, c.Tokens, c.Calendars, c.States, storeurl.Redact(*store), where)
	if res.Orphans > 0 {
		fmt.Fprintf(report, "left out %d stored events whose alarm no longer exists\n", res.Orphans)
	}
	fmt.Fprintln(report, "the export holds every endpoint's signing secrets: keep it private, delete it once imported")
	return nil
}

// exportOutput opens where the export goes. A file is created new with mode 0600 (an
// existing one is refused: it may be an earlier export, or anything else); done(ok)
// closes it, and removes it unless ok, so a failed export leaves no half file behind.
// Standard output is refused when it is a terminal: the export holds secrets.
func exportOutput(to string, stdout io.Writer) (io.Writer, func(ok bool) error, error) {
	if to == "-" {
		if f, ok := stdout.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				return nil, nil, errors.New("export: standard output is a terminal, and the export holds endpoint secrets: redirect it, or give --to FILE")
			}
		}
		return stdout, func(bool) error { return nil }, nil
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, nil, fmt.Errorf("export: %s exists: the export never overwrites a file; give another --to, or remove it", to)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("export: %w", err)
	}
	return f, func(ok bool) error {
		err := f.Close()
		if ok && err == nil {
			return nil
		}
		return errors.Join(err, os.Remove(to))
	}, nil
}

func importCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flagenv.New("import", stderr)
	store := fs.String("store", defaultStore, "store URL to import into (migrated first): sqlite://path.db, postgres://..., mysql://...")
	from := fs.String("from", "", `export file to read, or "-" for standard input`)
	intoNonEmpty := fs.Bool("into-nonempty", false, "import into a store that holds alarms, endpoints, calendars or tokens already (records whose ids it holds are still refused)")
	if err := flagenv.Parse(fs, args); err != nil {
		return withHelp(err, importHelp)
	}
	if *from == "" {
		return flagenv.Usagef(fs, "give --from FILE (or --from - for standard input)")
	}
	in := io.Reader(os.Stdin)
	if *from != "-" {
		f, err := os.Open(*from)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		// A file is checked whole first, so a damaged or cut one writes nothing.
		if _, _, err := transfer.Verify(f); err != nil {
			return fmt.Errorf("import: %s: %w; nothing was written", *from, err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		in = f
	}
	s, err := openStore(ctx, *store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	dst, err := transfer.AsTarget(s)
	if err != nil {
		return err
	}
	res, err := transfer.Import(ctx, dst, in, transfer.ImportOptions{IntoNonEmpty: *intoNonEmpty})
	c := res.Counts
	if err != nil {
		if errors.Is(err, transfer.ErrNotEmpty) {
			return err
		}
		return fmt.Errorf("%w\nimport: %s holds part of the import (%d alarms, %d events, %d endpoints, %d tokens, %d calendars written): drop it, create it anew and import again",
			storeurl.RedactError(err, *store), storeurl.Redact(*store), c.Alarms, c.Events, c.Endpoints, c.Tokens, c.Calendars)
	}
	fmt.Fprintf(stdout, "imported %d alarms, %d events, %d endpoints, %d tokens, %d calendars, %d cluster values from a %s export into %s\n",
		c.Alarms, c.Events, c.Endpoints, c.Tokens, c.Calendars, c.States, res.Source, storeurl.Redact(*store))
	if res.LeasesCleared > 0 {
		fmt.Fprintf(stdout, "cleared %d leases of the old cluster's workers: the new cluster claims those alarms again\n", res.LeasesCleared)
	}
	if len(res.StatesKept) > 0 {
		fmt.Fprintf(stdout, "kept the target's own cluster values %s\n", strings.Join(res.StatesKept, ", "))
	}
	return nil
}

// withHelp puts a command's description after its flags in -h.
func withHelp(err error, text string) error {
	var h *flagenv.Help
	if errors.As(err, &h) {
		h.Text += text
	}
	return err
}

// storeKind is the kind of store a URL names, as the export's header says it.
func storeKind(url string) string {
	scheme, _, _ := strings.Cut(url, ":")
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		return "postgres"
	case "mysql", "mariadb":
		return "mysql"
	}
	return strings.ToLower(scheme)
}
