package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// tagFlag is a repeatable --tag key:value (split on the first ':'), into one map.
type tagFlag struct{ tags map[string]string }

func (t *tagFlag) String() string { return tagsText(t.tags) }

func (t *tagFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, ":")
	if !ok || k == "" {
		return fmt.Errorf("%q is not key:value", v)
	}
	if t.tags == nil {
		t.tags = map[string]string{}
	}
	if prev, dup := t.tags[k]; dup && prev != val {
		return fmt.Errorf("tag %q given twice", k)
	}
	t.tags[k] = val
	return nil
}

func (t *tagFlag) register(fs *flag.FlagSet, usage string) { fs.Var(t, "tag", usage) }

// tagsText is tags as the terminal shows them: "key:value, ..." in key order, "-" when none.
func tagsText(tags map[string]string) string {
	if len(tags) == 0 {
		return "-"
	}
	pairs := make([]string, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		pairs = append(pairs, k+":"+tags[k])
	}
	return strings.Join(pairs, ", ")
}

// bulkRetries is how often `alarm bulk` sends one call again that a busy node refused
// (429 or 503 with Retry-After): a long run of calls should not stop at one.
const bulkRetries = 10

// alarmBulk runs `chronos alarm bulk pause|resume|cancel --tag k:v ... [--status S]
// [--label-prefix P] [--dry-run] [--cursor C]`: every alarm the filter selects, in as
// many calls as the server takes (client.BulkAlarms), the sums at the end, the
// progress on stderr when it takes more than one call.
func alarmBulk(ctx context.Context, fs *flag.FlagSet, f *apiFlags, args []string, stdout, stderr io.Writer) error {
	var tags tagFlag
	tags.register(fs, "only alarms that carry this tag, key:value (repeat for every one of several)")
	status := fs.String("status", "", "only alarms in this status: active, paused, fired, cancelled or failed")
	prefix := fs.String("label-prefix", "", "only alarms whose label starts with this")
	dryRun := fs.Bool("dry-run", false, "change nothing: say how many alarms the action would change")
	cursor := fs.String("cursor", "", "go on where a stopped run said to (its --cursor)")
	pos, err := parseAPIFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("alarm bulk: give the action, pause, resume or cancel, and the filter: --tag, --status, --label-prefix")
	}
	action, err := domain.ParseOwnerBulkAction(pos[0])
	if err != nil {
		return fmt.Errorf("alarm bulk: %w", err)
	}
	s, err := f.session(stdout, client.WithRetry(bulkRetries, time.Minute))
	if err != nil {
		return err
	}
	calls := 0
	res, err := s.c.BulkAlarms(ctx, client.BulkAlarms{Tags: tags.tags, Status: domain.Status(*status), LabelPrefix: *prefix,
		Action: action, DryRun: *dryRun, Cursor: *cursor, Progress: func(soFar client.BulkResult) {
			if calls++; soFar.More {
				fmt.Fprintf(stderr, "%d matched, %d changed so far\n", soFar.Matched, soFar.Changed)
			}
		}})
	if err != nil {
		if res.NextCursor != "" {
			fmt.Fprintf(stderr, "stopped after %d matched, %d changed: go on with the same command and --cursor %s\n",
				res.Matched, res.Changed, res.NextCursor)
		}
		return apiError(err)
	}
	if s.flags.output == "json" { // the sums, in the API's shape: no one answer holds them
		return json.NewEncoder(stdout).Encode(map[string]any{"matched": res.Matched, "changed": res.Changed,
			"more": false, "next_cursor": nil, "dry_run": res.DryRun})
	}
	return s.show(func(w io.Writer) error {
		l := newListing(w)
		l.add("matched", res.Matched)
		l.add("changed", res.Changed)
		l.add("dry_run", res.DryRun)
		return l.flush()
	})
}
