package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/internal/flagenv"
	"github.com/chronoshq/chronos/ports"
)

// Token runs `chronos token create|list|revoke ...` on the store, opened with
// wiring.Open: the operator's way to make the first token, before any API can be called.
func Token(ctx context.Context, args []string, wiring Wiring, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("token: give a subcommand: create, list or revoke")
	}
	sub, rest := args[0], args[1:]
	fs := flagenv.New("token "+sub, stderr)
	store := fs.String("store", wiring.DefaultStore, "store URL")
	noMigrate := fs.Bool("no-migrate", false, "do not migrate the store's schema first")
	var owner, id *string
	admin := adminFlag("")
	switch sub {
	case "create":
		owner = fs.String("owner", "", "the owner every alarm made with this token belongs to (required)")
		fs.Var(&admin, "admin", "also allow the admin API: --admin (every admin route) or --admin read (the read-only ones)")
		rest = joinAdminValue(rest)
	case "list":
	case "revoke":
		id = fs.String("id", "", "the token id to revoke (from token list)")
	default:
		return fmt.Errorf("token: unknown subcommand %q (create, list, revoke)", sub)
	}
	if err := flagenv.Parse(fs, rest); err != nil {
		return err
	}
	withTokens := func(fn func(*app.Tokens) error) error {
		s, err := wiring.Open(ctx, *store, !*noMigrate)
		if err != nil {
			return err
		}
		defer s.Close()
		return fn(app.NewTokens(s, storeClock{s}))
	}
	switch sub {
	case "create":
		if *owner == "" {
			return errors.New("token create: --owner is required")
		}
		return withTokens(func(t *app.Tokens) error {
			plain, tok, err := t.Create(ctx, *owner, admin.scope())
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "created token %s for owner %q (scope: %s); it is shown once, store it now:\n%s\n", tok.ID, tok.Owner, tok.Scope, plain)
			return nil
		})
	case "list":
		return withTokens(func(t *app.Tokens) error {
			toks, err := t.List(ctx, "")
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tOWNER\tSCOPE\tCREATED\tREVOKED")
			for _, k := range toks {
				revoked := "-"
				if k.Revoked() {
					revoked = k.RevokedAt.Format(time.RFC3339)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Owner, k.Scope, k.CreatedAt.Format(time.RFC3339), revoked)
			}
			return w.Flush()
		})
	default: // revoke
		if *id == "" {
			return errors.New("token revoke: --id is required")
		}
		return withTokens(func(t *app.Tokens) error {
			if err := t.Revoke(ctx, *id); err != nil {
				if errors.Is(err, ports.ErrNotFound) {
					return fmt.Errorf("token revoke: no token with id %q", *id)
				}
				return err
			}
			fmt.Fprintf(stdout, "revoked token %s\n", *id)
			return nil
		})
	}
}

// storeClock reads the store's clock directly; fine for one-shot commands.
type storeClock struct{ s ports.Store }

func (c storeClock) Now() time.Time {
	if t, err := c.s.Now(context.Background()); err == nil {
		return t
	}
	return time.Now().UTC()
}
