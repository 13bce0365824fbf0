// Package transfertest fills a store with a cluster in every state, through the ports as
// a running cluster would, and compares two stores field by field: the checks of the
// tests that move a cluster with `chronos export` and `chronos import`. Imported by
// tests only.
package transfertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/chronoshq/chronos/test/contract"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Secrets are the endpoint secrets Fill stores: no output of the commands may show them.
var Secrets = []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", `plain "quoted" \ secret — 東京 😀 0123456789`}

var policy = domain.Policy{Backoff: domain.DefaultBackoff}

// Filled says what Fill made, for the checks that follow an import.
type Filled struct {
	Leased  string // an at-least-once alarm leased by a worker that never finished
	InDoubt string // an at-most-once series whose advanced wake's outcome is unknown
	Keyed   domain.Alarm
	Notice  string // the failure notice of Failed, delivered
	Paused  string // a series paused by its owner with a note and an end
	Series  string // a series with every option, fired once, naming carol's calendar "holidays"
	// Excluded is the occurrence of Series that "holidays" excludes: its next one when
	// Fill returns. Series delivers the one after it.
	Excluded time.Time
	Failed   string // a once alarm whose deliveries were exhausted
	Retrying string
}

// Fill makes, in s, alarms in every state through the ports and the domain as the
// dispatcher and the API would (so their histories and attempt logs are real, each
// attempt with what its receiver answered: a status, a content type, a body, text or
// bytes, cut or not, or no answer at all): once alarms pending (with
// an idempotency key and an endpoint), fired after a retry, failed, cancelled and
// retrying; series with every option fired, paused with a note and an end, leased, and
// at-most-once in doubt; endpoints with secrets, tokens revoked and used, exclusion
// calendars (one a series names), and the cluster values that move.
func Fill(t testing.TB, s ports.Store) Filled {
	t.Helper()
	ctx := context.Background()
	var f Filled
	n := 0
	id := func() string { n++; return fmt.Sprintf("0190f0c0-0000-7000-8000-%012d", n) }
	now := func() time.Time {
		tm, err := s.Now(ctx)
		if err != nil {
			t.Fatalf("transfertest: Now: %v", err)
		}
		return tm
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("transfertest: %s: %v", what, err)
		}
	}
	create := func(a domain.Alarm) domain.Alarm {
		t.Helper()
		stored, _, err := contract.CreateOne(ctx, s, a)
		must("Create "+a.ID, err)
		return stored
	}
	once := func(owner string, due time.Duration) domain.Alarm {
		at := now().Add(due)
		a, err := domain.NewAlarm(id(), domain.Spec{Owner: owner, Kind: domain.KindOnce, FireAt: &at, Label: "once ⏰ " + owner,
			Payload: json.RawMessage(`{"n": 1,  "s":"é", "list": [1, 2 ,3]}`), WakeMessage: "wake up\nnow", ConversationID: "conv-" + owner},
			now(), domain.Defaults{MaxFailures: 3})
		must("NewAlarm", err)
		return a
	}
	cron := func(owner string, s domain.Series) domain.Alarm {
		a, err := domain.NewAlarm(id(), domain.Spec{Owner: owner, Kind: domain.KindCron, CronExpr: "0 3 1 * *", Timezone: "Europe/Paris",
			Label: "series " + owner, Series: s, Payload: json.RawMessage(`[1, 2]`),
			Tags: map[string]string{"customer": owner, "note": "ü: tagged"}}, now(), domain.Defaults{MaxFailures: 2})
		must("NewAlarm", err)
		return a
	}
	// claimOne claims the one due alarm (each step makes exactly one due; the series
	// run monthly, so none of their next occurrences comes due during Fill).
	claimOne := func(want string) domain.Alarm {
		t.Helper()
		c, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "old-node-1", Lease: time.Minute, Batch: 10})
		must("ClaimDue", err)
		if len(c.Alarms) != 1 || c.Alarms[0].ID != want {
			t.Fatalf("transfertest: claimed %d alarms, want only %s", len(c.Alarms), want)
		}
		return c.Alarms[0]
	}
	apply := func(ts ...domain.Transition) {
		t.Helper()
		r, err := s.Apply(ctx, ts)
		must("Apply", err)
		if r.Applied != len(ts) {
			t.Fatalf("transfertest: Apply: %d of %d applied", r.Applied, len(ts))
		}
	}
	decide := func(a domain.Alarm, o domain.Outcome) domain.Transition {
		return domain.Decide(domain.Begin(a, now(), policy), o, now(), policy)
	}
	dueNow := func(a domain.Alarm) domain.Alarm {
		a.NextFireAt, a.ScheduledFor = now().Add(-time.Second), now().Add(-time.Second)
		if a.Kind == domain.KindOnce {
			a.FireAt = a.NextFireAt
		}
		return a
	}

	// Endpoints, tokens and the cluster values that move.
	billing := domain.Endpoint{Owner: "alice", Name: "billing", URL: "https://hooks.example.com/wake?x=%20é", Secrets: Secrets,
		Timeout: 2750 * time.Millisecond, MaxInFlight: 40, RatePerSecond: 1.0 / 3.0, FailureURL: "https://hooks.example.com/failures"}
	_, err := s.CreateEndpoint(ctx, billing)
	must("CreateEndpoint", err)
	_, err = s.CreateEndpoint(ctx, domain.Endpoint{Owner: "bob", Name: "plain", URL: "http://127.0.0.1:9/wake", Secrets: Secrets[:1]})
	must("CreateEndpoint", err)
	at := now()
	must("CreateToken", s.CreateToken(ctx, domain.Token{ID: "tok_used", Owner: "alice", Scope: domain.ScopeOwner, Hash: hash('a'),
		Note: "billing — prod", CreatedAt: at.Add(-time.Hour), LastUsedAt: at.Add(-time.Minute)}))
	must("CreateToken", s.CreateToken(ctx, domain.Token{ID: "tok_revoked", Owner: "ops", Scope: domain.ScopeAdmin, Hash: hash('b'),
		CreatedAt: at.Add(-2 * time.Hour), RevokedAt: at.Add(-time.Second)}))
	must("CreateToken", s.CreateToken(ctx, domain.Token{ID: "tok_reader", Owner: "ops", Scope: domain.ScopeAdminRead, Hash: hash('c'), CreatedAt: at}))
	must("PutState", s.PutState(ctx, chores.DispatchStateName, `{"paused":false,"by":"tok_x","since":"2030-01-01T00:00:00Z"}`))
	must("PutState", s.PutState(ctx, admin.SecretFingerprintKeyName, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"))

	// Pending, with an idempotency key, an endpoint and a trace context.
	keyed := once("alice", time.Hour)
	keyed.IdempotencyKey, keyed.Endpoint = "order-1", "billing"
	keyed.TraceParent, keyed.TraceState = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE"
	f.Keyed = create(keyed)

	// Fired after one retry.
	fired := create(dueNow(once("alice", 0)))
	apply(decide(claimOne(fired.ID), answered(domain.DeliveryFailed("HTTP 502: bad gateway"), domain.Receipt{Duration: 1234567 * time.Microsecond,
		Status: 502, ContentType: "text/html; charset=utf-8", Body: []byte("<h1>Bad gateway — ünïcode</h1>"), Truncated: true})))
	back := func(id string) { // a retry's backoff is in the future: make it due
		t.Helper()
		_, err := s.Mutate(ctx, ports.AnyOwner, id, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
			tr, err := domain.Trigger(a, now)
			return tr, err == nil, err
		})
		must("AdminMutate trigger", err)
	}
	back(fired.ID)
	apply(decide(claimOne(fired.ID), answered(domain.Delivered(), domain.Receipt{Duration: 3007 * time.Microsecond, Status: 204})))

	// Failed: every delivery refused. It names the endpoint, whose failure URL gets a
	// notice: itself an alarm.
	failed := once("bob", 0)
	failed.MaxFailures, failed.Endpoint = 1, "billing"
	failed = create(dueNow(failed))
	tr := decide(claimOne(failed.ID), answered(domain.DeliveryFailed("HTTP 410 Gone"), domain.Receipt{Duration: 10 * time.Second,
		Status: 410, ContentType: "application/octet-stream", Body: []byte{0xff, 0x00, 0xfe, 'x', 0x80}}))
	apply(tr)
	if tr.Notice == nil {
		t.Fatal("transfertest: a failed alarm naming an endpoint with a failure URL made no notice")
	}
	apply(decide(claimOne(tr.Notice.ID), answered(domain.Delivered(), domain.Receipt{Duration: 1500 * time.Microsecond, Status: 200,
		ContentType: "text/plain", Body: []byte("ok")})))
	f.Failed, f.Notice = failed.ID, tr.Notice.ID

	// Cancelled by its owner.
	cancelled := create(once("bob", 2*time.Hour))
	_, err = s.Mutate(ctx, ports.OwnedBy("bob"), cancelled.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, changed := domain.Cancel(a, now)
		return tr, changed, nil
	})
	must("Mutate cancel", err)

	// A series with every option, fired once; its calendar excludes the day of its next
	// occurrence. Another owner's calendar no series names.
	series := cron("carol", domain.Series{Misfire: domain.MisfireCatchUp, CatchUpLimit: 20, CatchUpWindow: 36 * time.Hour,
		MaxConsecutiveSkips: 4, StartAt: now().Add(-72 * time.Hour), EndAt: now().Add(90*24*time.Hour + 987654321), MaxFires: 500, JitterSeconds: 0,
		ExcludeCalendars: []string{"holidays"}})
	series = create(dueNow(series))
	apply(decide(claimOne(series.ID), answered(domain.Delivered(), domain.Receipt{Duration: 42 * time.Microsecond, Status: 200})))
	f.Series = series.ID
	next, err := s.Get(ctx, ports.AnyOwner, series.ID)
	must("Get", err)
	f.Excluded = next.ScheduledFor
	paris, err := time.LoadLocation("Europe/Paris")
	must("LoadLocation", err)
	putCalendar := func(c domain.Calendar) {
		t.Helper()
		must("ValidateCalendar", domain.ValidateCalendar(c))
		_, err := s.PutCalendar(ctx, domain.NormalizeCalendar(c), 0)
		must("PutCalendar", err)
	}
	putCalendar(domain.Calendar{Owner: "carol", Name: "holidays", Timezone: "Europe/Paris",
		ExcludeDates: []string{f.Excluded.In(paris).Format("2006-01-02"), "2031-12-25"}})
	putCalendar(domain.Calendar{Owner: "alice", Name: "weekends", Timezone: "Asia/Tokyo", ExcludeWeekdays: []int{6, 0},
		ExcludeRanges: []domain.DateRange{{From: "2030-12-24", To: "2031-01-02"}}})

	// Paused by its owner, with a note and an end.
	paused := create(cron("carol", domain.Series{Misfire: domain.MisfireSkip}))
	_, err = s.Mutate(ctx, ports.OwnedBy("carol"), paused.ID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		return domain.PauseWith(a, now, domain.PauseSpec{Note: "maintenance — window", Until: now.Add(2 * time.Hour)})
	})
	must("Mutate pause", err)
	f.Paused = paused.ID

	// Retrying: one delivery failed, the next is due later.
	retrying := create(dueNow(once("alice", 0)))
	apply(decide(claimOne(retrying.ID), answered(domain.DeliveryFailed("timeout"), domain.Receipt{Duration: 10 * time.Second}))) // no HTTP answer
	f.Retrying = retrying.ID

	// At-most-once, advanced and never recorded: in doubt, still leased.
	inDoubt := cron("bob", domain.Series{})
	inDoubt.Delivery = domain.AtMostOnce
	inDoubt = create(dueNow(inDoubt))
	adv := domain.Begin(claimOne(inDoubt.ID), now(), policy).Advance
	if adv == nil {
		t.Fatal("transfertest: an at-most-once firing has no advance")
	}
	apply(*adv)
	f.InDoubt = inDoubt.ID

	// Leased by a worker that never finished (claimed last: nothing else is due).
	leased := create(dueNow(once("alice", 0)))
	claimOne(leased.ID)
	f.Leased = leased.ID
	return f
}

func hash(c byte) string { return string(bytes.Repeat([]byte{c}, 64)) }

// answered is o with what the receiver answered, as the dispatcher hands it to Decide:
// the attempt's event keeps it (the attempt log).
func answered(o domain.Outcome, r domain.Receipt) domain.Outcome {
	o.Receipt = &r
	return o
}

// Compare fails t unless dst holds exactly what src holds: every alarm field by field
// (leases cleared in dst), every stored event with every field, its attempt's receipt
// included, every alarm's history and attempt log in order (store ids aside), every
// endpoint with its secrets and stamps, every calendar with its stamps, each series'
// hold on the calendars it names, every token, and the cluster values that move.
// Times are compared at precision, the coarser store's.
func Compare(t testing.TB, src, dst ports.Exporter, srcStore, dstStore ports.Store, precision time.Duration) {
	t.Helper()
	ctx := context.Background()
	all := func(ex ports.Exporter) []domain.Alarm {
		var out []domain.Alarm
		after := ""
		for {
			as, err := ex.ExportAlarms(ctx, after, 100)
			if err != nil {
				t.Fatalf("transfertest: ExportAlarms: %v", err)
			}
			if len(as) == 0 {
				return out
			}
			out = append(out, as...)
			after = as[len(as)-1].ID
		}
	}
	want, got := all(src), all(dst)
	if len(got) != len(want) {
		t.Fatalf("the target holds %d alarms, the source %d", len(got), len(want))
	}
	if len(want) > 0 {
		compareEvents(t, src, dst, want[len(want)-1].ID, precision)
	}
	for i, w := range want {
		w.ClaimedBy, w.ClaimedAt = "", time.Time{} // cleared by the import
		g := got[i]
		normalize(&w, precision)
		normalize(&g, precision)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("alarm %s differs in the target:\n got %+v\nwant %+v", w.ID, g, w)
		}
		we, err := srcStore.Events(ctx, ports.AnyOwner, w.ID, 0)
		if err != nil {
			t.Fatalf("transfertest: AdminEvents(%s) of the source: %v", w.ID, err)
		}
		ge, err := dstStore.Events(ctx, ports.AnyOwner, w.ID, 0)
		if err != nil {
			t.Fatalf("transfertest: AdminEvents(%s) of the target: %v", w.ID, err)
		}
		for _, es := range [][]domain.Event{we, ge} {
			for j := range es {
				es[j].ID = 0
				es[j].At, es[j].ScheduledFor = es[j].At.Truncate(precision), es[j].ScheduledFor.Truncate(precision)
			}
		}
		if !reflect.DeepEqual(ge, we) {
			t.Errorf("the history of %s differs in the target:\n got %+v\nwant %+v", w.ID, ge, we)
		}
		wa, ga := attemptLog(t, srcStore, w.ID, precision), attemptLog(t, dstStore, w.ID, precision)
		if !reflect.DeepEqual(ga, wa) {
			t.Errorf("the attempt log of %s differs in the target:\n got %s\nwant %s", w.ID, fmtEvents(ga), fmtEvents(wa))
		}
	}
	we, err := srcStore.ListEndpoints(ctx, "")
	if err != nil {
		t.Fatalf("transfertest: ListEndpoints: %v", err)
	}
	ge, err := dstStore.ListEndpoints(ctx, "")
	if err != nil {
		t.Fatalf("transfertest: ListEndpoints: %v", err)
	}
	if len(ge) != len(we) {
		t.Fatalf("the target holds %d endpoints, the source %d", len(ge), len(we))
	}
	for i := range we {
		for _, e := range []*domain.Endpoint{&we[i], &ge[i]} {
			e.CreatedAt, e.UpdatedAt = e.CreatedAt.Truncate(precision), e.UpdatedAt.Truncate(precision)
		}
		if !reflect.DeepEqual(ge[i], we[i]) {
			t.Errorf("endpoint %s/%s differs in the target (secrets not shown)", we[i].Owner, we[i].Name)
		}
	}
	wc, gc := allCalendars(t, src), allCalendars(t, dst)
	for _, cs := range [][]domain.Calendar{wc, gc} {
		for i := range cs {
			cs[i].CreatedAt, cs[i].UpdatedAt = cs[i].CreatedAt.Truncate(precision), cs[i].UpdatedAt.Truncate(precision)
		}
	}
	if !reflect.DeepEqual(gc, wc) {
		t.Errorf("calendars differ in the target:\n got %+v\nwant %+v", gc, wc)
	}
	for _, a := range want {
		for _, name := range a.Series.ExcludeCalendars {
			wid, wused, werr := srcStore.CalendarUser(ctx, a.Owner, name)
			gid, gused, gerr := dstStore.CalendarUser(ctx, a.Owner, name)
			if werr != nil || gerr != nil || gid != wid || gused != wused {
				t.Errorf("CalendarUser(%s, %s) in the target = %q %v (%v), in the source %q %v (%v)", a.Owner, name, gid, gused, gerr, wid, wused, werr)
			}
		}
	}
	wt, err := srcStore.ListTokens(ctx, "")
	if err != nil {
		t.Fatalf("transfertest: ListTokens: %v", err)
	}
	gt, err := dstStore.ListTokens(ctx, "")
	if err != nil {
		t.Fatalf("transfertest: ListTokens: %v", err)
	}
	for _, ts := range [][]domain.Token{wt, gt} {
		for i := range ts {
			ts[i].CreatedAt, ts[i].RevokedAt, ts[i].LastUsedAt = ts[i].CreatedAt.Truncate(precision), ts[i].RevokedAt.Truncate(precision), ts[i].LastUsedAt.Truncate(precision)
		}
	}
	if !reflect.DeepEqual(gt, wt) {
		t.Errorf("tokens differ in the target:\n got %+v\nwant %+v", gt, wt)
	}
	for _, name := range []string{chores.DispatchStateName, admin.SecretFingerprintKeyName} {
		ws, wok, err := srcStore.GetState(ctx, name)
		if err != nil {
			t.Fatalf("transfertest: GetState(%s): %v", name, err)
		}
		gs, gok, err := dstStore.GetState(ctx, name)
		if err != nil {
			t.Fatalf("transfertest: GetState(%s): %v", name, err)
		}
		if gok != wok || gs.Value != ws.Value {
			t.Errorf("cluster value %s in the target = %q (%v), want %q (%v)", name, gs.Value, gok, ws.Value, wok)
		}
	}
}

// compareEvents fails t unless dst holds every stored event of src, each with every
// field, its receipt included, in the same order (store ids aside).
func compareEvents(t testing.TB, src, dst ports.Exporter, through string, precision time.Duration) {
	t.Helper()
	all := func(ex ports.Exporter) []domain.Event {
		var out []domain.Event
		var after ports.EventCursor
		for {
			evs, err := ex.ExportEvents(context.Background(), after, through, 7)
			if err != nil {
				t.Fatalf("transfertest: ExportEvents: %v", err)
			}
			if len(evs) == 0 {
				return normalizeEvents(out, precision)
			}
			out = append(out, evs...)
			last := evs[len(evs)-1]
			after = ports.EventCursor{AlarmID: last.AlarmID, ID: last.ID}
		}
	}
	we, ge := all(src), all(dst)
	attempts := 0
	for _, e := range we {
		if e.IsAttempt() {
			attempts++
		}
	}
	if attempts == 0 {
		t.Errorf("transfertest: the source holds no attempt: nothing shows that the attempt log moves")
	}
	if !reflect.DeepEqual(ge, we) {
		t.Errorf("the stored events differ in the target:\n got %s\nwant %s", fmtEvents(ge), fmtEvents(we))
	}
}

// attemptLog is the alarm's whole attempt log as GET /v1/alarms/{id}/attempts pages
// through it, normalised as normalizeEvents does.
func attemptLog(t testing.TB, s ports.Store, id string, precision time.Duration) []domain.Event {
	t.Helper()
	var out []domain.Event
	cursor := ""
	for {
		page, next, err := s.Attempts(context.Background(), ports.AttemptsQuery{Scope: ports.AnyOwner, AlarmID: id, Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatalf("transfertest: Attempts(%s): %v", id, err)
		}
		out = append(out, page...)
		if next == "" {
			return normalizeEvents(out, precision)
		}
		cursor = next
	}
}

// normalizeEvents drops the store's ids and brings the times to precision.
func normalizeEvents(es []domain.Event, precision time.Duration) []domain.Event {
	for i := range es {
		es[i].ID = 0
		es[i].At, es[i].ScheduledFor = es[i].At.Truncate(precision), es[i].ScheduledFor.Truncate(precision)
	}
	return es
}

// fmtEvents shows events with their receipts (a pointer prints as an address).
func fmtEvents(es []domain.Event) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "\n  %s %s attempt %d at %s worker %q message %q", e.AlarmID, e.Type, e.Attempt, e.At.Format(time.RFC3339Nano), e.Worker, e.Message)
		if r := e.Receipt; r != nil {
			fmt.Fprintf(&b, " receipt{%s %d %q %q truncated=%t}", r.Duration, r.Status, r.ContentType, r.Body, r.Truncated)
		}
	}
	return b.String()
}

func allCalendars(t testing.TB, ex ports.Exporter) []domain.Calendar {
	t.Helper()
	var out []domain.Calendar
	var after ports.CalendarCursor
	for {
		cs, err := ex.ExportCalendars(context.Background(), after, 1)
		if err != nil {
			t.Fatalf("transfertest: ExportCalendars: %v", err)
		}
		if len(cs) == 0 {
			return out
		}
		out = append(out, cs...)
		last := cs[len(cs)-1]
		after = ports.CalendarCursor{Owner: last.Owner, Name: last.Name}
	}
}

// SkipsExcluded fails t unless, in s, f's series still names its calendar, holds it
// (the calendar cannot be deleted) and, as the dispatcher reads it with its owner's
// calendars, leaves out the occurrence the calendar excludes: the series neither
// delivers it when it comes due nor lists it among its upcoming ones.
func SkipsExcluded(t testing.TB, s ports.Store, f Filled) {
	t.Helper()
	ctx := context.Background()
	a, err := s.Get(ctx, ports.AnyOwner, f.Series)
	if err != nil {
		t.Fatalf("transfertest: Get(%s): %v", f.Series, err)
	}
	if !slices.Equal(a.Series.ExcludeCalendars, []string{"holidays"}) {
		t.Errorf("series %s names calendars %q, want [holidays]", a.ID, a.Series.ExcludeCalendars)
	}
	if id, used, err := s.CalendarUser(ctx, a.Owner, "holidays"); err != nil || !used || id != a.ID {
		t.Errorf("CalendarUser(%s, holidays) = %q, %v, %v; want the series %s", a.Owner, id, used, err, a.ID)
	}
	cals, err := s.ListCalendars(ctx, a.Owner)
	if err != nil {
		t.Fatalf("transfertest: ListCalendars(%s): %v", a.Owner, err)
	}
	if !a.ScheduledFor.Equal(f.Excluded) {
		t.Fatalf("series %s is at %s, want the excluded occurrence %s", a.ID, a.ScheduledFor, f.Excluded)
	}
	up := domain.UpcomingExcluding(a, cals, f.Excluded.Add(-time.Hour), 1)
	if len(up) != 1 || !up[0].ScheduledFor.After(f.Excluded) {
		t.Errorf("the series' next occurrence with its owner's calendars = %+v, want one after the excluded %s", up, f.Excluded)
	}
	a.NextFireAt = f.Excluded // its claim, when the excluded occurrence comes due
	a.ClaimedBy, a.ClaimedAt = "new-node", f.Excluded
	if fr := domain.BeginExcluding(a, cals, f.Excluded, policy); fr.Skip == nil || !fr.Skip.ScheduledFor.After(f.Excluded) {
		t.Errorf("the series' claim of its excluded occurrence %s is delivered (skip %+v): want it left out", f.Excluded, fr.Skip)
	}
}

// normalize brings a's times to precision and its payload to one spelling of "none":
// PostgreSQL keeps an absent payload as JSON null, the others as no bytes.
func normalize(a *domain.Alarm, precision time.Duration) {
	for _, p := range []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt,
		&a.LastFiredAt, &a.PausedUntil} {
		*p = p.Truncate(precision)
	}
	if len(a.Payload) == 0 || string(a.Payload) == "null" {
		a.Payload = nil
	}
}
