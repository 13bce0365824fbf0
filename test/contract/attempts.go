package contract

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var attemptCases = []testCase{
	{"RecordedWithTheirReceipt", testAttemptsRecorded},
	{"BodyKeptByteForByte", testAttemptsBody},
	{"NewestFirstWithCursor", testAttemptsPaging},
	{"ScopedByOwner", testAttemptsScope},
	{"OtherEventsAreNotAttempts", testAttemptsOnlyAttempts},
	{"GoWithTheirEvents", testAttemptsRetention},
}

// attempts is a page of the attempt log, failing the test on an error.
func (e *env) attempts(scope ports.Scope, id string, limit int, cursor string) ([]domain.Event, string) {
	e.t.Helper()
	evs, next, err := e.store.Attempts(e.ctx, ports.AttemptsQuery{Scope: scope, AlarmID: id, Limit: limit, Cursor: cursor})
	if err != nil {
		e.t.Fatalf("Attempts(%s, limit %d, cursor %q): %v", id, limit, cursor, err)
	}
	return evs, next
}

// withReceipt is o carrying r, as the dispatcher hands it to Decide.
func withReceipt(o domain.Outcome, r domain.Receipt) domain.Outcome {
	o.Receipt = &r
	return o
}

// attempt claims a (due) as worker and applies the outcome o, at the clock's now.
func (e *env) attempt(worker string, a domain.Alarm, o domain.Outcome) domain.Transition {
	e.t.Helper()
	c := e.claimOnly(worker, shortLease, a.ID)
	tr := domain.Decide(domain.Begin(c, e.now(), policy), o, e.now(), policy)
	e.applyOK(tr)
	return tr
}

// An attempt's event comes back with its receipt exactly (the duration to the
// microsecond), its worker and attempt number, newest first: a refusal with its
// status, content type and body, then a delivery with none of them.
func testAttemptsRecorded(t *testing.T, e *env) {
	s := e.onceIn(alice, 0)
	s.MaxFailures = 3
	a := e.create(s)
	refused := domain.Receipt{Duration: 1234567 * time.Microsecond, Status: 503, ContentType: "text/plain; charset=utf-8",
		Body: []byte("busy, try later"), Truncated: true}
	retry := e.attempt("w1", a, withReceipt(domain.DeliveryFailed("HTTP 503"), refused))
	e.clock.Set(retry.NextFireAt)
	delivered := domain.Receipt{Duration: 3 * time.Millisecond, Status: 204}
	e.attempt("w2", a, withReceipt(domain.Delivered(), delivered))

	got, next := e.attempts(ports.OwnedBy(alice), a.ID, 0, "")
	if next != "" {
		t.Errorf("next cursor = %q, want none", next)
	}
	if len(got) != 2 {
		t.Fatalf("attempts = %v, want two", eventTypes(got))
	}
	want := []struct {
		typ     domain.EventType
		worker  string
		attempt int
		msg     string
		receipt domain.Receipt
	}{
		{domain.EventFired, "w2", 2, "", delivered},
		{domain.EventRetryScheduled, "w1", 1, "HTTP 503", refused},
	}
	for i, w := range want {
		g := got[i]
		if g.Type != w.typ || g.Worker != w.worker || g.Attempt != w.attempt || g.Message != w.msg || g.AlarmID != a.ID {
			t.Errorf("attempt %d = %s by %q, attempt %d, message %q; want %s by %q, attempt %d, message %q",
				i, g.Type, g.Worker, g.Attempt, g.Message, w.typ, w.worker, w.attempt, w.msg)
		}
		if g.Receipt == nil || !reflect.DeepEqual(*g.Receipt, w.receipt) {
			t.Errorf("attempt %d receipt = %+v, want %+v", i, g.Receipt, w.receipt)
		}
	}
	// The history is the same events, in order.
	hist := stored(e.events(alice, a.ID))
	if len(hist) != 2 || hist[0].ID != got[1].ID || hist[1].ID != got[0].ID {
		t.Errorf("history ids = %v, attempts ids = %v: want the same events", eventIDs(hist), eventIDs(got))
	}
}

// A body of any bytes (NUL, invalid UTF-8), up to domain.MaxReceiptBody, comes back
// as written; an attempt without one (a transport error) has none, and no status.
func testAttemptsBody(t *testing.T, e *env) {
	body := bytes.Repeat([]byte{0, 0xff, 'a', '\n'}, domain.MaxReceiptBody/4)
	s := e.onceIn(alice, 0)
	s.MaxFailures = 3
	a := e.create(s)
	retry := e.attempt("w1", a, withReceipt(domain.DeliveryFailed("HTTP 500"), domain.Receipt{Duration: time.Millisecond, Status: 500,
		ContentType: "application/octet-stream", Body: body}))
	e.clock.Set(retry.NextFireAt)
	e.attempt("w1", a, withReceipt(domain.DeliveryFailed("webhook: connection refused"), domain.Receipt{Duration: 2 * time.Millisecond}))

	got, _ := e.attempts(ports.OwnedBy(alice), a.ID, 0, "")
	if len(got) != 2 || got[0].Receipt == nil || got[1].Receipt == nil {
		t.Fatalf("attempts = %+v, want two with receipts", got)
	}
	if r := got[0].Receipt; r.Status != 0 || r.ContentType != "" || r.Body != nil || r.Duration != 2*time.Millisecond ||
		got[0].Message != "webhook: connection refused" {
		t.Errorf("transport failure = %+v (message %q), want the duration and the error only", r, got[0].Message)
	}
	if r := got[1].Receipt; !bytes.Equal(r.Body, body) || r.Status != 500 {
		t.Errorf("body of %d bytes came back as %d bytes (status %d), want it exactly", len(body), len(r.Body), r.Status)
	}
}

// Pages are newest first; each cursor continues with older attempts; the last page
// has no cursor; limits are bounded; a cursor the store did not make is a
// *domain.ValidationError on "cursor".
func testAttemptsPaging(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "@hourly", ""))
	var ids []int64 // newest first
	for i := range 5 {
		e.clock.Advance(time.Minute)
		e.mutate(alice, a.ID, triggerFn)
		tr := e.attempt("w1", a, withReceipt(domain.DeliveryFailed(fmt.Sprintf("HTTP 50%d", i)), domain.Receipt{Duration: time.Millisecond, Status: 500 + i}))
		if tr.Events[0].Type != domain.EventRetryScheduled {
			t.Fatalf("attempt %d is %s, want retry_scheduled", i, tr.Events[0].Type)
		}
	}
	all, next := e.attempts(ports.OwnedBy(alice), a.ID, 0, "")
	if len(all) != 5 || next != "" {
		t.Fatalf("all attempts: %d, next %q; want 5, none", len(all), next)
	}
	for i := range all {
		ids = append(ids, all[i].ID)
		if i > 0 && all[i].ID >= all[i-1].ID {
			t.Errorf("attempts not newest first: ids %v", eventIDs(all))
		}
		if want := 504 - i; all[i].Receipt.Status != want {
			t.Errorf("attempt %d status %d, want %d", i, all[i].Receipt.Status, want)
		}
	}
	var walked []int64
	cursor := ""
	for range 4 {
		page, next := e.attempts(ports.OwnedBy(alice), a.ID, 2, cursor)
		walked = append(walked, eventIDs(page)...)
		if next == "" {
			break
		}
		cursor = next
	}
	if !reflect.DeepEqual(walked, ids) {
		t.Errorf("pages of 2 walked %v, want %v", walked, ids)
	}
	if page, _ := e.attempts(ports.OwnedBy(alice), a.ID, ports.MaxAttemptsLimit+1, ""); len(page) != 5 {
		t.Errorf("limit above the maximum: %d attempts, want 5", len(page))
	}
	for _, cursor := range []string{"not-a-cursor", "Zm9v", "LTE"} {
		_, _, err := e.store.Attempts(e.ctx, ports.AttemptsQuery{Scope: ports.OwnedBy(alice), AlarmID: a.ID, Cursor: cursor})
		var ve *domain.ValidationError
		if !errors.As(err, &ve) || ve.Field != "cursor" {
			t.Errorf("Attempts cursor=%q: error = %v, want a *domain.ValidationError on \"cursor\"", cursor, err)
		}
	}
}

// Another owner's alarm, an unknown id and the empty scope are ErrNotFound; the
// operator's scope sees every owner's attempts.
func testAttemptsScope(t *testing.T, e *env) {
	a := e.createDue(alice)
	e.attempt("w1", a, withReceipt(domain.Delivered(), domain.Receipt{Duration: time.Millisecond, Status: 200, Body: []byte("ok")}))
	for _, c := range []struct {
		what  string
		scope ports.Scope
		id    string
	}{
		{"another owner", ports.OwnedBy(bob), a.ID},
		{"an unknown id", ports.OwnedBy(alice), newID()},
		{"the empty scope", ports.Scope{}, a.ID},
	} {
		_, _, err := e.store.Attempts(e.ctx, ports.AttemptsQuery{Scope: c.scope, AlarmID: c.id})
		wantErr(t, "Attempts of "+c.what, err, ports.ErrNotFound)
	}
	if got, _ := e.attempts(ports.AnyOwner, a.ID, 0, ""); len(got) != 1 || got[0].Receipt == nil || string(got[0].Receipt.Body) != "ok" {
		t.Errorf("the operator's Attempts = %+v, want the one attempt with its body", got)
	}
	if got, _ := e.attempts(ports.OwnedBy(alice), e.createDue(alice).ID, 0, ""); len(got) != 0 {
		t.Errorf("Attempts of an alarm never attempted = %v, want none", eventTypes(got))
	}
}

// Events without a receipt (owner actions, a deferral, an attempt whose waker said
// nothing) are not attempts, and the history does not carry receipts.
func testAttemptsOnlyAttempts(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "@hourly", ""))
	e.clock.Advance(time.Minute)
	e.mutateApplied(alice, a.ID, pauseFn)
	e.mutateApplied(alice, a.ID, resumeFn)
	e.mutate(alice, a.ID, triggerFn)
	e.attempt("w1", a, domain.Deferred(time.Second, "endpoint busy"))
	e.clock.Advance(time.Minute)
	e.attempt("w1", a, domain.Delivered()) // no receipt: a store cannot make one up
	e.mutate(alice, a.ID, triggerFn)
	e.attempt("w1", a, withReceipt(domain.Delivered(), domain.Receipt{Duration: time.Millisecond, Status: 200}))

	got, _ := e.attempts(ports.OwnedBy(alice), a.ID, 0, "")
	if len(got) != 1 || got[0].Type != domain.EventFired {
		t.Errorf("attempts = %v, want the one fired event with a receipt", eventTypes(got))
	}
	for _, ev := range e.events(alice, a.ID) {
		if ev.Receipt != nil {
			t.Errorf("the history's %s event carries a receipt", ev.Type)
		}
	}
}

// Trimming events and deleting alarms takes their attempts with them.
func testAttemptsRetention(t *testing.T, e *env) {
	a := e.create(cronSpec(alice, "0 9 * * *", "UTC"))
	for range 4 {
		e.clock.Advance(time.Minute)
		e.mutate(alice, a.ID, triggerFn)
		e.attempt("w1", a, withReceipt(domain.DeliveryFailed("HTTP 503"), domain.Receipt{Duration: time.Millisecond, Status: 503}))
	}
	before, _ := e.attempts(ports.OwnedBy(alice), a.ID, 0, "")
	if len(before) != 4 {
		t.Fatalf("setup: %d attempts, want 4", len(before))
	}
	hist := stored(e.events(alice, a.ID))
	e.sweep(10, time.Time{}, 1)
	after, _ := e.attempts(ports.OwnedBy(alice), a.ID, 0, "")
	if len(after) != 1 || after[0].ID != hist[len(hist)-1].ID {
		t.Errorf("after keeping 1 event: attempts %v, want only the newest event %d", eventIDs(after), hist[len(hist)-1].ID)
	}

	f := e.createDue(bob)
	e.attempt("w1", f, withReceipt(domain.Delivered(), domain.Receipt{Duration: time.Millisecond, Status: 200}))
	if d, err := e.store.DeleteAlarms(e.ctx, []string{f.ID}); err != nil || d.Alarms != 1 || d.Events != 1 {
		t.Fatalf("DeleteAlarms = %+v, %v; want 1 alarm, 1 event", d, err)
	}
	_, _, err := e.store.Attempts(e.ctx, ports.AttemptsQuery{Scope: ports.AnyOwner, AlarmID: f.ID})
	wantErr(t, "Attempts of a deleted alarm", err, ports.ErrNotFound)
}

func eventIDs(evs []domain.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}
