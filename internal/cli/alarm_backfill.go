package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/chronoshq/chronos/internal/flagenv"
)

// alarmBackfill runs `alarm backfill ID --from T --to T`: the series' occurrences in the
// window are delivered by a backfill alarm of their own; the series does not move.
func alarmBackfill(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	from := fs.String("from", "", "the window's start, an RFC 3339 time (required)")
	to := fs.String("to", "", "the window's end, an RFC 3339 time not in the future (required)")
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] == "" {
		return flagenv.Usagef(fs, "give exactly one alarm id (the cron series)")
	}
	if *from == "" || *to == "" {
		return flagenv.Usagef(fs, "give the window: --from TIME and --to TIME")
	}
	start, err := instant("alarm backfill", "from", *from, false)
	if err != nil {
		return err
	}
	end, err := instant("alarm backfill", "to", *to, false)
	if err != nil {
		return err
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	res, err := s.c.Backfill(ctx, pos[0], start, end)
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error {
		l := newListing(w)
		addAlarm(l, res.Alarm)
		l.add("backfill_of", res.Alarm.BackfillOf)
		l.add("occurrences", res.Occurrences)
		l.add("truncated", res.Truncated)
		l.add("deduped", res.Deduped)
		if err := l.flush(); err != nil {
			return err
		}
		if res.Truncated {
			_, err := fmt.Fprintln(w, "the window holds more occurrences than the series' catch_up_limit: the older ones are dropped")
			return err
		}
		return nil
	})
}
