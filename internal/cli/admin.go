package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
)

const adminUsage = `Usage: chronos admin <subcommand> [flags]     (needs a token made with --admin)

  overview                     counts, backlog, recent wakes, workers, dispatch
  alarms    [--owner O] [--status S] [--kind K] [--label-prefix P] [--failed-since TIME]
            [--limit N] [--cursor C]
  alarm     ID
  events    ID [--limit N]
  retry     ID | filter flags [--dry-run]   retry a failed alarm, or every failed one the filter selects
  cancel    ID | filter flags [--dry-run]
  delete    ID | filter flags [--dry-run]   delete for good, history included
  workers
  dispatch                     whether dispatch is paused
  pause                        stop every node from claiming alarms
  resume
  retention [--run]            settings and last run; --run runs it now
  backup                       SQLite: the node writes a checked copy of the store to its
                               --backup-dir (chronos backup --to FILE on its host needs none)

Filter flags (retry, cancel, delete): --owner --status --kind --label-prefix
--failed-since (RFC 3339) --limit (default and max 10000 a call; "more" says call again,
with the --cursor it prints).
--dry-run prints how many alarms the filter selects and how many would change, and
changes nothing.
Every subcommand takes --server (env CHRONOS_SERVER, default ` + defaultServer + `),
--token (env CHRONOS_TOKEN) and -o json (print the API's JSON answer; --json too).
"chronos admin SUBCOMMAND -h" lists a subcommand's flags.
`

// Admin runs `chronos admin ARGS...`: the operator's /admin/v1 routes.
func Admin(ctx context.Context, args []string, wiring Wiring, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand("admin", adminUsage, args, stdout, stderr)
	if sub == "" {
		return err
	}
	fs := flagenv.NewNoEnv("admin "+sub, stderr)
	f := apiFlags{version: wiring.Version}
	f.register(fs)
	return f.asUsage(fs, adminCommand(ctx, sub, rest, fs, &f, stdout, stderr))
}

func adminCommand(ctx context.Context, sub string, rest []string, fs *flag.FlagSet, f *apiFlags, stdout, stderr io.Writer) error {
	admin := func(s *session) *client.Admin { return s.c.Admin() }
	switch sub {
	case "overview":
		return noID(fs, f, rest, stdout, func(s *session) error {
			o, err := admin(s).Overview(ctx)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printOverview(w, o) })
		})
	case "alarms":
		return adminAlarms(ctx, fs, f, rest, stdout, stderr)
	case "alarm":
		return withID(fs, f, rest, stdout, func(s *session, id string) error {
			a, err := admin(s).Alarm(ctx, id)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printAdminAlarm(w, a) })
		})
	case "events":
		limit := fs.Int("limit", 0, "at most this many events, oldest first (the server's default: up to 1000)")
		return withID(fs, f, rest, stdout, func(s *session, id string) error {
			events, err := admin(s).Events(ctx, id, *limit)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printEvents(w, events) })
		})
	case "retry", "cancel", "delete":
		return adminAct(ctx, sub, fs, f, rest, stdout)
	case "workers":
		return noID(fs, f, rest, stdout, func(s *session) error {
			ws, err := admin(s).Workers(ctx)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printWorkers(w, ws) })
		})
	case "dispatch", "pause", "resume":
		call := map[string]func(*client.Admin, context.Context) (client.Dispatch, error){
			"dispatch": (*client.Admin).Dispatch,
			"pause":    (*client.Admin).PauseDispatch,
			"resume":   (*client.Admin).ResumeDispatch,
		}[sub]
		return noID(fs, f, rest, stdout, func(s *session) error {
			d, err := call(admin(s), ctx)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error {
				l := newListing(w)
				addDispatch(l, "", d)
				return l.flush()
			})
		})
	case "retention":
		run := fs.Bool("run", false, "run retention now instead of showing its settings")
		return noID(fs, f, rest, stdout, func(s *session) error {
			if *run {
				r, err := admin(s).RunRetention(ctx)
				if err != nil {
					return err
				}
				return s.show(func(w io.Writer) error {
					l := newListing(w)
					addRun(l, "", r)
					return l.flush()
				})
			}
			r, err := admin(s).Retention(ctx)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printRetention(w, r) })
		})
	case "backup":
		return noID(fs, f, rest, stdout, func(s *session) error {
			b, err := admin(s).Backup(ctx)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error {
				l := newListing(w)
				l.add("file", b.File)
				l.add("bytes", b.Bytes)
				l.add("at", when(b.At))
				l.add("took", b.Took.String())
				return l.flush()
			})
		})
	default:
		return unknownSubcommand("admin", adminUsage, sub, stderr)
	}
}

// noID parses a command without arguments and runs do, the API's errors rewritten for
// the terminal.
func noID(fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer, do func(*session) error) error {
	if err := noArgs(fs, args); err != nil {
		return err
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	return apiError(do(s))
}

// filterFlags are the selection flags of admin alarms and the bulk actions.
type filterFlags struct {
	owner, status, kind, labelPrefix, failedSince string
	limit                                         int
}

func (ff *filterFlags) register(fs *flag.FlagSet, limitUsage string) {
	fs.StringVar(&ff.owner, "owner", "", "only this owner's alarms")
	fs.StringVar(&ff.status, "status", "", "only alarms in this status: active, paused, fired, cancelled or failed")
	fs.StringVar(&ff.kind, "kind", "", "only once or only cron alarms")
	fs.StringVar(&ff.labelPrefix, "label-prefix", "", "only alarms whose label starts with this")
	fs.StringVar(&ff.failedSince, "failed-since", "", "only alarms that failed at or after this RFC 3339 time (implies --status failed)")
	fs.IntVar(&ff.limit, "limit", 0, limitUsage)
}

// selects reports whether any filter flag beyond --limit was given.
func (ff *filterFlags) selects() bool {
	return ff.owner != "" || ff.status != "" || ff.kind != "" || ff.labelPrefix != "" || ff.failedSince != ""
}

func (ff *filterFlags) since() (time.Time, error) {
	if ff.failedSince == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, ff.failedSince)
	if err != nil {
		return time.Time{}, fmt.Errorf("--failed-since %q is not an RFC 3339 time such as 2030-01-02T15:04:05Z", ff.failedSince)
	}
	return t, nil
}

func adminAlarms(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout, stderr io.Writer) error {
	var ff filterFlags
	ff.register(fs, "at most this many alarms (the server's default when 0)")
	cursor := fs.String("cursor", "", "the page after the one that printed this cursor")
	return noID(fs, f, args, stdout, func(s *session) error {
		since, err := ff.since()
		if err != nil {
			return err
		}
		page, err := s.c.Admin().Alarms(ctx, client.AdminListAlarms{
			Owner: ff.owner, Status: domain.Status(ff.status), Kind: domain.Kind(ff.kind),
			LabelPrefix: ff.labelPrefix, FailedSince: since, Limit: ff.limit, Cursor: *cursor,
		})
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error {
			if err := printAdminAlarms(w, page.Alarms); err != nil {
				return err
			}
			nextPage(stderr, page.NextCursor)
			return nil
		})
	})
}

// adminAct runs admin retry|cancel|delete: on one alarm given by id, or in bulk on the
// alarms the filter flags select. Never both, and never neither: a bare "admin delete"
// must not mean anything.
func adminAct(ctx context.Context, sub string, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	var ff filterFlags
	ff.register(fs, "act on at most this many alarms in this call (the server's default and maximum when 0: 10000)")
	dryRun := fs.Bool("dry-run", false, "change nothing: print how many alarms the filter selects and how many the action would change")
	cursor := fs.String("cursor", "", "go on after the alarms an earlier call went through (the cursor it printed)")
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return fmt.Errorf("admin %s: give one alarm id, or filter flags", sub)
	case len(pos) == 1 && (ff.selects() || ff.limit != 0 || *cursor != ""):
		return fmt.Errorf("admin %s: give an alarm id or filter flags, not both", sub)
	case len(pos) == 0 && !ff.selects():
		return fmt.Errorf("admin %s: give an alarm id, or at least one of --owner --status --kind --label-prefix --failed-since", sub)
	case len(pos) == 1 && *dryRun:
		return fmt.Errorf("admin %s: --dry-run is for filter flags; admin alarm ID shows the one alarm", sub)
	}
	since, err := ff.since()
	if err != nil {
		return fmt.Errorf("admin %s: %w", sub, err)
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	a := s.c.Admin()
	if len(pos) == 1 {
		return apiError(adminActOne(ctx, s, a, sub, pos[0]))
	}
	bulk := map[string]func(*client.Admin, context.Context, client.BulkFilter) (client.BulkResult, error){
		"retry": (*client.Admin).BulkRetry, "cancel": (*client.Admin).BulkCancel, "delete": (*client.Admin).BulkDelete,
	}[sub]
	res, err := bulk(a, ctx, client.BulkFilter{
		Owner: ff.owner, Status: domain.Status(ff.status), Kind: domain.Kind(ff.kind),
		LabelPrefix: ff.labelPrefix, FailedSince: since, Limit: ff.limit, Cursor: *cursor, DryRun: *dryRun,
	})
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error {
		if res.DryRun {
			more := ""
			if res.More {
				more = "; more may match beyond --limit: go on with --cursor " + res.NextCursor
			}
			_, err := fmt.Fprintf(w, "dry run: %s would change %d of the %d alarms the filter selects%s; nothing was changed\n",
				sub, res.Changed, res.Matched, more)
			return err
		}
		l := newListing(w)
		l.add("matched", res.Matched)
		l.add("changed", res.Changed)
		l.add("more", res.More)
		if err := l.flush(); err != nil {
			return err
		}
		if res.More {
			_, err := fmt.Fprintf(w, "more alarms may match: go on with the same command and --cursor %s\n", res.NextCursor)
			return err
		}
		return nil
	})
}

func adminActOne(ctx context.Context, s *session, a *client.Admin, sub, id string) error {
	if sub == "delete" {
		d, err := a.Delete(ctx, id)
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error {
			l := newListing(w)
			l.add("deleted alarms", d.Alarms)
			l.add("deleted events", d.Events)
			return l.flush()
		})
	}
	act := (*client.Admin).Retry
	if sub == "cancel" {
		act = (*client.Admin).Cancel
	}
	alarm, err := act(a, ctx, id)
	if err != nil {
		return err
	}
	return s.show(func(w io.Writer) error { return printAdminAlarm(w, alarm) })
}

func printAdminAlarm(w io.Writer, a client.AdminAlarm) error {
	l := newListing(w)
	addAlarm(l, a.Alarm)
	l.add("owner", a.Owner)
	claimed := "-"
	if a.ClaimedBy != "" {
		claimed = a.ClaimedBy + " at " + when(a.ClaimedAt)
	}
	l.add("claimed_by", claimed)
	l.add("redacted", a.Redacted)
	l.add("payload_size", fmt.Sprintf("%d bytes, sha256 %s", a.PayloadSize, a.PayloadSHA256))
	l.add("wake_message_size", fmt.Sprintf("%d bytes, sha256 %s", a.WakeMessageSize, a.WakeMessageSHA256))
	return l.flush()
}

func printAdminAlarms(w io.Writer, alarms []client.AdminAlarm) error {
	t := newTable(w)
	fmt.Fprintln(t, "ID\tOWNER\tKIND\tSTATUS\tNEXT FIRE\tFAILURES\tLABEL\tLAST ERROR")
	for _, a := range alarms {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", a.ID, a.Owner, a.Kind, a.Status, when(a.NextFireAt),
			a.FailureCount, a.MaxFailures, oneLine(a.Label), oneLine(a.LastError))
	}
	return t.Flush()
}

func printOverview(w io.Writer, o client.Overview) error {
	l := newListing(w)
	// Lifecycle order, then any status this CLI does not know yet, by name.
	var extra []string
	for st := range o.Counts {
		if !slices.Contains(domain.Statuses, st) {
			extra = append(extra, string(st))
		}
	}
	sort.Strings(extra)
	for _, st := range domain.Statuses {
		l.add(string(st), o.Counts[st])
	}
	for _, st := range extra {
		l.add(st, o.Counts[domain.Status(st)])
	}
	l.add("total", o.Total)
	l.add("due_backlog", o.DueBacklog)
	l.add("oldest_due_at", when(o.OldestDueAt))
	l.add("oldest_due_lag", seconds(o.OldestDueLag))
	l.add("wakes_last_minute", fmt.Sprintf("%d delivered, %d failed", o.WakesLastMinute.Delivered, o.WakesLastMinute.Failed))
	l.add("wakes_last_hour", fmt.Sprintf("%d delivered, %d failed", o.WakesLastHour.Delivered, o.WakesLastHour.Failed))
	l.add("live_workers", o.LiveWorkers)
	if len(o.QueuingEndpoints) == 0 {
		l.add("queuing_endpoints", "none")
	}
	for _, q := range o.QueuingEndpoints {
		name := "queuing " + oneLine(q.Owner) + "/" + oneLine(q.Name)
		if q.Owner == "" && q.Name == "" {
			name = "queuing (wake URL)"
		}
		l.add(name,
			fmt.Sprintf("%d queued, %d in flight, %d held back", q.Queued, q.InFlight, q.HeldBack))
	}
	addDispatch(l, "dispatch_", o.Dispatch)
	switch r := o.Replica; {
	case r == nil:
	case r.Available:
		l.add("replica_lag", seconds(r.Lag))
	default:
		l.add("replica", "unavailable, reading the primary: "+oneLine(r.Error))
	}
	l.add("now", when(o.Now))
	return l.flush()
}

func addDispatch(l listing, prefix string, d client.Dispatch) {
	l.add(prefix+"paused", d.Paused)
	if d.Paused {
		l.add(prefix+"since", when(d.Since))
		l.add(prefix+"by", d.By)
		l.add(prefix+"paused_for", seconds(d.PausedFor))
	}
}

func printWorkers(w io.Writer, ws []client.Worker) error {
	t := newTable(w)
	fmt.Fprintln(t, "ID\tHOST\tPID\tVERSION\tALIVE\tHEARTBEAT AGE\tIN FLIGHT\tDELIVERED 1M/1H\tFAILED 1M/1H\tSTALE\tLAG P50/P99 MS\tSTARTED")
	for _, k := range ws {
		st := k.Stats
		fmt.Fprintf(t, "%s\t%s\t%d\t%s\t%t\t%s\t%d\t%d/%d\t%d/%d\t%d\t%g/%g\t%s\n", k.ID, k.Host, k.PID, k.Version, k.Alive,
			seconds(k.HeartbeatAge), st.InFlight, st.Delivered1m, st.Delivered1h, st.Failed1m, st.Failed1h, st.Stale,
			st.LagP50Ms, st.LagP99Ms, when(k.StartedAt))
	}
	return t.Flush()
}

func printRetention(w io.Writer, r client.Retention) error {
	l := newListing(w)
	l.add("enabled", r.Enabled)
	l.add("retention", r.Period.String())
	l.add("events_per_alarm", r.EventsPerAlarm)
	if r.LastRun == nil {
		l.add("last_run", "never")
	} else {
		addRun(l, "last_run.", *r.LastRun)
	}
	return l.flush()
}

func addRun(l listing, prefix string, r client.RetentionRun) {
	l.add(prefix+"node", r.Node)
	l.add(prefix+"started_at", when(r.StartedAt))
	l.add(prefix+"finished_at", when(r.FinishedAt))
	l.add(prefix+"alarms_deleted", r.AlarmsDeleted)
	l.add(prefix+"events_deleted", r.EventsDeleted)
	if r.Error != "" {
		l.add(prefix+"error", oneLine(r.Error))
	}
}
