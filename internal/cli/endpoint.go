package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/internal/flagenv"
)

const endpointUsage = `Usage: chronos endpoint <subcommand> [flags]     (needs a token made with --admin)

  create  NAME --owner O --url URL [--secret S ... | --secrets-file F]
          [--delivery-timeout 10s] [--max-in-flight N] [--rate-per-second R] [--failure-url URL]
          (without --secret/--secrets-file the server makes a secret and it is printed once)
  list    [--owner O]            every owner's endpoints, or one owner's
  list    --mine                 the token owner's own, without secrets (any token)
  get     NAME --owner O
  update  NAME --owner O [--url URL] [--secret S ... | --secrets-file F] [--delivery-timeout D]
          [--max-in-flight N] [--rate-per-second R] [--failure-url URL]; only the flags given change
          (--delivery-timeout 0: the server's; --failure-url "": none)
  delete  NAME --owner O         alarms naming it keep the name; their wakes fail until
                                 an endpoint of that name exists again

NAME may also be given as --name NAME. --rate is the old spelling of --rate-per-second.
An owner's alarms name one of its endpoints (chronos alarm create --endpoint NAME); only
an admin registers them. Secrets sign every wake, each of them: to rotate, update with
the new and the old, then with the new alone once receivers have it. A new secret has at
least 24 bytes of key; create without one and the server makes one, printed that once.
The API never shows a secret again, only its size and fingerprint. --secret puts it in
your shell history and the process list: prefer --secrets-file (one secret a line; -
reads standard input).

Every subcommand takes --server (env CHRONOS_SERVER, default ` + defaultServer + `),
--token (env CHRONOS_TOKEN) and -o json (print the API's JSON answer; --json too).
"chronos endpoint SUBCOMMAND -h" lists a subcommand's flags.
`

// Endpoint runs `chronos endpoint ARGS...`: the admin's endpoint routes, and the
// owner's own list.
func Endpoint(ctx context.Context, args []string, wiring Wiring, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand("endpoint", endpointUsage, args, stdout, stderr)
	if sub == "" {
		return err
	}
	fs := flagenv.NewNoEnv("endpoint "+sub, stderr)
	f := apiFlags{version: wiring.Version}
	f.register(fs)
	return f.asUsage(fs, endpoint(ctx, sub, rest, fs, &f, stdout, stderr))
}

func endpoint(ctx context.Context, sub string, rest []string, fs *flag.FlagSet, f *apiFlags, stdout, stderr io.Writer) error {
	owner := func() *string { return fs.String("owner", "", "the endpoint's owner, as its tokens name it") }
	switch sub {
	case "create":
		return endpointCreate(ctx, fs, f, owner(), rest, stdout, stderr)
	case "list":
		o := owner()
		mine := fs.Bool("mine", false, "the token owner's own endpoints (any token; no secrets)")
		return noID(fs, f, rest, stdout, func(s *session) error {
			if *mine {
				if *o != "" {
					return errors.New("endpoint list: give --mine or --owner, not both")
				}
				es, err := s.c.ListMyEndpoints(ctx)
				if err != nil {
					return err
				}
				return s.show(func(w io.Writer) error { return printEndpoints(w, es) })
			}
			es, err := s.c.Admin().ListEndpoints(ctx, *o)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printAdminEndpoints(w, es) })
		})
	case "get":
		o := owner()
		return withName(fs, f, o, rest, stdout, func(s *session, name string) error {
			e, err := s.c.Admin().GetEndpoint(ctx, *o, name)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printAdminEndpoint(w, e) })
		})
	case "update":
		return endpointUpdate(ctx, fs, f, owner(), rest, stdout, stderr)
	case "delete":
		o := owner()
		return withName(fs, f, o, rest, stdout, func(s *session, name string) error {
			if err := s.c.Admin().DeleteEndpoint(ctx, *o, name); err != nil {
				return err
			}
			return s.show(func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "deleted endpoint %s of %s\n", name, *o)
				return err
			})
		})
	default:
		return unknownSubcommand("endpoint", endpointUsage, sub, stderr)
	}
}

// withName parses a command on one endpoint (--owner and the name) and runs do, the
// API's errors rewritten for the terminal.
func withName(fs *flag.FlagSet, f *apiFlags, owner *string, args []string, stdout io.Writer, do func(*session, string) error) error {
	name, err := parseName(fs, owner, args)
	if err != nil {
		return err
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	return apiError(do(s, name))
}

// parseName parses the flags and the endpoint's name: one argument, or --name (the
// spelling create once required, kept for scripts), and --owner.
func parseName(fs *flag.FlagSet, owner *string, args []string) (string, error) {
	nameFlag := fs.String("name", "", "the endpoint's name, the same as the NAME argument")
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return "", err
	}
	name := *nameFlag
	switch {
	case len(pos) > 1:
		return "", flagenv.Usagef(fs, "give one endpoint name, got %q", pos)
	case len(pos) == 1 && name != "" && pos[0] != name:
		return "", flagenv.Usagef(fs, "give the name once: %q or --name %q", pos[0], name)
	case len(pos) == 1:
		name = pos[0]
	}
	switch {
	case name == "":
		return "", flagenv.Usagef(fs, "give the endpoint's name (NAME, or --name NAME)")
	case *owner == "":
		return "", flagenv.Usagef(fs, "give the endpoint's --owner")
	}
	return name, nil
}

// endpointFlags are the fields create and update set.
type endpointFlags struct {
	url, failureURL string
	secrets         flagenv.List
	secretsFile     string
	timeout         time.Duration
	maxInFlight     int
	rate            float64
}

func (ef *endpointFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&ef.url, "url", "", "where the endpoint's wakes go (http:// or https://)")
	fs.Var(&ef.secrets, "secret", "a secret every wake is signed with; repeat it for several (rotation)")
	fs.StringVar(&ef.secretsFile, "secrets-file", "", "read the secrets from this file, one a line (- for standard input)")
	fs.DurationVar(&ef.timeout, "delivery-timeout", 0, "bound on one delivery to it, 100ms to 5m (0: the server's --delivery-timeout)")
	fs.IntVar(&ef.maxInFlight, "max-in-flight", 0, "the endpoint's wakes in flight on one node at most (0: no cap of its own)")
	fs.Float64Var(&ef.rate, "rate-per-second", 0, "the endpoint's wakes started per second on one node at most (0: unpaced)")
	fs.Float64Var(&ef.rate, "rate", 0, "deprecated: the old name of --rate-per-second")
	fs.StringVar(&ef.failureURL, "failure-url", "", "where to notify when one of its alarms fails (\"\": none)")
}

// rateGiven reports --rate-per-second, or its old name --rate with a warning on stderr.
func rateGiven(set map[string]bool, stderr io.Writer) bool {
	if set["rate"] {
		fmt.Fprintln(stderr, "chronos: --rate is deprecated: say --rate-per-second, the API's rate_per_second")
	}
	return set["rate"] || set["rate-per-second"]
}

// secretList is the secrets given, from --secret or --secrets-file (never both); nil
// when neither.
func (ef *endpointFlags) secretList(cmd string, set map[string]bool) ([]string, error) {
	switch {
	case set["secret"] && set["secrets-file"]:
		return nil, fmt.Errorf("%s: give --secret or --secrets-file, not both", cmd)
	case set["secret"]:
		return ef.secrets.Values, nil
	case !set["secrets-file"]:
		return nil, nil
	}
	var in io.Reader = os.Stdin
	if ef.secretsFile != "-" {
		file, err := os.Open(ef.secretsFile)
		if err != nil {
			return nil, fmt.Errorf("%s: --secrets-file: %w", cmd, err)
		}
		defer file.Close()
		in = file
	}
	var out []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: --secrets-file: %w", cmd, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: --secrets-file %s holds no secret", cmd, ef.secretsFile)
	}
	return out, nil
}

func endpointCreate(ctx context.Context, fs *flag.FlagSet, f *apiFlags, owner *string, args []string, stdout, stderr io.Writer) error {
	var ef endpointFlags
	ef.register(fs)
	name, err := parseName(fs, owner, args)
	if err != nil {
		return err
	}
	set := given(fs)
	rateGiven(set, stderr)
	secrets, err := ef.secretList("endpoint create", set)
	if err != nil {
		return err
	}
	switch {
	case ef.url == "":
		return flagenv.Usagef(fs, "give --url")
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	e, err := s.c.Admin().CreateEndpoint(ctx, *owner, client.CreateEndpoint{Name: name, URL: ef.url, Secrets: secrets,
		Timeout: ef.timeout, MaxInFlight: ef.maxInFlight, RatePerSecond: ef.rate, FailureURL: ef.failureURL})
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error { return printAdminEndpoint(w, e) })
}

func endpointUpdate(ctx context.Context, fs *flag.FlagSet, f *apiFlags, owner *string, args []string, stdout, stderr io.Writer) error {
	var ef endpointFlags
	ef.register(fs)
	return withName(fs, f, owner, args, stdout, func(s *session, name string) error {
		// Only what was given is sent: the API leaves an absent member as it is.
		set := given(fs)
		var req client.UpdateEndpoint
		var err error
		if req.Secrets, err = ef.secretList("endpoint update", set); err != nil {
			return err
		}
		if set["url"] {
			req.URL = &ef.url
		}
		if set["failure-url"] {
			req.FailureURL = &ef.failureURL
		}
		if set["delivery-timeout"] {
			req.Timeout = &ef.timeout
		}
		if set["max-in-flight"] {
			req.MaxInFlight = &ef.maxInFlight
		}
		if rateGiven(set, stderr) {
			req.RatePerSecond = &ef.rate
		}
		if reflect.ValueOf(req).IsZero() { // a mistake on the command line, not a request to send
			return errors.New("endpoint update: say what to change: --url, --secret, --delivery-timeout, ... (see chronos endpoint help)")
		}
		e, err := s.c.Admin().UpdateEndpoint(ctx, *owner, name, req)
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error { return printAdminEndpoint(w, e) })
	})
}

func addEndpoint(l listing, e client.Endpoint) {
	l.add("name", e.Name)
	l.add("url", e.URL)
	timeout := "the server's"
	if e.Timeout != 0 {
		timeout = e.Timeout.String()
	}
	l.add("timeout", timeout)
	l.add("max_in_flight", orNone(e.MaxInFlight != 0, fmt.Sprint(e.MaxInFlight)))
	l.add("rate_per_second", orNone(e.RatePerSecond != 0, fmt.Sprint(e.RatePerSecond)))
	l.add("failure_url", orDash(e.FailureURL))
}

func orNone(set bool, v string) string {
	if !set {
		return "-"
	}
	return v
}

func printAdminEndpoint(w io.Writer, e client.AdminEndpoint) error {
	l := newListing(w)
	l.add("owner", e.Owner)
	addEndpoint(l, e.Endpoint)
	for i, d := range e.Secrets {
		weak := ""
		if d.Weak {
			weak = " (weak: shorter than a new secret may be; rotate it out)"
		}
		l.add(fmt.Sprintf("secret %d", i+1), fmt.Sprintf("%d bytes, fingerprint %s%s", d.Size, d.Fingerprint, weak))
	}
	if e.MadeSecret != "" {
		l.add("made secret", e.MadeSecret+" (the server made it; shown this once: give it to the receiver now)")
	}
	l.add("created_at", when(e.CreatedAt))
	l.add("updated_at", when(e.UpdatedAt))
	return l.flush()
}

func printAdminEndpoints(w io.Writer, es []client.AdminEndpoint) error {
	t := newTable(w)
	fmt.Fprintln(t, "OWNER\tNAME\tURL\tSECRETS\tTIMEOUT\tMAX IN FLIGHT\tRATE/S\tFAILURE URL")
	for _, e := range es {
		fmt.Fprintf(t, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", e.Owner, e.Name, e.URL, len(e.Secrets), orNone(e.Timeout != 0, e.Timeout.String()),
			orNone(e.MaxInFlight != 0, fmt.Sprint(e.MaxInFlight)), orNone(e.RatePerSecond != 0, fmt.Sprint(e.RatePerSecond)), orDash(e.FailureURL))
	}
	return t.Flush()
}

func printEndpoints(w io.Writer, es []client.Endpoint) error {
	t := newTable(w)
	fmt.Fprintln(t, "NAME\tURL\tTIMEOUT\tMAX IN FLIGHT\tRATE/S\tFAILURE URL")
	for _, e := range es {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.URL, orNone(e.Timeout != 0, e.Timeout.String()),
			orNone(e.MaxInFlight != 0, fmt.Sprint(e.MaxInFlight)), orNone(e.RatePerSecond != 0, fmt.Sprint(e.RatePerSecond)), orDash(e.FailureURL))
	}
	return t.Flush()
}
