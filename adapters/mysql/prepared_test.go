package mysql

import (
	"errors"
	"fmt"
	"github.com/chronoshq/chronos/test/contract"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// With interpolateParams=false the driver sends arguments through the binary protocol
// (server-side prepared statements) instead of as literals. The contract suite runs on
// the default (interpolated); this walks every statement shape once the other way, so a
// store URL that turns interpolation off works too: the derived table of Apply's
// UPDATE-JOIN, COALESCE(?, UTC_TIMESTAMP(6)), binary payloads, NULL times, the admin
// list's binary LIKE pattern, ExtendLease's fenced UPDATE.
func TestPreparedStatementProtocol(t *testing.T) {
	u := newDatabaseWith(t, "interpolateParams", "false")
	if err := Migrate(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	if cc, err := parseURL(u); err != nil || cc.driver.InterpolateParams {
		t.Fatalf("parseURL(%q) = %+v, %v; want interpolateParams off", u, cc.driver, err)
	}
	s, err := Open(t.Context(), u, Options{Clock: fixedClock(testNow)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	prepared := func() int { return statusCounter(t, s.db, "SHOW GLOBAL STATUS LIKE 'Com_stmt_prepare'") }
	before := prepared()
	defer func() {
		if prepared() == before {
			t.Error("no statement was prepared: the binary protocol was not exercised")
		}
	}()

	keyed := newDueAlarm(t, "o", `{"k": [1, 2]}`)
	keyed.IdempotencyKey = "key"
	var ids []string
	for _, a := range []domain.Alarm{keyed, newDueAlarm(t, "o", `1`), newDueAlarm(t, "o", `"x"`)} {
		stored, deduped, err := contract.CreateOne(ctx, s, a)
		if err != nil || deduped {
			t.Fatalf("Create = %v, deduped %v", err, deduped)
		}
		ids = append(ids, stored.ID)
	}
	twin := newDueAlarm(t, "o", `{}`)
	twin.IdempotencyKey = "key"
	if got, deduped, err := contract.CreateOne(ctx, s, twin); err != nil || !deduped || got.ID != keyed.ID || string(got.Payload) != `{"k": [1, 2]}` {
		t.Fatalf("Create twin = %s %q deduped %v, %v; want the first alarm, deduped", got.ID, got.Payload, deduped, err)
	}

	claimed, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: 10})
	if err != nil || len(claimed.Alarms) != 3 {
		t.Fatalf("ClaimDue = %d alarms, %v", len(claimed.Alarms), err)
	}
	f, err := s.ExtendLease(ctx, ports.ExtendLease{AlarmID: claimed.Alarms[0].ID, Fence: claimed.Alarms[0].Fence(), Lease: time.Minute, For: 2 * time.Minute})
	if err != nil || !f.ClaimedAt.Equal(micro(testNow).Add(time.Minute)) {
		t.Fatalf("ExtendLease = %+v, %v; want the lease at now + 1m", f, err)
	}
	claimed.Alarms[0].ClaimedAt = f.ClaimedAt // fired below under the new fence
	now := testNow.Add(time.Second)
	fired := domain.Decide(domain.Begin(claimed.Alarms[0], now, domain.Policy{}), domain.Delivered(), now, domain.Policy{})
	retry := domain.Decide(domain.Begin(claimed.Alarms[1], now, domain.Policy{}), domain.DeliveryFailed("HTTP 503"), now, domain.Policy{})
	stale := domain.Decide(domain.Begin(claimed.Alarms[2], now, domain.Policy{}), domain.Delivered(), now, domain.Policy{})
	stale.Fence.ClaimedAt = stale.Fence.ClaimedAt.Add(time.Microsecond)
	res, err := s.Apply(ctx, []domain.Transition{fired, retry, stale})
	if err != nil || res.Applied != 2 || len(res.Stale) != 1 || res.Stale[0] != stale.AlarmID {
		t.Fatalf("Apply = %+v, %v; want 2 applied and %s stale", res, err, stale.AlarmID)
	}
	got, err := s.Get(ctx, ports.OwnedBy("o"), retry.AlarmID)
	if err != nil || got.Status != domain.StatusActive || got.FailureCount != 1 || got.LastError != "HTTP 503" ||
		got.Claimed() || !got.NextFireAt.Equal(micro(retry.NextFireAt)) || !got.LastFiredAt.IsZero() {
		t.Fatalf("after retry: %+v, %v", got, err)
	}

	cancelled, err := s.Mutate(ctx, ports.OwnedBy("o"), stale.AlarmID, func(a domain.Alarm, now time.Time) (domain.Transition, bool, error) {
		tr, changed := domain.Cancel(a, now)
		return tr, changed, nil
	})
	if err != nil || cancelled.Status != domain.StatusCancelled || cancelled.Claimed() {
		t.Fatalf("Mutate cancel = %+v, %v", cancelled, err)
	}
	evs, err := s.Events(ctx, ports.OwnedBy("o"), stale.AlarmID, 0)
	if err != nil || len(evs) != 2 || evs[0].Type != domain.EventCreated || evs[1].Type != domain.EventCancelled {
		t.Fatalf("Events = %+v, %v; want created, cancelled", evs, err)
	}
	page, cursor, err := s.List(ctx, ports.ListFilter{Scope: ports.OwnedBy("o"), Limit: 2})
	if err != nil || len(page) != 2 || cursor == "" {
		t.Fatalf("List = %d alarms, cursor %q, %v", len(page), cursor, err)
	}

	// The admin side: a label prefix with an escaped wildcard, failed_since, the counts,
	// a delete, named state.
	mustExec(t, s.db, "UPDATE alarms SET label = '50%_off' WHERE id = ?", keyed.ID)
	mustExec(t, s.db, "UPDATE alarms SET label = '50xoff' WHERE id <> ?", keyed.ID)
	page, _, err = s.List(ctx, ports.ListFilter{Scope: ports.AnyOwner, LabelPrefix: "50%", Kind: domain.KindOnce, Limit: 5})
	if err != nil || len(page) != 1 || page[0].ID != keyed.ID {
		t.Fatalf("AdminList(label prefix) = %d alarms, %v; want the one labelled 50%%_off", len(page), err)
	}
	if page, _, err = s.List(ctx, ports.ListFilter{Scope: ports.AnyOwner, FailedSince: testNow, Cursor: cursor}); err != nil {
		t.Fatalf("AdminList(failed since) = %v", err)
	}
	if got, err := s.Get(ctx, ports.AnyOwner, keyed.ID); err != nil || got.ID != keyed.ID {
		t.Fatalf("AdminGet = %v", err)
	}
	if evs, err := s.Events(ctx, ports.AnyOwner, stale.AlarmID, 1); err != nil || len(evs) != 1 {
		t.Fatalf("AdminEvents = %d, %v", len(evs), err)
	}
	if c, err := s.CountAlarms(ctx, time.Minute); err != nil || c.ByStatus[domain.StatusCancelled] != 1 {
		t.Fatalf("CountAlarms = %+v, %v", c, err)
	}
	if d, err := s.DeleteAlarms(ctx, []string{stale.AlarmID, "unknown"}); err != nil || d.Alarms != 1 || d.Events != 1 {
		t.Fatalf("DeleteAlarms = %+v, %v; want 1 alarm, 1 event (its created event is not stored)", d, err)
	}
	if err := s.PutState(ctx, "dispatch", `{"paused":true}`); err != nil {
		t.Fatal(err)
	}
	if st, ok, err := s.GetState(ctx, "dispatch"); err != nil || !ok || st.Value != `{"paused":true}` {
		t.Fatalf("GetState = %+v, %t, %v", st, ok, err)
	}

	if err := s.CreateToken(ctx, domain.Token{ID: "t1", Owner: "o", Scope: domain.ScopeAdminRead, Hash: "h1", CreatedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeToken(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if tok, err := s.TokenByHash(ctx, "h1"); err != nil || !tok.RevokedAt.Equal(micro(testNow)) || tok.Scope != domain.ScopeAdminRead {
		t.Fatalf("revoked token = %+v, %v", tok, err)
	}
	if err := s.RegisterWorker(ctx, domain.Worker{ID: "w", Host: "h", PID: 1, Version: "v1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Heartbeat(ctx, "w", domain.WorkerStats{Delivered: 1}); err != nil {
		t.Fatal(err)
	}
	if ws, err := s.ListWorkers(ctx); err != nil || len(ws) != 1 || ws[0].Version != "v1" || ws[0].Stats.Delivered != 1 {
		t.Fatalf("ListWorkers = %+v, %v", ws, err)
	}
}

// A server at its max_prepared_stmt_count refuses the prepare that database/sql makes
// on a transaction's connection at a cached statement's first use there; batchTx then
// sends the statement as text (the limit is server-wide and cannot be set here, so the
// refusal is built, with the server's error number).
func TestPrepareRefusedFallsBackToText(t *testing.T) {
	refused := fmt.Errorf("prepare: %w", &mysql.MySQLError{Number: 1461, Message: "Can't create more than max_prepared_stmt_count statements (current value: 16382)"})
	if !prepareRefused(refused) {
		t.Errorf("prepareRefused(%v) = false, want true", refused)
	}
	for _, err := range []error{nil, &mysql.MySQLError{Number: 1062}, errors.New("driver: bad connection")} {
		if prepareRefused(err) {
			t.Errorf("prepareRefused(%v) = true: only the prepared-statement limit may be retried as text", err)
		}
	}
}
