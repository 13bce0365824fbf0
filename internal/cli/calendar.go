package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/internal/flagenv"
)

const calendarUsage = `Usage: chronos calendar <subcommand> [flags]     (the token owner's calendars)

  put     NAME --timezone TZ [--date 2026-12-25 ...] [--weekday 0 ...] [--range 2026-12-24..2026-12-31 ...]
          create or replace the calendar, whole: what is not given is not excluded
  get     NAME
  list
  delete  NAME                   refused while a series names it (the refusal names one)

A cron series names calendars with chronos alarm create|update --exclude-calendar NAME
(repeat it, at most 8): no occurrence is delivered on a day one of them excludes, the day
as the calendar's own --timezone sees it. Weekdays are 0 (Sunday) to 6 (Saturday). A
change applies to the next occurrence of every series naming the calendar.

Every subcommand takes --server (env CHRONOS_SERVER, default ` + defaultServer + `),
--token (env CHRONOS_TOKEN) and -o json (print the API's JSON answer; --json too).
"chronos calendar SUBCOMMAND -h" lists a subcommand's flags.
`

// Calendar runs `chronos calendar ARGS...`: the owner's calendar routes.
func Calendar(ctx context.Context, args []string, wiring Wiring, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand("calendar", calendarUsage, args, stdout, stderr)
	if sub == "" {
		return err
	}
	fs := flagenv.NewNoEnv("calendar "+sub, stderr)
	f := apiFlags{version: wiring.Version}
	f.register(fs)
	return f.asUsage(fs, calendar(ctx, sub, rest, fs, &f, stdout, stderr))
}

func calendar(ctx context.Context, sub string, rest []string, fs *flag.FlagSet, f *apiFlags, stdout, stderr io.Writer) error {
	switch sub {
	case "put":
		var (
			tz                    string
			dates, weekdays, runs flagenv.List
		)
		fs.StringVar(&tz, "timezone", "", "the IANA zone whose days the exclusions name (required)")
		fs.Var(&dates, "date", "a date to exclude, YYYY-MM-DD; repeat it")
		fs.Var(&weekdays, "weekday", "a weekday to exclude, 0 (Sunday) to 6; repeat it")
		fs.Var(&runs, "range", "an inclusive run of dates to exclude, FROM..TO; repeat it")
		return withCalendarName(fs, f, rest, stdout, func(s *session, name string) error {
			c := client.Calendar{Name: name, Timezone: tz, ExcludeDates: dates.Values}
			for _, w := range weekdays.Values {
				n, err := strconv.Atoi(w)
				if err != nil {
					return flagenv.Usagef(fs, "--weekday %q: give a number from 0 (Sunday) to 6", w)
				}
				c.ExcludeWeekdays = append(c.ExcludeWeekdays, n)
			}
			for _, r := range runs.Values {
				from, to, ok := strings.Cut(r, "..")
				if !ok {
					return flagenv.Usagef(fs, "--range %q: give FROM..TO, such as 2026-12-24..2026-12-31", r)
				}
				c.ExcludeRanges = append(c.ExcludeRanges, client.DateRange{From: from, To: to})
			}
			put, err := s.c.PutCalendar(ctx, c)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printCalendars(w, []client.Calendar{put}) })
		})
	case "get":
		return withCalendarName(fs, f, rest, stdout, func(s *session, name string) error {
			c, err := s.c.GetCalendar(ctx, name)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printCalendars(w, []client.Calendar{c}) })
		})
	case "list":
		return noID(fs, f, rest, stdout, func(s *session) error {
			cs, err := s.c.ListCalendars(ctx)
			if err != nil {
				return err
			}
			return s.show(func(w io.Writer) error { return printCalendars(w, cs) })
		})
	case "delete":
		return withCalendarName(fs, f, rest, stdout, func(s *session, name string) error {
			if err := s.c.DeleteCalendar(ctx, name); err != nil {
				return err
			}
			return s.show(func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "deleted calendar %s\n", name)
				return err
			})
		})
	default:
		return unknownSubcommand("calendar", calendarUsage, sub, stderr)
	}
}

// withCalendarName parses a command on one calendar (its name, the one argument) and
// runs do, the API's errors rewritten for the terminal.
func withCalendarName(fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer, do func(*session, string) error) error {
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] == "" {
		return flagenv.Usagef(fs, "give exactly one calendar name")
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	return apiError(do(s, pos[0]))
}

func printCalendars(w io.Writer, cs []client.Calendar) error {
	t := newTable(w)
	fmt.Fprintln(t, "NAME\tTIMEZONE\tWEEKDAYS\tDATES\tRANGES\tUPDATED")
	for _, c := range cs {
		days := make([]string, len(c.ExcludeWeekdays))
		for i, d := range c.ExcludeWeekdays {
			days[i] = strconv.Itoa(d)
		}
		runs := make([]string, len(c.ExcludeRanges))
		for i, r := range c.ExcludeRanges {
			runs[i] = r.From + ".." + r.To
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Timezone, orDash(strings.Join(days, ",")),
			orDash(strings.Join(c.ExcludeDates, ",")), orDash(strings.Join(runs, ",")), c.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	return t.Flush()
}
