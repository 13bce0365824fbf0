package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
)

const alarmUsage = `Usage: chronos alarm <subcommand> [flags]

  create   --in 10m | --at 2030-01-02T15:04:05Z | --cron "0 9 * * 1-5" [--tz Europe/Paris]
           [--label L] [--payload JSON | --payload-file F] [--wake-message M] [--conversation C]
           [--idempotency-key K] [--max-failures N] [--at-most-once] [--endpoint NAME]
           [--tag KEY:VALUE ...]
           once only: [--on-duplicate return|replace] [--max-wait 1h]   (debounce a key)
           cron only: [--misfire fire_once|skip|catch_up] [--catch-up-limit N] [--catch-up-window 36h]
           [--max-consecutive-skips N] [--start-at T] [--end-at T] [--max-fires N] [--jitter-seconds N]
           [--exclude-calendar NAME ...]
  get      ID
  list     [--status S] [--tag KEY:VALUE ...] [--limit N] [--cursor C]
  update   ID [--label L] [--cron EXPR] [--tz TZ] [--wake-message M] [--payload JSON | --payload-file F]
           [--max-failures N] [--tag KEY:VALUE ... | --clear-tags] and create's cron options;
           only the flags given change (--tag replaces every tag)
           (--start-at none, --end-at none, --catch-up-window none clear them)
  cancel   ID
  pause    ID [--until T] [--note TEXT]
  resume   ID
  skip     ID
  trigger  ID
  upcoming ID [--count N]
  events   ID [--limit N]
  attempts ID [--limit N] [--cursor C]   delivery attempts, newest first: status, duration, node, answer
  preview  --cron EXPR [--tz TZ] [--from T] [--count N]
  backfill ID --from T --to T   deliver a cron series' past occurrences in [from, to]
  bulk     pause|resume|cancel [--tag KEY:VALUE ...] [--status S] [--label-prefix P] [--dry-run] [--cursor C]
           act on every one of your alarms the filter selects (at least one filter), in as
           many calls as the server takes
  redeliver ID [--occurrence-key K]   send a past occurrence again (default: the latest delivered)
  redeliver --failed [--since T] [--status S] [--tag KEY:VALUE ...] [--label-prefix P] [--limit N] [--cursor C]
           send the latest occurrence of each of your failed alarms again, at most --limit per call

Times (T) are RFC 3339: 2030-01-02T15:04:05Z, or with an offset. --timezone is --tz.

Every subcommand takes --server (env CHRONOS_SERVER, default ` + defaultServer + `),
--token (env CHRONOS_TOKEN) and -o json (print the API's JSON answer; --json too).
"chronos alarm SUBCOMMAND -h" lists a subcommand's flags.
`

// Alarm runs `chronos alarm ARGS...`: the owner's /v1 routes, as the token's owner.
func Alarm(ctx context.Context, args []string, wiring Wiring, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand("alarm", alarmUsage, args, stdout, stderr)
	if sub == "" {
		return err
	}
	fs := flagenv.NewNoEnv("alarm "+sub, stderr)
	f := apiFlags{version: wiring.Version}
	f.register(fs)
	return f.asUsage(fs, alarm(ctx, sub, rest, fs, &f, stdout, stderr))
}

func alarm(ctx context.Context, sub string, rest []string, fs *flag.FlagSet, f *apiFlags, stdout, stderr io.Writer) error {
	switch sub {
	case "create":
		return alarmCreate(ctx, fs, f, rest, stdout)
	case "update":
		return alarmUpdate(ctx, fs, f, rest, stdout)
	case "pause":
		return alarmPause(ctx, fs, f, rest, stdout)
	case "upcoming":
		return alarmUpcoming(ctx, fs, f, rest, stdout)
	case "preview":
		return alarmPreview(ctx, fs, f, rest, stdout)
	case "backfill":
		return alarmBackfill(ctx, fs, f, rest, stdout)
	case "list":
		return alarmList(ctx, fs, f, rest, stdout, stderr)
	case "bulk":
		return alarmBulk(ctx, fs, f, rest, stdout, stderr)
	case "redeliver":
		return alarmRedeliver(ctx, fs, f, rest, stdout, stderr)
	case "events":
		limit := fs.Int("limit", 0, "at most this many events, oldest first (the server's default: up to 1000)")
		return withID(fs, f, rest, stdout, func(s *session, id string) error {
			events, err := s.c.AlarmEvents(ctx, id, *limit)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printEvents(w, events) })
		})
	}
	if sub == "attempts" {
		limit := fs.Int("limit", 0, "at most this many attempts, newest first (the server's default: 20, at most 100)")
		cursor := fs.String("cursor", "", "the next cursor a previous page printed")
		return withID(fs, f, rest, stdout, func(s *session, id string) error {
			page, err := s.c.Attempts(ctx, id, client.AttemptsOptions{Limit: *limit, Cursor: *cursor})
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printAttempts(w, page) })
		})
	}
	action, ok := map[string]func(*client.Client, context.Context, string) (client.Alarm, error){
		"get":     (*client.Client).GetAlarm,
		"cancel":  (*client.Client).CancelAlarm,
		"resume":  (*client.Client).ResumeAlarm,
		"skip":    (*client.Client).SkipNext,
		"trigger": (*client.Client).TriggerAlarm,
	}[sub]
	if !ok {
		return unknownSubcommand("alarm", alarmUsage, sub, stderr)
	}
	return withID(fs, f, rest, stdout, func(s *session, id string) error {
		a, err := action(s.c, ctx, id)
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error { return printAlarm(w, a) })
	})
}

// withID parses a command that takes exactly one alarm id and runs do with it, the
// API's errors rewritten for the terminal.
func withID(fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer, do func(*session, string) error) error {
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] == "" {
		return flagenv.Usagef(fs, "give exactly one alarm id")
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	return apiError(do(s, pos[0]))
}

func alarmList(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout, stderr io.Writer) error {
	status := fs.String("status", "", "only alarms in this status: active, paused, fired, cancelled or failed")
	limit := fs.Int("limit", 0, "at most this many alarms, 1..500 (the server's default: 100)")
	cursor := fs.String("cursor", "", "the page after the one that printed this cursor")
	var tags tagFlag
	tags.register(fs, "only alarms that carry this tag, key:value (repeat for every one of several)")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	page, err := s.c.ListAlarms(ctx, client.ListAlarms{Status: domain.Status(*status), Tags: tags.tags, Limit: *limit, Cursor: *cursor})
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error {
		if err := printAlarms(w, page.Alarms); err != nil {
			return err
		}
		nextPage(stderr, page.NextCursor)
		return nil
	})
}

// noArgs parses a command that takes flags only.
func noArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return flagenv.Usagef(fs, "unexpected argument %q", pos[0])
	}
	return nil
}

func alarmCreate(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	in := fs.Duration("in", 0, "fire once after this long (a Go duration: 90s, 10m, 2h30m)")
	at := fs.String("at", "", "fire once at this RFC 3339 time (2030-01-02T15:04:05Z, or with an offset)")
	cron := cronFlag(fs, `fire on this cron expression: five fields ("0 9 * * 1-5"), or six with seconds first ("*/10 * * * * *")`)
	tz := tzFlag(fs)
	label := fs.String("label", "", "a label for people")
	var payload payloadFlags
	payload.register(fs)
	var series seriesFlags
	series.register(fs)
	var debounce debounceFlags
	debounce.register(fs)
	wake := fs.String("wake-message", "", "the message of the wake")
	conv := fs.String("conversation", "", "conversation id the wake is for")
	fs.StringVar(conv, "conversation-id", "", "the same as --conversation (the API's conversation_id)")
	key := fs.String("idempotency-key", "", "repeat-safe key: a second create with it answers the first alarm")
	maxFailures := fs.Int("max-failures", 0, "failed deliveries of one occurrence before giving up (the server's default when 0)")
	atMostOnce := fs.Bool("at-most-once", false, "deliver each occurrence at most once instead of at least once")
	endpoint := fs.String("endpoint", "", "the owner's endpoint the wakes go to (chronos endpoint list --mine); the server's --wake-url when not given")
	var tags tagFlag
	tags.register(fs, "a tag of the alarm, key:value (repeat for several)")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	set := given(fs)

	req := client.CreateAlarm{
		Label: *label, WakeMessage: *wake, ConversationID: *conv, IdempotencyKey: *key,
		MaxFailures: *maxFailures, CronExpr: *cron, Timezone: *tz, Endpoint: *endpoint, Tags: tags.tags,
	}
	switch n := count(set["in"], set["at"], set["cron"]); {
	case n == 0:
		return errors.New("alarm create: say when: --in DURATION, --at TIME or --cron EXPR")
	case n > 1:
		return errors.New("alarm create: give only one of --in, --at and --cron")
	case set["in"] && *in < 0:
		return errors.New("alarm create: --in must not be negative")
	case set["in"]:
		req.Kind, req.Delay = domain.KindOnce, *in
	case set["at"]:
		t, err := time.Parse(time.RFC3339Nano, *at)
		if err != nil {
			return fmt.Errorf("alarm create: --at %q is not an RFC 3339 time such as 2030-01-02T15:04:05Z", *at)
		}
		req.Kind, req.FireAt = domain.KindOnce, t
	default:
		req.Kind = domain.KindCron
	}
	if set["max-failures"] && *maxFailures == 0 {
		// The client reads 0 as "the server's default"; someone who typed 0 meant 0.
		return errors.New("alarm create: --max-failures must be at least 1")
	}
	if *atMostOnce {
		req.Delivery = domain.AtMostOnce
	}
	var err error
	if req.Payload, err = payload.read("alarm create", set); err != nil {
		return err
	}
	if err := series.create(set, &req); err != nil {
		return err
	}
	if err := debounce.create(set, &req); err != nil {
		return err
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	r, err := s.c.CreateAlarmResult(ctx, req)
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error {
		l := newListing(w)
		addAlarm(l, r.Alarm)
		l.add("deduped", r.Deduped)
		if r.Replaced {
			l.add("replaced", true)
		}
		return l.flush()
	})
}

// cronFlag registers --cron and its long spelling --cron-expr (the API's name) on one
// value; given reports either as "cron".
func cronFlag(fs *flag.FlagSet, usage string) *string {
	cron := fs.String("cron", "", usage)
	fs.StringVar(cron, "cron-expr", "", "the same as --cron (the API's cron_expr)")
	return cron
}

// tzFlag registers --tz and its long spelling --timezone (the API's name) on one value.
func tzFlag(fs *flag.FlagSet) *string {
	tz := fs.String("tz", "", "the IANA zone --cron is read in (the server's default: UTC)")
	fs.StringVar(tz, "timezone", "", "the same as --tz")
	return tz
}

// payloadFlags are --payload and --payload-file, for create and update.
type payloadFlags struct{ text, file string }

func (p *payloadFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.text, "payload", "", "JSON sent with every wake, stored byte for byte")
	fs.StringVar(&p.file, "payload-file", "", "read the payload JSON from this file (- for stdin)")
}

// read returns the payload given, checked to be JSON, or nil when neither flag was.
func (p payloadFlags) read(cmd string, set map[string]bool) (json.RawMessage, error) {
	var b json.RawMessage
	switch {
	case set["payload"] && set["payload-file"]:
		return nil, fmt.Errorf("%s: give --payload or --payload-file, not both", cmd)
	case set["payload"]:
		b = json.RawMessage(p.text)
	case set["payload-file"]:
		var err error
		if b, err = readPayloadFile(p.file); err != nil {
			return nil, fmt.Errorf("%s: --payload-file: %w", cmd, err)
		}
	default:
		return nil, nil
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%s: the payload is not valid JSON", cmd)
	}
	return b, nil
}

// given is the set of flags the command line (or --server and --token's environment)
// set, so that a flag given as its zero value differs from one left out.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) {
		set[fl.Name] = true
		if short, ok := apiSpellings[fl.Name]; ok {
			set[short] = true
		}
	})
	return set
}

// apiSpellings are flags named as the API names the field, beside the shorter flag
// that sets the same value.
var apiSpellings = map[string]string{"cron-expr": "cron", "conversation-id": "conversation", "timezone": "tz"}

func readPayloadFile(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(path)
}

func count(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
