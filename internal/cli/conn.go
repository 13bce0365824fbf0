package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/internal/flagenv"
)

// The alarm and admin commands talk to a running server through package client. They
// share the connection flags below; unlike serve's flags, only --server and --token
// read the environment: a CHRONOS_OWNER or CHRONOS_STATUS left in a shell must not
// quietly widen or narrow a bulk delete.

const defaultServer = "http://127.0.0.1:8080"

// apiFlags are the flags every API command takes, and the version the binary reports.
type apiFlags struct {
	server  string
	token   string
	output  string // "table" (what people read) or "json"
	timeout time.Duration
	version string // not a flag: Wiring.Version, for the User-Agent
	// contacted is set when the command sends its first request: an error before that
	// is a mistake on the command line (exit 2), one after it a failure (exit 1).
	contacted bool
}

func (f *apiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.server, "server", defaultServer, "the chronos server's base URL (env CHRONOS_SERVER)")
	fs.StringVar(&f.token, "token", "", "bearer token (env CHRONOS_TOKEN)")
	fs.StringVar(&f.output, "o", "table", "output: table (for people) or json (the API's JSON answer as it came, for scripts)")
	fs.StringVar(&f.output, "output", "table", "the same as -o")
	fs.Var(jsonFlag{&f.output}, "json", "the same as -o json")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up on a request after this long")
}

// jsonFlag is --json, kept as the short way to say -o json.
type jsonFlag struct{ output *string }

func (j jsonFlag) String() string {
	if j.output != nil && *j.output == "json" {
		return "true"
	}
	return "false"
}

func (j jsonFlag) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	if b {
		*j.output = "json"
	}
	return nil
}

func (j jsonFlag) IsBoolFlag() bool { return true }

// asUsage reports err as a mistake on the command line when the command failed before
// it sent any request (see apiFlags.contacted).
func (f *apiFlags) asUsage(fs *flag.FlagSet, err error) error {
	if f.contacted {
		return err
	}
	return flagenv.AsUsage(fs, err)
}

// errNoToken says where a token comes from, since the API answers nothing without one.
var errNoToken = errors.New("no token: pass --token or set CHRONOS_TOKEN; an operator makes one with " +
	"`chronos token create --owner NAME` (add --admin for the admin commands)")

// parseAPIFlags reads CHRONOS_SERVER and CHRONOS_TOKEN, then the command line, which
// wins. Flags and arguments may come in any order ("alarm get ID --json"); "--" ends
// the flags. It returns the arguments.
func parseAPIFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	for _, name := range []string{"server", "token"} {
		if v, ok := os.LookupEnv(flagenv.EnvName(name)); ok {
			if err := fs.Set(name, v); err != nil {
				return nil, fmt.Errorf("environment %s: %v", flagenv.EnvName(name), err)
			}
		}
	}
	var pos []string
	for {
		if err := flagenv.ParseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// capture keeps the body of the last answer, so --json can print the API's own bytes
// rather than a re-encoding of the client's types.
type capture struct {
	base http.RoundTripper
	last []byte
	sent *bool // apiFlags.contacted
}

func (c *capture) RoundTrip(req *http.Request) (*http.Response, error) {
	*c.sent = true
	res, err := c.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	c.last = body
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

// session is one API command's connection and output.
type session struct {
	c      *client.Client
	flags  apiFlags
	tap    *capture
	stdout io.Writer
}

func (f *apiFlags) session(stdout io.Writer, opts ...client.Option) (*session, error) {
	switch {
	case f.output != "table" && f.output != "json":
		return nil, fmt.Errorf("-o %q: give table or json", f.output)
	case f.token == "":
		return nil, errNoToken
	}
	tap := &capture{base: http.DefaultTransport, sent: &f.contacted}
	c, err := client.New(f.server, f.token, append([]client.Option{
		client.WithHTTPClient(&http.Client{Transport: tap, Timeout: f.timeout}),
		client.WithUserAgent("chronos-cli/" + f.version)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &session{c: c, flags: *f, tap: tap, stdout: stdout}, nil
}

// show prints the answer: the API's JSON with -o json, else what human draws.
func (s *session) show(human func(io.Writer) error) error {
	if s.flags.output == "json" {
		out := s.tap.last
		if len(out) == 0 || out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		_, err := s.stdout.Write(out)
		return err
	}
	return human(s.stdout)
}

// apiError rewrites an API error for the terminal: the code, the field and the message,
// plus what to do about the usual ones.
func apiError(err error) error {
	var e *client.Error
	if !errors.As(err, &e) {
		return err
	}
	msg := e.Message
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	code := e.Code
	if code == "" {
		code = "error"
	}
	out := fmt.Sprintf("%s (HTTP %d): %s", code, e.StatusCode, msg)
	switch {
	case client.IsUnauthenticated(err):
		out += "\n  check --token or CHRONOS_TOKEN; an operator makes a token with `chronos token create --owner NAME`"
	case client.IsForbidden(err):
		out += "\n  this needs an admin token: `chronos token create --owner NAME --admin`"
	}
	return errors.New(out)
}

// subcommand splits `chronos CMD SUB ARGS...`. "help", -h and --help print usage on
// stdout and answer sub ""; so does a missing subcommand, on stderr, with a usage error.
func subcommand(cmd, usage string, args []string, stdout, stderr io.Writer) (sub string, rest []string, err error) {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return "", nil, &flagenv.UsageError{Command: "chronos " + cmd, Err: fmt.Errorf("%s: give a subcommand", cmd)}
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return "", nil, nil
	}
	return args[0], args[1:], nil
}

// unknownSubcommand refuses a subcommand cmd does not have, listing those it has.
func unknownSubcommand(cmd, usage, sub string, stderr io.Writer) error {
	fmt.Fprint(stderr, usage)
	return &flagenv.UsageError{Command: "chronos " + cmd, Err: fmt.Errorf("%s: unknown subcommand %q", cmd, sub)}
}
