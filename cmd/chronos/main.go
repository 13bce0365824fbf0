// Command chronos is the durable alarm scheduler: `chronos serve` runs the HTTP API and
// the dispatcher on one store; `migrate`, `token` and `version` are the tools around it,
// and `alarm` and `admin` call a running server through package client.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/chronoshq/chronos/internal/bench"
	"github.com/chronoshq/chronos/internal/cli"

	// Embedded zone data: cron timezones resolve even on hosts without /usr/share/zoneinfo.
	_ "time/tzdata"
)

const usage = `chronos — a durable alarm scheduler

Usage:
  chronos serve   [flags]   run the HTTP API and the dispatcher
  chronos migrate [flags]   bring the store's schema up to date
  chronos token   create|list|revoke [--server URL | --store URL]
                  API tokens, over a running server's API (with an admin token) or on
                  the store itself (how the first admin token is made)
  chronos bench   [flags]   burn-down or steady-rate benchmark on a new database
  chronos alarm   create|get|list|update|cancel|pause|resume|skip|trigger|upcoming|events|preview
                  the owner's alarms and schedules, over the API
  chronos admin   overview|alarms|alarm|events|retry|cancel|delete|workers|dispatch|pause|resume|retention
  chronos endpoint create|list|get|update|delete
                  the owners' delivery targets (admin); list --mine: the token owner's own
  chronos version

Every flag has an environment fallback: --wake-url is CHRONOS_WAKE_URL, and so on; the
alarm, admin and endpoint commands read only CHRONOS_SERVER and CHRONOS_TOKEN.
Run "chronos <command> -h" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chronos:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serveCommand(ctx, rest, stdout, stderr)
	case "migrate":
		return migrateCommand(ctx, rest, stdout, stderr)
	case "token":
		return cli.Token(ctx, rest, cliWiring(), stdout, stderr)
	case "bench":
		return benchCommand(ctx, rest, stdout, stderr)
	case "alarm":
		return cli.Alarm(ctx, rest, cliWiring(), stdout, stderr)
	case "admin":
		return cli.Admin(ctx, rest, cliWiring(), stdout, stderr)
	case "endpoint":
		return cli.Endpoint(ctx, rest, cliWiring(), stdout, stderr)
	case bench.WorkerCommand: // hidden: one node of `chronos bench --nodes K`
		return benchWorkerCommand(ctx, rest, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "chronos", Version())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// cliWiring is what the commands of package cli take from the binary.
func cliWiring() cli.Wiring {
	return cli.Wiring{Version: Version(), Open: openStore, DefaultStore: defaultStore}
}
