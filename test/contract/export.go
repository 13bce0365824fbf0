package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Export: the optional ports.Exporter and ports.Importer, which `chronos export` and
// `chronos import` move a cluster between stores with. A store without them has these
// cases skipped, each saying so; every other store must pass them.
var exportCases = []testCase{
	{"AlarmsEveryField", testExportAlarmsEveryField},
	{"AlarmsPaged", testExportAlarmsPaged},
	{"EventsPagedAndBounded", testExportEventsPaged},
	{"ImportEventsKeepOrder", testImportEventsKeepOrder},
	{"ImportAlarmsConflict", testImportAlarmsConflict},
	{"ImportEndpointsKeepStamps", testImportEndpointsKeepStamps},
	{"ImportEndpointsConflict", testImportEndpointsConflict},
	{"TokensKeepEveryField", testExportTokensKeepEveryField},
	{"CalendarsPagedEveryOwner", testExportCalendarsPaged},
	{"ImportCalendarsKeepStamps", testImportCalendarsKeepStamps},
	{"ImportCalendarsConflict", testImportCalendarsConflict},
	{"RoundTripToAnotherStore", testExportRoundTrip},
}

// exporter returns the store's Exporter and Importer, or skips the case saying why.
func (e *env) exporter() (ports.Exporter, ports.Importer) {
	e.t.Helper()
	return exporterOf(e.t, e.store)
}

func exporterOf(t *testing.T, s ports.Store) (ports.Exporter, ports.Importer) {
	t.Helper()
	ex, ok := s.(ports.Exporter)
	im, ok2 := s.(ports.Importer)
	if !ok || !ok2 {
		t.Skipf("store %T does not implement the optional ports.Exporter and ports.Importer; Export cases not run", s)
	}
	return ex, im
}

// everyState is one alarm in each state a store keeps, every field of each set to a
// value a store could lose: a lease, counts, errors, a series with every option, a
// paused series with a note and an end, an at-most-once wake in doubt, a backfill, a
// failure notice, payloads with insignificant whitespace. The store keeps what it is
// given, whoever made it.
func (e *env) everyState() []domain.Alarm {
	e.t.Helper()
	now := e.now()
	once := func(owner string, d time.Duration) domain.Alarm {
		s := e.onceIn(owner, d)
		s.Payload = json.RawMessage(`{"n": 1,  "s":"é ⏰", "nested": [1, 2 ,3]}`)
		s.WakeMessage, s.ConversationID, s.Label = "wake up\nnow", "conv-"+owner, "once ⏰ "+owner
		return e.build(s)
	}
	active := once(alice, time.Hour)
	active.IdempotencyKey, active.Endpoint = "order-1", "billing"

	fired := once(alice, -time.Hour)
	fired.Status, fired.LastFiredAt, fired.UpdatedAt = domain.StatusFired, now.Add(-59*time.Minute), now.Add(-59*time.Minute)
	fired.FailureCount, fired.LastError, fired.IdempotencyKey = 1, "HTTP 502: bad gateway", "order-2"

	failed := once(bob, -2*time.Hour)
	failed.Status, failed.FailureCount, failed.LastError, failed.UpdatedAt = domain.StatusFailed, 5, "HTTP 410 Gone", now.Add(-time.Minute)

	cancelled := once(bob, 2*time.Hour)
	cancelled.Status, cancelled.UpdatedAt = domain.StatusCancelled, now.Add(-time.Second)

	leased := e.seriesAlarm(alice)
	leased.NextFireAt, leased.ScheduledFor = now.Add(-5*time.Minute), now.Add(-5*time.Minute)
	leased.ClaimedBy, leased.ClaimedAt = "node-1", now.Add(-4*time.Minute)
	leased.LastFiredAt, leased.Endpoint = now.Add(-10*time.Minute), "billing"

	// At-most-once, advanced to its next occurrence and still leased: the wake of the
	// last one is in doubt.
	inDoubt := e.build(cronSpec(bob, "0 * * * *", "UTC"))
	inDoubt.Delivery = domain.AtMostOnce
	inDoubt.ClaimedBy, inDoubt.ClaimedAt = "node-2", now.Add(-time.Second)
	inDoubt.LastError = domain.InDoubtPrefix + "at-most-once wake of ... it may not have arrived"
	inDoubt.FireCount = 9

	paused := e.seriesAlarm("carol")
	paused.Series.Misfire = domain.MisfireSkip
	paused.Status, paused.PausedReason, paused.PausedUntil = domain.StatusPaused, "maintenance — window", now.Add(2*time.Hour)
	paused.SkipStreak, paused.LastError = 4, "HTTP 503"

	backfill := e.build(e.onceIn(alice, -time.Minute))
	backfill.Series.BackfillOf = leased.ID

	notice := e.build(e.onceIn(bob, 0))
	notice.Series.Notice = "alarm.failed"
	notice.Payload = json.RawMessage(`{"type":"alarm.failed","alarm":{"id":"` + failed.ID + `"}}`)
	return []domain.Alarm{active, fired, failed, cancelled, leased, inDoubt, paused, backfill, notice}
}

// importAlarms writes as through the Importer, failing the test on an error.
func (e *env) importAlarms(im ports.Importer, as []domain.Alarm) {
	e.t.Helper()
	if err := im.ImportAlarms(e.ctx, as); err != nil {
		e.t.Fatalf("ImportAlarms(%d alarms): %v", len(as), err)
	}
}

// exportAllAlarms walks ExportAlarms to the end, page pages at a time.
func exportAllAlarms(t *testing.T, e *env, ex ports.Exporter, page int) []domain.Alarm {
	t.Helper()
	var all []domain.Alarm
	after := ""
	for {
		as, err := ex.ExportAlarms(e.ctx, after, page)
		if err != nil {
			t.Fatalf("ExportAlarms(%q, %d): %v", after, page, err)
		}
		if len(as) > page {
			t.Fatalf("ExportAlarms(%q, %d) returned %d alarms", after, page, len(as))
		}
		if len(as) == 0 {
			return all
		}
		all = append(all, as...)
		after = as[len(as)-1].ID
	}
}

// exportAllEvents walks ExportEvents over every alarm, page events at a time.
func exportAllEvents(t *testing.T, e *env, ex ports.Exporter, through string, page int) []domain.Event {
	t.Helper()
	var all []domain.Event
	var after ports.EventCursor
	for {
		evs, err := ex.ExportEvents(e.ctx, after, through, page)
		if err != nil {
			t.Fatalf("ExportEvents(%+v, %q, %d): %v", after, through, page, err)
		}
		if len(evs) > page {
			t.Fatalf("ExportEvents(%+v, %q, %d) returned %d events", after, through, page, len(evs))
		}
		if len(evs) == 0 {
			return all
		}
		all = append(all, evs...)
		last := evs[len(evs)-1]
		after = ports.EventCursor{AlarmID: last.AlarmID, ID: last.ID}
	}
}

// ImportAlarms keeps every field of every state, and ExportAlarms reads each back
// exactly, in id order.
func testExportAlarmsEveryField(t *testing.T, e *env) {
	ex, im := e.exporter()
	as := e.everyState()
	e.importAlarms(im, as)
	got := exportAllAlarms(t, e, ex, 100)
	want := slices.Clone(as)
	slices.SortFunc(want, byAlarmID)
	if len(got) != len(want) {
		t.Fatalf("ExportAlarms returned %d alarms, want %d", len(got), len(want))
	}
	for i := range want {
		e.wantAlarm("ExportAlarms after ImportAlarms", got[i], want[i])
		e.wantAlarm("AdminGet after ImportAlarms", e.adminGet(want[i].ID), want[i])
	}
}

func byAlarmID(x, y domain.Alarm) int { return strings.Compare(x.ID, y.ID) }

func (e *env) adminGet(id string) domain.Alarm {
	e.t.Helper()
	a, err := e.store.Get(e.ctx, ports.AnyOwner, id)
	if err != nil {
		e.t.Fatalf("Get(AnyOwner, %s): %v", id, err)
	}
	return a
}

// Pages of every size cover every alarm once, in id order, across owners.
func testExportAlarmsPaged(t *testing.T, e *env) {
	ex, _ := e.exporter()
	var want []string
	for i := range 7 {
		owner := []string{alice, bob, "carol"}[i%3]
		want = append(want, e.create(e.onceIn(owner, time.Duration(i)*time.Minute)).ID)
	}
	slices.Sort(want)
	for _, page := range []int{1, 2, 3, 7, 100} {
		if got := alarmIDs(exportAllAlarms(t, e, ex, page)); !slices.Equal(got, want) {
			t.Errorf("ExportAlarms by pages of %d = %v, want %v", page, got, want)
		}
	}
}

// ExportEvents returns the stored events (no made-up created event), each alarm's
// oldest first, by alarm id, each with every field, an attempt's receipt included
// (as Attempts reads it); its cursor and its upper bound cut nothing and repeat
// nothing.
func testExportEventsPaged(t *testing.T, e *env) {
	ex, _ := e.exporter()
	var as []domain.Alarm
	for range 4 {
		as = append(as, e.create(e.onceIn(alice, -time.Minute)))
	}
	quiet := e.create(e.onceIn(bob, 100*time.Hour)) // never due here: no stored event
	// Each due alarm fails twice, then fires: three stored events each, each an attempt
	// with what the receiver answered.
	for round := range 3 {
		c := e.claim("w1", shortLease, 100)
		ts := make([]domain.Transition, len(c.Alarms))
		for i, a := range c.Alarms {
			o := withReceipt(domain.Delivered(), domain.Receipt{Duration: 3*time.Millisecond + 7*time.Microsecond, Status: 204})
			if round < 2 {
				o = withReceipt(domain.DeliveryFailed(fmt.Sprintf("HTTP 50%d", round)), domain.Receipt{Duration: time.Duration(round+1) * time.Second,
					Status: 500 + round, ContentType: "text/plain; charset=utf-8", Body: []byte{'n', 'o', 0, 0xff, byte(i)}, Truncated: round == 1})
			}
			ts[i] = domain.Decide(domain.Begin(a, e.now(), policy), o, e.now(), policy)
		}
		e.applyOK(ts...)
		e.clock.Advance(time.Hour)
	}
	ids := alarmIDs(append(slices.Clone(as), quiet))
	slices.Sort(ids)
	var want []domain.Event
	for _, id := range ids {
		evs, err := e.store.Events(e.ctx, ports.AnyOwner, id, 0)
		if err != nil {
			t.Fatalf("Events(AnyOwner, %s): %v", id, err)
		}
		// The history need not read receipts; the attempt log has them, by event id.
		receipts := map[int64]*domain.Receipt{}
		attempts, _ := e.attempts(ports.AnyOwner, id, ports.MaxAttemptsLimit, "")
		for _, a := range attempts {
			receipts[a.ID] = a.Receipt
		}
		for _, ev := range evs[1:] { // without the created event Events makes up
			ev.Receipt = receipts[ev.ID]
			want = append(want, ev)
		}
	}
	if len(want) != 12 {
		t.Fatalf("the case's alarms have %d stored events, want 12", len(want))
	}
	for _, ev := range want {
		if !ev.IsAttempt() {
			t.Fatalf("the %s event of %s is not in the attempt log: every one of the case's is an attempt", ev.Type, ev.AlarmID)
		}
	}
	last := ids[len(ids)-1]
	for _, page := range []int{1, 5, 12, 1000} {
		got := exportAllEvents(t, e, ex, last, page)
		if len(got) != len(want) {
			t.Errorf("ExportEvents by pages of %d: %d events, want %d", page, len(got), len(want))
			continue
		}
		for i := range want {
			if got[i].ID != want[i].ID {
				t.Errorf("ExportEvents by pages of %d: event %d has id %d, want %d", page, i, got[i].ID, want[i].ID)
			}
			if d := e.eventRowDiff(got[i], want[i]); d != "" {
				t.Errorf("ExportEvents by pages of %d: event %d differs:%s", page, i, d)
			}
		}
	}
	// The bound: only the events of alarms with ids up to it.
	if got := exportAllEvents(t, e, ex, ids[1], 2); len(got) != 6 {
		t.Errorf("ExportEvents through the second alarm: %d events, want 6", len(got))
	}
	if got := exportAllEvents(t, e, ex, "", 2); len(got) != 0 {
		t.Errorf(`ExportEvents through "": %d events, want none`, len(got))
	}
}

// Imported events are the alarm's history, in the order given, every field kept, and
// those with a receipt its attempt log; ExportEvents reads them back in that order,
// receipts included.
func testImportEventsKeepOrder(t *testing.T, e *env) {
	ex, im := e.exporter()
	as := e.everyState()
	e.importAlarms(im, as)
	at := e.now().Add(-time.Hour)
	var evs []domain.Event
	for i, a := range as {
		for j, typ := range []domain.EventType{domain.EventCreated, domain.EventRetryScheduled, domain.EventFired, domain.EventPaused} {
			evs = append(evs, domain.Event{ID: int64(1000 - i*10 - j), AlarmID: a.ID, Type: typ,
				At: at.Add(time.Duration(i*10+j) * time.Second), Attempt: j, ScheduledFor: a.ScheduledFor,
				Worker: fmt.Sprintf("node-%d", j), Message: "détail \"quoted\"\nline"})
		}
	}
	evs[1].ScheduledFor, evs[2].Worker, evs[3].Message = time.Time{}, "", ""
	// The retry and the fire record attempts: their receipts are the attempt log.
	for i := range evs {
		switch evs[i].Type {
		case domain.EventRetryScheduled:
			evs[i].Receipt = &domain.Receipt{Duration: 1234567 * time.Microsecond, Status: 503, ContentType: "text/html",
				Body: []byte{'<', 0, 0xfe, 'é'}, Truncated: true}
		case domain.EventFired:
			evs[i].Receipt = &domain.Receipt{Duration: time.Duration(i) * time.Millisecond} // no HTTP answer
		}
	}
	if err := im.ImportEvents(e.ctx, evs); err != nil {
		t.Fatalf("ImportEvents(%d events): %v", len(evs), err)
	}
	for _, a := range as {
		var mine []domain.Event
		for _, ev := range evs {
			if ev.AlarmID == a.ID {
				mine = append(mine, ev)
			}
		}
		got, err := e.store.Events(e.ctx, ports.AnyOwner, a.ID, 0)
		if err != nil {
			t.Fatalf("Events(AnyOwner, %s): %v", a.ID, err)
		}
		if len(got) != len(mine) {
			t.Errorf("alarm %s: %d events after ImportEvents, want %d (a stored created event is the history's first)", a.ID, len(got), len(mine))
			continue
		}
		for i := range mine {
			if d := e.eventDiff(got[i], mine[i]); d != "" {
				t.Errorf("alarm %s: event %d (%s) differs:%s", a.ID, i, mine[i].Type, d)
			}
			if i > 0 && got[i].ID <= got[i-1].ID {
				t.Errorf("alarm %s: imported event ids not increasing: %d then %d", a.ID, got[i-1].ID, got[i].ID)
			}
		}
	}
	for _, a := range as {
		var mine []domain.Event // the attempts, newest first, as Attempts returns them
		for _, ev := range slices.Backward(evs) {
			if ev.AlarmID == a.ID && ev.IsAttempt() {
				mine = append(mine, ev)
			}
		}
		got, _ := e.attempts(ports.AnyOwner, a.ID, ports.MaxAttemptsLimit, "")
		if len(got) != len(mine) {
			t.Errorf("alarm %s: %d attempts after ImportEvents, want %d", a.ID, len(got), len(mine))
			continue
		}
		for i := range mine {
			if d := e.eventRowDiff(got[i], mine[i]); d != "" {
				t.Errorf("alarm %s: attempt %d (%s) differs:%s", a.ID, i, mine[i].Type, d)
			}
		}
	}
	last := slices.MaxFunc(as, byAlarmID).ID
	byAlarm := slices.Clone(evs)
	slices.SortStableFunc(byAlarm, func(x, y domain.Event) int { return strings.Compare(x.AlarmID, y.AlarmID) })
	got := exportAllEvents(t, e, ex, last, 3)
	if len(got) != len(byAlarm) {
		t.Fatalf("ExportEvents after ImportEvents: %d events, want %d", len(got), len(byAlarm))
	}
	for i := range byAlarm {
		if d := e.eventRowDiff(got[i], byAlarm[i]); d != "" {
			t.Errorf("ExportEvents after ImportEvents: event %d (%s of %s) differs:%s", i, byAlarm[i].Type, byAlarm[i].AlarmID, d)
		}
	}
	if err := im.ImportEvents(e.ctx, nil); err != nil {
		t.Errorf("ImportEvents(nil) = %v, want nil", err)
	}
}

// An id or an owner's idempotency key already stored, or repeated within the batch, is
// ErrConflict, and nothing of the batch is written.
func testImportAlarmsConflict(t *testing.T, e *env) {
	_, im := e.exporter()
	keyed := e.build(e.onceIn(alice, time.Hour))
	keyed.IdempotencyKey = "taken"
	e.importAlarms(im, []domain.Alarm{keyed})
	fresh := func() domain.Alarm { return e.build(e.onceIn(alice, time.Hour)) }
	sameKey := fresh()
	sameKey.IdempotencyKey = "taken"
	twiceA, twiceB := fresh(), fresh()
	twiceA.IdempotencyKey, twiceB.IdempotencyKey = "twice", "twice"
	for name, batch := range map[string][]domain.Alarm{
		"a stored id":          {fresh(), keyed, fresh()},
		"a stored key":         {fresh(), sameKey},
		"a key repeated in as": {twiceA, twiceB},
	} {
		err := im.ImportAlarms(e.ctx, batch)
		wantErr(t, "ImportAlarms with "+name, err, ports.ErrConflict)
		for _, a := range batch {
			if a.ID != keyed.ID {
				if _, err := e.store.Get(e.ctx, ports.AnyOwner, a.ID); err == nil {
					t.Errorf("ImportAlarms with %s wrote alarm %s: want nothing written", name, a.ID)
				}
			}
		}
	}
	if err := im.ImportAlarms(e.ctx, nil); err != nil {
		t.Errorf("ImportAlarms(nil) = %v, want nil", err)
	}
}

// Imported endpoints keep every field, their stamps included.
func testImportEndpointsKeepStamps(t *testing.T, e *env) {
	_, im := e.exporter()
	full := e.fullEndpoint(alice, "billing")
	full.CreatedAt, full.UpdatedAt = e.now().Add(-48*time.Hour), e.now().Add(-time.Hour)
	plain := e.newEndpoint(bob, "hooks")
	plain.CreatedAt, plain.UpdatedAt = e.now().Add(-time.Minute), e.now().Add(-time.Minute)
	if err := im.ImportEndpoints(e.ctx, []domain.Endpoint{full, plain}); err != nil {
		t.Fatalf("ImportEndpoints: %v", err)
	}
	e.wantEndpoints("ListEndpoints after ImportEndpoints", e.listEndpoints(""), []domain.Endpoint{full, plain})
	if err := im.ImportEndpoints(e.ctx, nil); err != nil {
		t.Errorf("ImportEndpoints(nil) = %v, want nil", err)
	}
}

// An (owner, name) already stored or repeated is ErrConflict, and nothing is written.
func testImportEndpointsConflict(t *testing.T, e *env) {
	_, im := e.exporter()
	e.createEndpoint(e.newEndpoint(alice, "billing"))
	stamp := func(ep domain.Endpoint) domain.Endpoint { ep.CreatedAt, ep.UpdatedAt = e.now(), e.now(); return ep }
	for name, batch := range map[string][]domain.Endpoint{
		"a stored name":   {stamp(e.newEndpoint(bob, "new")), stamp(e.newEndpoint(alice, "billing"))},
		"a repeated name": {stamp(e.newEndpoint(bob, "twice")), stamp(e.newEndpoint(bob, "twice"))},
	} {
		wantErr(t, "ImportEndpoints with "+name, im.ImportEndpoints(e.ctx, batch), ports.ErrConflict)
	}
	if got := e.listEndpoints(""); len(got) != 1 {
		t.Errorf("after the refused imports ListEndpoints has %d endpoints, want the 1 created", len(got))
	}
}

// What `chronos import` writes tokens with, CreateToken, keeps every field it is given:
// a revocation and a last use too.
func testExportTokensKeepEveryField(t *testing.T, e *env) {
	e.exporter()
	used := e.newToken(alice)
	used.Note, used.LastUsedAt = "billing — prod", e.now().Add(-time.Minute)
	revoked := e.newToken("ops")
	revoked.Scope, revoked.CreatedAt, revoked.RevokedAt = domain.ScopeAdmin, e.now().Add(-time.Hour), e.now().Add(-time.Second)
	e.createToken(revoked)
	e.createToken(used)
	e.wantTokens("ListTokens after CreateToken of exported tokens", "", []domain.Token{revoked, used})
}

// Every alarm, its history and attempt log and every endpoint, exported page by page
// from one store and imported into a new one (as `chronos export | chronos import`
// does), read the same from both.
func testExportRoundTrip(t *testing.T, e *env) {
	ex, im := e.exporter()
	as := e.everyState()
	e.importAlarms(im, as)
	for _, a := range e.createN(alice, 5) {
		e.mutate(alice, a.ID, cancelFn)
	}
	e.createBacklog(bob, 3, -time.Minute)
	c := e.claim("w1", shortLease, 2)
	ts := []domain.Transition{
		domain.Decide(domain.Begin(c.Alarms[0], e.now(), policy), withReceipt(domain.DeliveryFailed("HTTP 500"),
			domain.Receipt{Duration: 250 * time.Millisecond, Status: 500, ContentType: "application/json", Body: []byte(`{"error":"busy"}`)}), e.now(), policy),
		domain.Decide(domain.Begin(c.Alarms[1], e.now(), policy), withReceipt(domain.Delivered(),
			domain.Receipt{Duration: 4 * time.Millisecond, Status: 200, Body: []byte{0xff, 0}, Truncated: true}), e.now(), policy),
	}
	e.applyOK(ts...)
	ep := e.fullEndpoint(alice, "billing")
	e.createEndpoint(ep)
	for _, owner := range []string{alice, "carol"} { // everyState's series name these
		e.putCalendar(e.newCalendar(owner, "holidays"))
		e.putCalendar(e.newCalendar(owner, "team-offsites"))
	}

	target := e.harness.NewStore(t, e.clock)
	tex, tim := exporterOf(t, target)
	cals := exportAllCalendars(t, e, ex, 3)
	if err := tim.ImportCalendars(e.ctx, cals); err != nil { // before the series that name them
		t.Fatalf("ImportCalendars into the new store: %v", err)
	}
	var srcAlarms []domain.Alarm
	after := ""
	for {
		page, err := ex.ExportAlarms(e.ctx, after, 3)
		if err != nil {
			t.Fatalf("ExportAlarms: %v", err)
		}
		if len(page) == 0 {
			break
		}
		last := page[len(page)-1].ID
		evs := exportAllEvents(t, e, ex, last, 4)
		var inPage []domain.Event
		for _, ev := range evs {
			if ev.AlarmID > after {
				inPage = append(inPage, ev)
			}
		}
		if err := tim.ImportAlarms(e.ctx, page); err != nil {
			t.Fatalf("ImportAlarms into the new store: %v", err)
		}
		if err := tim.ImportEvents(e.ctx, inPage); err != nil {
			t.Fatalf("ImportEvents into the new store: %v", err)
		}
		srcAlarms = append(srcAlarms, page...)
		after = last
	}
	eps := e.listEndpoints("")
	if err := tim.ImportEndpoints(e.ctx, eps); err != nil {
		t.Fatalf("ImportEndpoints into the new store: %v", err)
	}

	got := exportAllAlarms(t, e, tex, 100)
	if len(got) != len(srcAlarms) {
		t.Fatalf("the new store has %d alarms, the old one %d", len(got), len(srcAlarms))
	}
	attempts := 0
	for i, w := range srcAlarms {
		e.wantAlarm("alarm in the new store", got[i], w)
		gotEvs, err := target.Events(e.ctx, ports.AnyOwner, w.ID, 0)
		if err != nil {
			t.Fatalf("Events(AnyOwner, %s) in the new store: %v", w.ID, err)
		}
		wantEvs, err := e.store.Events(e.ctx, ports.AnyOwner, w.ID, 0)
		if err != nil {
			t.Fatalf("Events(AnyOwner, %s): %v", w.ID, err)
		}
		if len(gotEvs) != len(wantEvs) {
			t.Errorf("alarm %s: %d events in the new store, %d in the old", w.ID, len(gotEvs), len(wantEvs))
			continue
		}
		for j := range wantEvs {
			if d := e.eventDiff(gotEvs[j], wantEvs[j]); d != "" {
				t.Errorf("alarm %s: event %d differs in the new store:%s", w.ID, j, d)
			}
		}
		wantAt, _ := e.attempts(ports.AnyOwner, w.ID, ports.MaxAttemptsLimit, "")
		gotAt, _, err := target.Attempts(e.ctx, ports.AttemptsQuery{Scope: ports.AnyOwner, AlarmID: w.ID, Limit: ports.MaxAttemptsLimit})
		if err != nil {
			t.Fatalf("Attempts(AnyOwner, %s) in the new store: %v", w.ID, err)
		}
		if len(gotAt) != len(wantAt) {
			t.Errorf("alarm %s: %d attempts in the new store, %d in the old", w.ID, len(gotAt), len(wantAt))
			continue
		}
		for j := range wantAt {
			if d := e.eventRowDiff(gotAt[j], wantAt[j]); d != "" {
				t.Errorf("alarm %s: attempt %d differs in the new store:%s", w.ID, j, d)
			}
		}
		attempts += len(wantAt)
	}
	if attempts != 2 {
		t.Errorf("the old store's alarms have %d attempts, want the case's 2", attempts)
	}
	gotEps, err := target.ListEndpoints(e.ctx, "")
	if err != nil {
		t.Fatalf("ListEndpoints in the new store: %v", err)
	}
	e.wantEndpoints("endpoints in the new store", gotEps, eps)

	gotCals := exportAllCalendars(t, e, tex, 100)
	if len(gotCals) != len(cals) || len(cals) != 4 {
		t.Fatalf("the new store has %d calendars, the old one %d (want 4)", len(gotCals), len(cals))
	}
	for i := range cals {
		e.wantCalendar("calendar in the new store", gotCals[i], cals[i])
	}
	// Each series holds its calendars in the new store as in the old one.
	for _, w := range srcAlarms {
		for _, name := range w.Series.ExcludeCalendars {
			id, used, err := target.CalendarUser(e.ctx, w.Owner, name)
			if err != nil || (w.Status == domain.StatusActive || w.Status == domain.StatusPaused) != used {
				t.Errorf("CalendarUser(%s, %s) in the new store = %q, %t, %v; the old store's series %s (%s) names it",
					w.Owner, name, id, used, err, w.ID, w.Status)
			}
		}
	}
}
