package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// OnDuplicate replace debounces: the repeat moves the key's alarm (Replaced), never past
// the first create plus MaxWait; batches say Replaced per item.
func TestClientCreateReplace(t *testing.T) {
	t.Parallel()
	s := newRealServer(t)
	ctx := t.Context()
	req := client.CreateAlarm{Delay: 10 * time.Minute, IdempotencyKey: "conv-7", OnDuplicate: domain.OnDuplicateReplace,
		MaxWait: 30 * time.Minute, Payload: []byte(`{"n":1}`)}
	first, err := s.alice.CreateAlarmResult(ctx, req)
	if err != nil || first.Deduped || first.Replaced {
		t.Fatalf("first create: %+v, %v", first, err)
	}
	req.Delay, req.Payload = time.Hour, []byte(`{"n":2}`)
	again, err := s.alice.CreateAlarmResult(ctx, req)
	if err != nil || !again.Replaced || again.Deduped || again.Alarm.ID != first.Alarm.ID || string(again.Alarm.Payload) != `{"n":2}` {
		t.Fatalf("repeat: %+v, %v; want %s replaced", again, err, first.Alarm.ID)
	}
	if got := again.Alarm.NextFireAt.Sub(first.Alarm.CreatedAt); got != 30*time.Minute {
		t.Errorf("fire time %s after the first create, want the max wait, 30m", got)
	}
	rs, err := s.alice.CreateAlarms(ctx, []client.CreateAlarm{req, {Delay: time.Minute, IdempotencyKey: "conv-7"}})
	if err != nil || len(rs) != 2 || !rs[0].Replaced || rs[1].Replaced || !rs[1].Deduped {
		t.Fatalf("batch: %+v, %v; want replaced, then deduped", rs, err)
	}
	var ce *client.Error
	if _, err := s.alice.CreateAlarmResult(ctx, client.CreateAlarm{CronExpr: "0 9 * * *", IdempotencyKey: "s",
		OnDuplicate: domain.OnDuplicateReplace}); !client.IsInvalid(err) || !errors.As(err, &ce) || ce.Field != "on_duplicate" {
		t.Errorf("replace on a series: %v, want invalid on_duplicate", err)
	}
}
