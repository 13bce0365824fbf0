package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/chronoshq/chronos/internal/flagenv"
)

const tokenUsage = `Usage: chronos token <subcommand> [flags]

  create  --owner NAME [--admin | --admin read] [--note TEXT] [-o json]
          prints the token once: store it, the server keeps only its hash
  list    [--owner NAME] [-o json]   every token, or one owner's; never a secret
  revoke  --id ID                    from token list; other nodes may accept the
                                     token for up to a second more

Where the tokens are:
  --server URL (env CHRONOS_SERVER)  over the API of a running server, with an admin
                                     token in --token or CHRONOS_TOKEN (admin:read may
                                     list; create and revoke need admin)
  --store URL (env CHRONOS_STORE)    directly on the store, as serve opens it (migrating
                                     it unless --no-migrate): the way to make the first
                                     admin token, before any API can be called

With neither, the store is ` + "`%s`" + `. Give --server or --store, not both; with
CHRONOS_SERVER and CHRONOS_STORE both set, say which on the command line.
Run "chronos token <subcommand> -h" for a subcommand's flags.
`

// Token runs `chronos token create|list|revoke ...`, over the API of a running server
// (--server) or directly on the store (--store), which is how the first admin token is
// made.
func Token(ctx context.Context, args []string, wiring Wiring, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, tokenUsage, wiring.DefaultStore)
		return errors.New("token: give a subcommand: create, list or revoke")
	}
	sub, rest := args[0], args[1:]
	if isHelp(sub) {
		fmt.Fprintf(stdout, tokenUsage, wiring.DefaultStore)
		return nil
	}
	if sub != "create" && sub != "list" && sub != "revoke" {
		fmt.Fprintf(stderr, tokenUsage, wiring.DefaultStore)
		return fmt.Errorf("token: unknown subcommand %q (create, list, revoke)", sub)
	}
	// -h prints on stdout, as asked for; a wrong flag's complaint goes to stderr.
	out := stderr
	if slices.ContainsFunc(rest, isHelp) {
		out = stdout
	}
	fs := flagenv.NewNoEnv("token "+sub, out)
	f := tokenFlags{api: apiFlags{version: wiring.Version}}
	f.register(fs, sub, wiring.DefaultStore)
	if sub == "create" {
		rest = joinAdminValue(rest)
	}
	onCommandLine, err := parseTokenFlags(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := f.check(sub); err != nil {
		return err
	}
	onServer, err := f.where(onCommandLine)
	if err != nil {
		return err
	}
	// A flag of the other mode on the command line is a mistake worth saying; the same
	// in the environment (a shell with CHRONOS_TOKEN exported) is not.
	if onServer {
		if onCommandLine["no-migrate"] {
			return errors.New("token: --no-migrate is for --store; a server migrates its own store")
		}
		return tokenOverAPI(ctx, sub, f, stdout)
	}
	if onCommandLine["token"] {
		return errors.New("token: --token is for --server; on --store no token is needed")
	}
	return tokenOnStore(ctx, sub, f, wiring, stdout)
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" }

// tokenFlags are every token subcommand's flags; each subcommand registers its own.
type tokenFlags struct {
	owner, id, note, output string
	admin                   adminFlag
	store                   string
	noMigrate               bool
	api                     apiFlags // server, token, timeout (its json is -o json here)
}

func (f *tokenFlags) register(fs *flag.FlagSet, sub, defaultStore string) {
	fs.StringVar(&f.api.server, "server", "", "call this running server's API (env CHRONOS_SERVER), e.g. "+defaultServer)
	fs.StringVar(&f.api.token, "token", "", "with --server: an admin token (env CHRONOS_TOKEN)")
	fs.DurationVar(&f.api.timeout, "timeout", 30*time.Second, "with --server: give up on a request after this long")
	fs.StringVar(&f.store, "store", defaultStore, "work on this store directly (env CHRONOS_STORE): how the first admin token is made")
	fs.BoolVar(&f.noMigrate, "no-migrate", false, "with --store: do not migrate the store's schema first (env CHRONOS_NO_MIGRATE)")
	switch sub {
	case "create":
		fs.StringVar(&f.owner, "owner", "", "the owner every alarm made with this token belongs to (required)")
		fs.Var(&f.admin, "admin", "also allow the admin API: --admin (every admin route) or --admin read (the read-only ones)")
		fs.StringVar(&f.note, "note", "", "what the token is for, shown in token list (at most 200 characters)")
	case "list":
		fs.StringVar(&f.owner, "owner", "", "only this owner's tokens")
	case "revoke":
		fs.StringVar(&f.id, "id", "", "the token id to revoke (from token list)")
	}
	if sub != "revoke" {
		fs.StringVar(&f.output, "o", "table", "output: table, or json (the API's shape, for scripts)")
	}
}

// tokenEnv are the flags that read the environment: where the tokens are and how to
// reach them. Not --owner or --id: a CHRONOS_OWNER left in a shell must not pick whom a
// new token acts for.
var tokenEnv = []string{"server", "token", "store", "no-migrate"}

// parseTokenFlags parses args, then applies the environment to the flags of tokenEnv
// the command line left out; it returns the flags the command line set.
func parseTokenFlags(fs *flag.FlagSet, args []string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, name := range tokenEnv {
		v := os.Getenv(flagenv.EnvName(name))
		if v == "" || set[name] { // an empty variable is an unset one
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return nil, fmt.Errorf("environment %s=%q: %v", flagenv.EnvName(name), v, err)
		}
	}
	return set, nil
}

func (f *tokenFlags) check(sub string) error {
	switch {
	case sub == "create" && f.owner == "":
		return errors.New("token create: --owner is required")
	case sub == "revoke" && f.id == "":
		return errors.New("token revoke: --id is required")
	case f.output != "" && f.output != "table" && f.output != "json":
		return fmt.Errorf("token %s: -o must be table or json, not %q", sub, f.output)
	}
	return nil
}

// where decides between the API (true) and the store: the command line first, then
// the environment, then the default store.
func (f *tokenFlags) where(onCommandLine map[string]bool) (bool, error) {
	switch {
	case onCommandLine["server"] && onCommandLine["store"]:
		return false, errors.New("token: give --server (a running server's API) or --store (the store itself), not both")
	case onCommandLine["server"]:
		return true, nil
	case onCommandLine["store"]:
		return false, nil
	}
	serverEnv, storeEnv := os.Getenv("CHRONOS_SERVER") != "", os.Getenv("CHRONOS_STORE") != ""
	if serverEnv && storeEnv {
		return false, errors.New("token: CHRONOS_SERVER and CHRONOS_STORE are both set: say which to use with --server or --store")
	}
	return serverEnv, nil
}
