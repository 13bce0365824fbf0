package chronos_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// recordingReceiver keeps every wake it gets and answers status (200 unless set).
type recordingReceiver struct {
	mu     sync.Mutex
	status int
	got    []receivedWake
}

type receivedWake struct {
	header http.Header
	body   []byte
}

func (r *recordingReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, receivedWake{req.Header.Clone(), body})
	status := r.status
	r.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
}

func (r *recordingReceiver) wakes() []receivedWake {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedWake(nil), r.got...)
}

func (r *recordingReceiver) answer(status int) {
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
}

const redeliverySecret = "whsec_c2VjcmV0LWZvci1yZWRlbGl2ZXJ5LXRlc3Q="

// redeliveryNode runs a node whose wakes go to a recording receiver, signed.
func redeliveryNode(t *testing.T) (*chronos.Node, *recordingReceiver) {
	t.Helper()
	recv := &recordingReceiver{}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	cfg := chronos.Config{Tick: 20 * time.Millisecond, Backoff: domain.Backoff{Base: 20 * time.Millisecond, Cap: 50 * time.Millisecond}}
	w, err := chronos.NewWebhookWaker(cfg, srv.URL, []string{redeliverySecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	cfg.Waker = w
	return runNode(t, memory.New(nil), cfg), recv
}

func eventsOf(t *testing.T, n *chronos.Node, owner, id string, typ domain.EventType) []domain.Event {
	t.Helper()
	es, err := n.Alarms().Events(t.Context(), owner, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.Event
	for _, e := range es {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// A fired alarm's occurrence is sent again on request: the receiver gets the same
// webhook-id, a valid Standard Webhooks signature and the redelivery header; the alarm
// stays fired, and its history records the redelivery as the occurrence's next attempt.
func TestRedeliverSendsAPastOccurrenceAgain(t *testing.T) {
	n, recv := redeliveryNode(t)
	a := createDue(t, n, 3)
	waitFor(t, "the first delivery", func() bool { return get(t, n, a.ID).Status == domain.StatusFired })
	before := get(t, n, a.ID)

	got, err := n.Redeliveries().Redeliver(t.Context(), "o", a.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Delivered || got.Attempt != 2 || got.OccurrenceKey != domain.OccurrenceKey(a.ID, a.NextFireAt) {
		t.Errorf("redelivery %+v, want delivered, attempt 2, key %s", got, domain.OccurrenceKey(a.ID, a.NextFireAt))
	}
	wakes := recv.wakes()
	if len(wakes) != 2 {
		t.Fatalf("the receiver got %d wakes, want 2", len(wakes))
	}
	first, again := wakes[0], wakes[1]
	if id := again.header.Get(webhook.StandardIDHeader); id == "" || id != first.header.Get(webhook.StandardIDHeader) {
		t.Errorf("webhook-id %q on the redelivery, %q on the first delivery: want the same", id, first.header.Get(webhook.StandardIDHeader))
	}
	if again.header.Get(webhook.RedeliveryHeader) != "1" || first.header.Get(webhook.RedeliveryHeader) != "" {
		t.Errorf("%s: %q on the redelivery, %q on the first delivery", webhook.RedeliveryHeader,
			again.header.Get(webhook.RedeliveryHeader), first.header.Get(webhook.RedeliveryHeader))
	}
	wh, err := standardwebhooks.NewWebhook(redeliverySecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(again.body, again.header); err != nil {
		t.Errorf("the Standard Webhooks library refuses the redelivery: %v", err)
	}
	if after := get(t, n, a.ID); after.Status != domain.StatusFired || after.FailureCount != before.FailureCount ||
		!after.UpdatedAt.Equal(before.UpdatedAt) || !after.LastFiredAt.Equal(before.LastFiredAt) {
		t.Errorf("after the redelivery the alarm is %+v; want it as before, %+v", after, before)
	}
	red := eventsOf(t, n, "o", a.ID, domain.EventRedelivered)
	if len(red) != 1 || red[0].Attempt != 2 || !red[0].ScheduledFor.Equal(a.NextFireAt) || red[0].Worker != n.WorkerID() || red[0].Message != "" {
		t.Errorf("redelivered events %+v; want one, attempt 2, for the occurrence, by this node, no error", red)
	}

	atts, _, err := n.Alarms().Attempts(t.Context(), "o", a.ID, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 2 || atts[0].Type != domain.EventRedelivered || atts[0].Receipt == nil || atts[0].Receipt.Status != http.StatusOK {
		t.Errorf("attempts %+v; want the redelivery first, with the receiver's 200, then the delivery", atts)
	}

	// A refusal is recorded too, with the receiver's answer.
	recv.answer(http.StatusServiceUnavailable)
	got, err = n.Redeliveries().Redeliver(t.Context(), "o", a.ID, got.OccurrenceKey)
	if err != nil {
		t.Fatal(err)
	}
	if got.Delivered || got.Attempt != 3 || got.Error == "" {
		t.Errorf("refused redelivery %+v; want not delivered, attempt 3, with the error", got)
	}
	if red := eventsOf(t, n, "o", a.ID, domain.EventRedelivered); len(red) != 2 || red[1].Message == "" {
		t.Errorf("redelivered events %+v; want the refusal recorded with its error", red)
	}
}

// A series' occurrence is sent again without moving the series.
func TestRedeliverDoesNotMoveASeries(t *testing.T) {
	n, recv := redeliveryNode(t)
	s, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindCron, CronExpr: "0 0 1 1 *", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Alarms().Trigger(t.Context(), "o", s.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the triggered occurrence", func() bool { return len(recv.wakes()) == 1 && get(t, n, s.ID).FireCount == 1 })
	before := get(t, n, s.ID)

	if _, err := n.Redeliveries().Redeliver(t.Context(), "o", s.ID, ""); err != nil {
		t.Fatal(err)
	}
	after := get(t, n, s.ID)
	if !after.NextFireAt.Equal(before.NextFireAt) || !after.ScheduledFor.Equal(before.ScheduledFor) || after.FireCount != before.FireCount || after.Status != before.Status {
		t.Errorf("the series moved: next %s → %s, scheduled %s → %s, fire_count %d → %d, %s → %s",
			before.NextFireAt, after.NextFireAt, before.ScheduledFor, after.ScheduledFor, before.FireCount, after.FireCount, before.Status, after.Status)
	}
	wakes := recv.wakes()
	if len(wakes) != 2 || wakes[1].header.Get(webhook.StandardIDHeader) != wakes[0].header.Get(webhook.StandardIDHeader) {
		t.Errorf("want the triggered occurrence sent again with its key; got %d wakes", len(wakes))
	}
}

// What cannot be redelivered is refused, naming why, and sends nothing.
func TestRedeliverRefuses(t *testing.T) {
	n, recv := redeliveryNode(t)
	fired := createDue(t, n, 3)
	waitFor(t, "the first delivery", func() bool { return get(t, n, fired.ID).Status == domain.StatusFired })
	hour := time.Hour
	later, _, err := n.Alarms().Create(t.Context(), domain.Spec{Owner: "o", Kind: domain.KindOnce, Delay: &hour})
	if err != nil {
		t.Fatal(err)
	}
	var ve *domain.ValidationError
	for _, c := range []struct {
		name, owner, id, key string
		check                func(error) bool
	}{
		{"never delivered", "o", later.ID, "", func(err error) bool { return errors.Is(err, domain.ErrInvalidState) }},
		{"another alarm's key", "o", fired.ID, domain.OccurrenceKey(later.ID, later.NextFireAt),
			func(err error) bool { return errors.As(err, &ve) && ve.Field == "occurrence_key" }},
		{"an occurrence never sent", "o", fired.ID, domain.OccurrenceKey(fired.ID, fired.NextFireAt.Add(time.Hour)),
			func(err error) bool { return errors.As(err, &ve) && ve.Field == "occurrence_key" }},
		{"not a time", "o", fired.ID, fired.ID + "/yesterday", func(err error) bool { return errors.As(err, &ve) && ve.Field == "occurrence_key" }},
		{"another owner's alarm", "p", fired.ID, "", func(err error) bool { return errors.Is(err, ports.ErrNotFound) }},
	} {
		if _, err := n.Redeliveries().Redeliver(t.Context(), c.owner, c.id, c.key); !c.check(err) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if got := len(recv.wakes()); got != 1 {
		t.Errorf("the receiver got %d wakes; want only the first delivery", got)
	}
}

// The owner's failed alarms are redelivered in bounded calls with a cursor; their
// status stays failed.
func TestRedeliverFailedWalksTheDeadLetters(t *testing.T) {
	n, recv := redeliveryNode(t)
	recv.answer(http.StatusInternalServerError)
	var failed []domain.Alarm
	for range 3 {
		failed = append(failed, createDue(t, n, 1))
	}
	waitFor(t, "three failed alarms", func() bool {
		for _, a := range failed {
			if get(t, n, a.ID).Status != domain.StatusFailed {
				return false
			}
		}
		return true
	})
	recv.answer(http.StatusOK)
	sent := len(recv.wakes())

	first, err := n.Redeliveries().RedeliverFailed(t.Context(), "o", ports.ListFilter{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if first.Matched != 2 || first.Delivered != 2 || first.NextCursor == "" {
		t.Errorf("first call %+v; want 2 matched and delivered, and a cursor", first)
	}
	rest, err := n.Redeliveries().RedeliverFailed(t.Context(), "o", ports.ListFilter{Cursor: first.NextCursor}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rest.Matched != 1 || rest.Delivered != 1 || rest.NextCursor != "" {
		t.Errorf("second call %+v; want the last one, no cursor", rest)
	}
	if got := len(recv.wakes()) - sent; got != 3 {
		t.Errorf("the receiver got %d redeliveries, want 3", got)
	}
	for _, a := range failed {
		if got := get(t, n, a.ID); got.Status != domain.StatusFailed {
			t.Errorf("alarm %s is %s after its redelivery; want it still failed", a.ID, got.Status)
		}
	}
	var ve *domain.ValidationError
	if _, err := n.Redeliveries().RedeliverFailed(t.Context(), "o", ports.ListFilter{}, domain.MaxRedeliverLimit+1); !errors.As(err, &ve) || ve.Field != "limit" {
		t.Errorf("limit over the maximum: %v", err)
	}
	if _, err := n.Redeliveries().RedeliverFailed(t.Context(), "o", ports.ListFilter{Status: "gone"}, 0); !errors.As(err, &ve) || ve.Field != "filter.status" {
		t.Errorf("unknown status: %v", err)
	}
}
