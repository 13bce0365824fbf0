// Command chronos is the durable alarm scheduler: `chronos serve` runs the HTTP API and
// the dispatcher on one store; `migrate`, `backup`, `token`, `healthcheck` and `version`
// are the tools around it, and `alarm`, `admin` and `endpoint` call a running server
// through package client.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/chronoshq/chronos/internal/bench"
	"github.com/chronoshq/chronos/internal/cli"
	"github.com/chronoshq/chronos/internal/flagenv"

	// Embedded zone data: cron timezones resolve even on hosts without /usr/share/zoneinfo.
	_ "time/tzdata"
)

const usage = `chronos — a durable alarm scheduler

Usage:
  chronos serve   [flags]   run the HTTP API and the dispatcher
  chronos migrate [flags]   bring the store's schema up to date
  chronos backup  --to FILE [--store URL] [--force]
                  a consistent copy of a SQLite store, also while serve runs on it
  chronos token   create|list|revoke [--server URL | --store URL]
                  API tokens, over a running server's API (with an admin token) or on
                  the store itself (how the first admin token is made)
  chronos bench   [flags]   burn-down or steady-rate benchmark on a new database
  chronos export  --store URL --to FILE|-     the whole cluster as JSON lines, to move
                  it to another store (THE FILE HOLDS ENDPOINT SECRETS: mode 0600)
  chronos import  --store URL --from FILE|-   an export, into an empty store of any kind
  chronos alarm   create|get|list|update|cancel|pause|resume|skip|trigger|upcoming|events|preview|backfill|bulk|redeliver
                  the owner's alarms and schedules, over the API
  chronos admin   overview|alarms|alarm|events|retry|cancel|delete|workers|dispatch|pause|resume|retention|backup
                  the operator's view and actions (retry|cancel|delete take --dry-run)
  chronos endpoint create|list|get|update|delete
                  the owners' delivery targets (admin); list --mine: the token owner's own
  chronos calendar put|get|list|delete
                  the token owner's exclusion calendars (alarm create --exclude-calendar)
  chronos healthcheck [--url URL]   exit 0 if a server answers /healthz (container HEALTHCHECK)
  chronos version [--json]          the module version, VCS revision and Go version

Every flag has an environment fallback: --wake-url is CHRONOS_WAKE_URL, and so on; the
alarm, admin, endpoint and calendar commands read only CHRONOS_SERVER and CHRONOS_TOKEN.
Run "chronos <command> -h" for a command's flags; help goes to stdout.

Exit status: 0 success; 1 the command failed at run time (store, server, request);
2 the command line is wrong (unknown command or flag, a missing argument).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs one command line and reports its outcome: help on stdout, errors on one
// line of stderr, and the exit status (flagenv.ExitUsage for a mistake on the command
// line, flagenv.ExitRuntime for a failure).
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	var help *flagenv.Help
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help.Text)
	}
	code := flagenv.ExitCode(err)
	if code == 0 {
		return 0
	}
	fmt.Fprintln(stderr, "chronos:", err)
	var u *flagenv.UsageError
	if errors.As(err, &u) {
		cmd := u.Command
		if cmd == "" {
			cmd = "chronos"
		}
		fmt.Fprintf(stderr, "Run \"%s -h\" for usage.\n", cmd)
	}
	return code
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flagenv.Usagef(nil, "no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serveCommand(ctx, rest, stdout, stderr)
	case "migrate":
		return migrateCommand(ctx, rest, stdout, stderr)
	case "backup":
		return backupCommand(ctx, rest, stdout, stderr)
	case "token":
		return cli.Token(ctx, rest, cliWiring(), stdout, stderr)
	case "bench":
		return benchCommand(ctx, rest, stdout, stderr)
	case "export":
		return exportCommand(ctx, rest, stdout, stderr)
	case "import":
		return importCommand(ctx, rest, stdout, stderr)
	case "alarm":
		return cli.Alarm(ctx, rest, cliWiring(), stdout, stderr)
	case "admin":
		return cli.Admin(ctx, rest, cliWiring(), stdout, stderr)
	case "endpoint":
		return cli.Endpoint(ctx, rest, cliWiring(), stdout, stderr)
	case "calendar":
		return cli.Calendar(ctx, rest, cliWiring(), stdout, stderr)
	case "healthcheck":
		return healthcheckCommand(ctx, rest, stdout, stderr)
	case bench.WorkerCommand: // hidden: one node of `chronos bench --nodes K`
		return benchWorkerCommand(ctx, rest, stdout, stderr)
	case "version", "--version", "-v":
		return versionCommand(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return flagenv.Usagef(nil, "unknown command %q (chronos -h lists them)", cmd)
	}
}

// cliWiring is what the commands of package cli take from the binary.
func cliWiring() cli.Wiring {
	return cli.Wiring{Version: Version(), Open: openExistingStore, DefaultStore: defaultStore}
}
