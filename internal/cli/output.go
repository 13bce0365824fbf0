package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// Human output: tables for lists, "key: value" for one thing. Keys are the API's JSON
// names, so what a person reads is what a script finds under --json.

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// listing prints key: value lines, values aligned.
type listing struct{ tw *tabwriter.Writer }

func newListing(w io.Writer) listing { return listing{newTable(w)} }

func (l listing) add(key string, value any) { fmt.Fprintf(l.tw, "%s:\t%v\n", key, value) }
func (l listing) flush() error              { return l.tw.Flush() }

// when shows an instant in UTC to the second, or "-" for the API's null.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// seconds shows a duration rounded for people: "1.5s", "2h0m0s".
func seconds(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// oneLine keeps a free-text cell on one table row.
func oneLine(s string) string {
	const maxRunes = 60
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxRunes {
		s = string(r[:maxRunes-1]) + "…"
	}
	return s
}

// schedule is "at <fire_at>" for a once alarm, the expression and zone for a cron one.
func schedule(a client.Alarm) string {
	if a.CronExpr != "" {
		return a.CronExpr + " (" + a.Timezone + ")"
	}
	return "at " + when(a.FireAt)
}

func payloadText(p json.RawMessage) string {
	if len(p) == 0 {
		return "null"
	}
	return string(p)
}

func addAlarm(l listing, a client.Alarm) {
	l.add("id", a.ID)
	l.add("label", a.Label)
	l.add("kind", a.Kind)
	l.add("status", a.Status)
	if a.CronExpr != "" {
		l.add("cron_expr", a.CronExpr)
		l.add("timezone", a.Timezone)
	} else {
		l.add("fire_at", when(a.FireAt))
	}
	l.add("next_fire_at", when(a.NextFireAt))
	l.add("scheduled_for", when(a.ScheduledFor))
	l.add("delivery", a.Delivery)
	l.add("endpoint", orDash(a.Endpoint))
	l.add("tags", tagsText(a.Tags))
	l.add("failure_count", strconv.Itoa(a.FailureCount)+" of max_failures "+strconv.Itoa(a.MaxFailures))
	l.add("last_error", oneLine(a.LastError))
	l.add("conversation_id", a.ConversationID)
	l.add("idempotency_key", a.IdempotencyKey)
	l.add("wake_message", oneLine(a.WakeMessage))
	l.add("payload", oneLine(payloadText(a.Payload)))
	l.add("created_at", when(a.CreatedAt))
	l.add("updated_at", when(a.UpdatedAt))
	l.add("last_fired_at", when(a.LastFiredAt))
	if a.Kind == domain.KindCron {
		addSeries(l, a)
	}
}

// addSeries adds a cron alarm's options and series state; "-" is the API's null.
func addSeries(l listing, a client.Alarm) {
	l.add("misfire", a.Misfire)
	if a.Misfire == domain.MisfireCatchUp {
		l.add("catch_up_limit", a.CatchUpLimit)
	} else {
		l.add("catch_up_limit", "-")
	}
	l.add("catch_up_window", orDash(a.CatchUpWindow))
	l.add("max_consecutive_skips", a.MaxConsecutiveSkips)
	l.add("start_at", when(a.StartAt))
	l.add("end_at", when(a.EndAt))
	l.add("max_fires", a.MaxFires)
	remaining := "-"
	if a.RemainingFires != nil {
		remaining = strconv.Itoa(*a.RemainingFires)
	}
	l.add("remaining_fires", remaining)
	l.add("jitter_seconds", a.JitterSeconds)
	l.add("fire_count", a.FireCount)
	l.add("skip_streak", a.SkipStreak)
	l.add("paused_reason", oneLine(a.PausedReason))
	l.add("paused_until", when(a.PausedUntil))
	l.add("exclude_calendars", orDash(strings.Join(a.ExcludeCalendars, ",")))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printAlarm(w io.Writer, a client.Alarm) error {
	l := newListing(w)
	addAlarm(l, a)
	return l.flush()
}

func printAlarms(w io.Writer, alarms []client.Alarm) error {
	t := newTable(w)
	fmt.Fprintln(t, "ID\tKIND\tSTATUS\tNEXT FIRE\tSCHEDULE\tLABEL")
	for _, a := range alarms {
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Kind, a.Status, when(a.NextFireAt), schedule(a), oneLine(a.Label))
	}
	return t.Flush()
}

func printEvents(w io.Writer, events []client.Event) error {
	t := newTable(w)
	fmt.Fprintln(t, "ID\tAT\tTYPE\tATTEMPT\tSCHEDULED FOR\tWORKER\tMESSAGE")
	for _, e := range events {
		attempt := "-"
		if e.Attempt > 0 {
			attempt = strconv.Itoa(e.Attempt)
		}
		worker := e.Worker
		if worker == "" {
			worker = "-"
		}
		fmt.Fprintf(t, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, when(e.At), e.Type, attempt, when(e.ScheduledFor), worker, oneLine(e.Message))
	}
	return t.Flush()
}

// printAttempts draws a page of an alarm's attempts, newest first, and the cursor of
// the next page when there is one. ANSWER is the body's start as kept, on one line.
func printAttempts(w io.Writer, p client.AttemptPage) error {
	t := newTable(w)
	fmt.Fprintln(t, "ID\tAT\tATTEMPT\tTYPE\tSTATUS\tDURATION\tNODE\tERROR\tANSWER")
	for _, a := range p.Attempts {
		status, errText, answer := "-", "-", "-"
		if a.Status != nil {
			status = strconv.Itoa(*a.Status)
		}
		if a.Error != nil {
			errText = oneLine(*a.Error)
		}
		if r := a.Response; r != nil {
			switch {
			case r.Redacted:
				answer = fmt.Sprintf("(%d bytes, redacted)", r.BodySize)
			case r.Body != nil && *r.Body != "" && r.BodyEncoding == "base64":
				answer = fmt.Sprintf("(%d bytes, binary)", r.BodySize)
			case r.Body != nil && *r.Body != "":
				answer = oneLine(*r.Body)
			}
		}
		fmt.Fprintf(t, "%d\t%s\t%d\t%s\t%s\t%.1fms\t%s\t%s\t%s\n", a.ID, when(a.At), a.Attempt, a.Type, status, a.DurationMS, a.Node, errText, answer)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if p.NextCursor != "" {
		_, err := fmt.Fprintf(w, "next page: --cursor %s\n", p.NextCursor)
		return err
	}
	return nil
}

// printOccurrences draws an alarm's upcoming occurrences. DUE AT differs from
// SCHEDULED FOR by the jitter or a retry's backoff, so it keeps the milliseconds.
func printOccurrences(w io.Writer, list []client.Occurrence) error {
	t := newTable(w)
	fmt.Fprintln(t, "SCHEDULED FOR\tDUE AT\tOCCURRENCE KEY")
	for _, o := range list {
		fmt.Fprintf(t, "%s\t%s\t%s\n", when(o.ScheduledFor), o.DueAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), o.OccurrenceKey)
	}
	return t.Flush()
}

// printPreview draws a schedule's occurrences in UTC and, when the schedule has a zone,
// in that zone too: where a daylight-saving change shows.
func printPreview(w io.Writer, times []time.Time, zone string) error {
	loc, err := time.LoadLocation(zone)
	if zone == "" || zone == "UTC" || err != nil {
		// cmd/chronos embeds tzdata, so a zone the server accepted loads; where none is
		// found (a test binary on a bare system), the UTC column alone still answers.
		loc = nil
	}
	t := newTable(w)
	if loc == nil {
		fmt.Fprintln(t, "SCHEDULED FOR")
	} else {
		fmt.Fprintf(t, "SCHEDULED FOR\tIN %s\n", zone)
	}
	for _, at := range times {
		if loc == nil {
			fmt.Fprintln(t, when(at))
		} else {
			fmt.Fprintf(t, "%s\t%s\n", when(at), at.In(loc).Format("Mon 2006-01-02 15:04:05 MST"))
		}
	}
	return t.Flush()
}

// nextPage tells a person how to get the page after this one. It goes to stderr, so
// stdout stays the table alone.
func nextPage(w io.Writer, cursor string) {
	if cursor != "" {
		fmt.Fprintf(w, "next page: the same command with --cursor %s\n", cursor)
	}
}
