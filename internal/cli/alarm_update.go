package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"reflect"

	"github.com/chronoshq/chronos/client"
)

func alarmUpdate(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout io.Writer) error {
	label := fs.String("label", "", "a label for people")
	cron := cronFlag(fs, `the series' new cron expression: five fields ("0 9 * * 1-5"), or six with seconds first`)
	tz := tzFlag(fs)
	wake := fs.String("wake-message", "", "the message of the wake")
	maxFailures := fs.Int("max-failures", 0, "failed deliveries of one occurrence before giving up")
	var payload payloadFlags
	payload.register(fs)
	var series seriesFlags
	series.register(fs)
	var tags tagFlag
	tags.register(fs, "a tag of the alarm, key:value (repeat for several): replaces every tag")
	clearTags := fs.Bool("clear-tags", false, "remove every tag of the alarm")
	return withID(fs, f, args, stdout, func(s *session, id string) error {
		// Only what was given is sent: the API leaves an absent member as it is, and a
		// flag typed as "" or 0 means that value.
		set := given(fs)
		var req client.UpdateAlarm
		for _, str := range []struct {
			flag, value string
			to          **string
		}{{"label", *label, &req.Label}, {"cron", *cron, &req.CronExpr}, {"wake-message", *wake, &req.WakeMessage}} {
			if set[str.flag] {
				*str.to = new(str.value)
			}
		}
		if set["tz"] || set["timezone"] {
			req.Timezone = tz
		}
		if set["max-failures"] {
			req.MaxFailures = maxFailures
		}
		switch {
		case set["tag"] && *clearTags:
			return errors.New("alarm update: give --tag or --clear-tags, not both")
		case set["tag"]:
			req.Tags = &tags.tags
		case *clearTags:
			req.Tags = &map[string]string{}
		}
		var err error
		if req.Payload, err = payload.read("alarm update", set); err != nil {
			return err
		}
		if err := series.update(set, &req); err != nil {
			return err
		}
		if reflect.ValueOf(req).IsZero() { // a mistake on the command line, not a request to send
			return errors.New("alarm update: say what to change: --label, --cron, --tz, --end-at, ... (see chronos alarm help)")
		}
		a, err := s.c.UpdateAlarm(ctx, id, req)
		if err != nil {
			return err
		}
		return s.show(func(w io.Writer) error { return printAlarm(w, a) })
	})
}
