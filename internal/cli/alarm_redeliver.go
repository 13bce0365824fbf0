package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
)

// alarmRedeliver runs `chronos alarm redeliver ID [--occurrence-key K]` (one past
// occurrence) or `chronos alarm redeliver --failed [filter]` (the owner's failed
// alarms, one bounded call).
func alarmRedeliver(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout, stderr io.Writer) error {
	key := fs.String("occurrence-key", "", "the occurrence to send again, as its wakes carried it (default: the latest delivered)")
	failed := fs.Bool("failed", false, "redeliver the latest occurrence of each of your failed alarms (or those --status selects) instead of one alarm")
	status := fs.String("status", "", "with --failed: alarms in this status instead of failed")
	since := fs.String("since", "", "with --failed: only alarms that failed at or after this RFC 3339 time")
	prefix := fs.String("label-prefix", "", "with --failed: only alarms whose label starts with this")
	limit := fs.Int("limit", 0, "with --failed: at most this many alarms, 1..1000 (the server's default: 100)")
	cursor := fs.String("cursor", "", "with --failed: go on where the call that printed this cursor stopped")
	var tags tagFlag
	tags.register(fs, "with --failed: only alarms that carry this tag, key:value (repeat for every one of several)")
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	if !*failed {
		if len(pos) != 1 || pos[0] == "" {
			return flagenv.Usagef(fs, "give exactly one alarm id, or --failed")
		}
		s, err := f.session(stdout)
		if err != nil {
			return err
		}
		r, err := s.c.Redeliver(ctx, pos[0], *key)
		if err != nil {
			return apiError(err)
		}
		return s.show(func(w io.Writer) error {
			l := newListing(w)
			l.add("occurrence_key", r.OccurrenceKey)
			l.add("attempt", r.Attempt)
			l.add("delivered", r.Delivered)
			if r.Error != nil {
				l.add("error", *r.Error)
			}
			return l.flush()
		})
	}
	if len(pos) > 0 || *key != "" {
		return flagenv.Usagef(fs, "--failed takes a filter, not an alarm id or --occurrence-key")
	}
	req := client.RedeliverFailed{Status: domain.Status(*status), Tags: tags.tags, LabelPrefix: *prefix, Limit: *limit, Cursor: *cursor}
	if *since != "" {
		if req.Since, err = time.Parse(time.RFC3339Nano, *since); err != nil {
			return flagenv.Usagef(fs, "--since: want an RFC 3339 time such as 2030-01-02T15:04:05Z, got %q", *since)
		}
	}
	s, err := f.session(stdout)
	if err != nil {
		return err
	}
	res, err := s.c.RedeliverFailed(ctx, req)
	if err != nil {
		return apiError(err)
	}
	return s.show(func(w io.Writer) error {
		l := newListing(w)
		l.add("matched", res.Matched)
		l.add("delivered", res.Delivered)
		l.add("failed", res.Failed)
		l.add("held_back", res.HeldBack)
		if err := l.flush(); err != nil {
			return err
		}
		if res.NextCursor != nil {
			fmt.Fprintf(stderr, "more to redeliver: the same command with --cursor %s\n", *res.NextCursor)
		}
		return nil
	})
}
