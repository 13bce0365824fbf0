package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
)

// seriesFlags are a cron series' options (docs/schedules.md), as create and update
// take them. They are passed on as typed, so the server's refusal names the field;
// only the times are parsed here, to say which flag is not one.
type seriesFlags struct {
	misfire, catchUpWindow, startAt, endAt      string
	catchUpLimit, maxSkips, maxFires, jitterSec int
	calendars                                   flagenv.List
}

func (s *seriesFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.misfire, "misfire", "", "what the series does with missed occurrences: fire_once (the default), skip or catch_up")
	fs.IntVar(&s.catchUpLimit, "catch-up-limit", 0, "catch_up delivers at most the newest N missed occurrences, 1..1000 (the server's default: 100)")
	fs.StringVar(&s.catchUpWindow, "catch-up-window", "", "catch_up drops missed occurrences older than this (a Go duration: 36h)")
	fs.IntVar(&s.maxSkips, "max-consecutive-skips", 0, "pause the series after N occurrences in a row were given up (0: never)")
	fs.StringVar(&s.startAt, "start-at", "", "no occurrence before this RFC 3339 time")
	fs.StringVar(&s.endAt, "end-at", "", "no occurrence after this RFC 3339 time; the series then ends")
	fs.IntVar(&s.maxFires, "max-fires", 0, "end the series after N delivered occurrences (0: unbounded)")
	fs.IntVar(&s.jitterSec, "jitter-seconds", 0, "delay each occurrence by up to N seconds, 0..3600")
	fs.Var(&s.calendars, "exclude-calendar", "no occurrence on a day this calendar of yours excludes; repeat it (update: \"none\" clears them)")
}

// create puts the options given into req.
func (s seriesFlags) create(set map[string]bool, req *client.CreateAlarm) error {
	const cmd = "alarm create"
	if set["catch-up-limit"] && s.catchUpLimit == 0 {
		// The client reads 0 as "the server's default"; someone who typed 0 meant 0.
		return errors.New(cmd + ": --catch-up-limit must be at least 1")
	}
	req.Misfire, req.CatchUpLimit, req.CatchUpWindow = domain.Misfire(s.misfire), s.catchUpLimit, s.catchUpWindow
	req.MaxConsecutiveSkips, req.MaxFires, req.JitterSeconds = s.maxSkips, s.maxFires, s.jitterSec
	req.ExcludeCalendars = s.calendars.Values
	var err error
	if req.StartAt, err = instant(cmd, "start-at", s.startAt, false); err != nil {
		return err
	}
	req.EndAt, err = instant(cmd, "end-at", s.endAt, false)
	return err
}

// update puts the options given, and only those, into req: a flag left out leaves the
// option as it is. "none" clears a bound or the catch-up window.
func (s seriesFlags) update(set map[string]bool, req *client.UpdateAlarm) error {
	const cmd = "alarm update"
	if set["misfire"] {
		req.Misfire = new(domain.Misfire(s.misfire))
	}
	if set["exclude-calendar"] {
		names := []string{}
		if v := s.calendars.Values; len(v) != 1 || v[0] != "none" {
			names = v
		}
		req.ExcludeCalendars = &names
	}
	if set["catch-up-window"] {
		w := s.catchUpWindow
		if w == "none" {
			w = ""
		}
		req.CatchUpWindow = &w
	}
	for _, n := range []struct {
		flag  string
		value int
		to    **int
	}{
		{"catch-up-limit", s.catchUpLimit, &req.CatchUpLimit}, {"max-consecutive-skips", s.maxSkips, &req.MaxConsecutiveSkips},
		{"max-fires", s.maxFires, &req.MaxFires}, {"jitter-seconds", s.jitterSec, &req.JitterSeconds},
	} {
		if set[n.flag] {
			*n.to = new(n.value)
		}
	}
	for _, b := range []struct {
		flag, value string
		to          **time.Time
	}{{"start-at", s.startAt, &req.StartAt}, {"end-at", s.endAt, &req.EndAt}} {
		if !set[b.flag] {
			continue
		}
		t, err := instant(cmd, b.flag, b.value, true)
		if err != nil {
			return err
		}
		*b.to = &t // the zero time for none: the client sends null
	}
	return nil
}

// instant parses a time flag; "" is the zero time, and so is "none" when clearable.
func instant(cmd, flagName, value string, clearable bool) (time.Time, error) {
	if value == "" || (clearable && value == "none") {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		hint := ""
		if clearable {
			hint = ", or none to clear it"
		}
		return time.Time{}, fmt.Errorf("%s: --%s %q is not an RFC 3339 time such as 2030-01-02T15:04:05Z%s", cmd, flagName, value, hint)
	}
	return t, nil
}

func alarmPause(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	until := fs.String("until", "", "resume by itself at this RFC 3339 time (at the first occurrence after it)")
	note := fs.String("note", "", "why, for people: shown as paused_reason")
	return withID(fs, f, args, stdout, func(s *session, id string) error {
		t, err := instant("alarm pause", "until", *until, false)
		if err != nil {
			return err
		}
		a, err := s.c.PauseAlarmWith(ctx, id, client.PauseAlarm{Until: t, Note: *note})
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error { return printAlarm(w, a) })
	})
}

func alarmUpcoming(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	count := fs.Int("count", 0, "list this many, 1..100 (the server's default: 10)")
	return withID(fs, f, args, stdout, func(s *session, id string) error {
		list, err := s.c.UpcomingOccurrences(ctx, id, *count)
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error { return printOccurrences(w, list) })
	})
}

func alarmPreview(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	cron := cronFlag(fs, `the cron expression: five fields ("0 9 * * 1-5"), or six with seconds first`)
	tz := tzFlag(fs)
	from := fs.String("from", "", "list occurrences after this RFC 3339 time (the server's now when left out)")
	count := fs.Int("count", 0, "list this many, 1..100 (the server's default: 10)")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	if *cron == "" {
		return errors.New("alarm preview: give the schedule with --cron EXPR")
	}
	after, err := instant("alarm preview", "from", *from, false)
	if err != nil {
		return err
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	times, err := s.c.PreviewSchedule(ctx, client.PreviewSchedule{CronExpr: *cron, Timezone: *tz, From: after, Count: *count})
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error { return printPreview(w, times, *tz) })
}
