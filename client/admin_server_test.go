package client_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/testserver"
	"github.com/chronoshq/chronos/ports"
)

// The admin side of the client against the real /admin/v1 routes: every method, the
// redacted view, and the scope errors as *client.Error.
func TestClientAdminAgainstTheRealServer(t *testing.T) {
	s := newRealServer(t)
	ctx := t.Context()
	secret := json.RawMessage(`{"token":"s3cr3t"}`)
	kept, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour, Label: "keep", Payload: secret})
	if err != nil {
		t.Fatal(err)
	}
	failing, _, err := s.bob.CreateAlarm(ctx, client.CreateAlarm{Label: "flaky", MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Fail bob's alarm as a dispatcher would.
	c, err := s.store.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: 10})
	if err != nil || len(c.Alarms) != 1 {
		t.Fatalf("claim: %v %d", err, len(c.Alarms))
	}
	tr := domain.Decide(domain.Begin(c.Alarms[0], c.Now, domain.Policy{}), domain.DeliveryFailed("HTTP 500"), c.Now, domain.Policy{Backoff: domain.DefaultBackoff})
	if _, err := s.store.Apply(ctx, []domain.Transition{tr}); err != nil {
		t.Fatal(err)
	}

	adm, read := s.ops.Admin(), s.reader.Admin()
	o, err := read.Overview(ctx)
	if err != nil || o.Total != 2 || o.Counts[domain.StatusFailed] != 1 {
		t.Errorf("Overview = %+v, %v; want 2 alarms, 1 failed", o, err)
	}
	page, err := read.Alarms(ctx, client.AdminListAlarms{Status: domain.StatusFailed})
	if err != nil || len(page.Alarms) != 1 || page.Alarms[0].ID != failing.ID || page.Alarms[0].Owner != "bob" {
		t.Errorf("Alarms(failed) = %+v, %v", page, err)
	}
	a, err := read.Alarm(ctx, kept.ID)
	if err != nil || !a.Redacted || string(a.Payload) != "null" || a.PayloadSize != len(secret) || a.Owner != "alice" {
		t.Errorf("Alarm = %+v, %v; want alice's, redacted, %d payload bytes", a, err, len(secret))
	}
	if a, err = adm.Retry(ctx, failing.ID); err != nil || a.Status != domain.StatusActive {
		t.Errorf("Retry = %s, %v", a.Status, err)
	}
	if _, err = adm.Retry(ctx, failing.ID); !client.IsInvalidState(err) {
		t.Errorf("retrying an active alarm: %v, want invalid_state", err)
	}
	evs, err := read.Events(ctx, failing.ID, 0)
	if err != nil || len(evs) != 3 || evs[2].Type != domain.EventRetried {
		t.Errorf("Events = %+v, %v; want created, failed, retried", evs, err)
	}
	if a, err = adm.Cancel(ctx, failing.ID); err != nil || a.Status != domain.StatusCancelled {
		t.Errorf("Cancel = %s, %v", a.Status, err)
	}
	if d, err := adm.Delete(ctx, failing.ID); err != nil || d.Alarms != 1 || d.Events != 3 {
		t.Errorf("Delete = %+v, %v; want 1 alarm and its 3 stored events (failed, retried, cancelled; created is not stored)", d, err)
	}
	if _, err := read.Alarm(ctx, failing.ID); !client.IsNotFound(err) {
		t.Errorf("a deleted alarm: %v, want not_found", err)
	}
	if r, err := adm.BulkCancel(ctx, client.BulkFilter{Owner: "alice"}); err != nil || r.Matched != 1 || r.Changed != 1 || r.More {
		t.Errorf("BulkCancel = %+v, %v", r, err)
	}
	if r, err := adm.BulkDelete(ctx, client.BulkFilter{LabelPrefix: "keep"}); err != nil || r.Changed != 1 {
		t.Errorf("BulkDelete = %+v, %v", r, err)
	}
	if _, err := adm.BulkRetry(ctx, client.BulkFilter{}); !client.IsInvalid(err) {
		t.Errorf("a bulk call without a filter: %v, want a 400", err)
	}
	if d, err := adm.PauseDispatch(ctx); err != nil || !d.Paused {
		t.Errorf("PauseDispatch = %+v, %v", d, err)
	}
	if d, err := read.Dispatch(ctx); err != nil || !d.Paused {
		t.Errorf("Dispatch = %+v, %v", d, err)
	}
	if d, err := adm.ResumeDispatch(ctx); err != nil || d.Paused {
		t.Errorf("ResumeDispatch = %+v, %v", d, err)
	}
	if ws, err := read.Workers(ctx); err != nil || len(ws) != 0 {
		t.Errorf("Workers = %+v, %v; want none registered", ws, err)
	}
	if r, err := read.Retention(ctx); err != nil || !r.Enabled {
		t.Errorf("Retention = %+v, %v", r, err)
	}
	if run, err := adm.RunRetention(ctx); err != nil || run.Node != "client-test" {
		t.Errorf("RunRetention = %+v, %v", run, err)
	}
	if _, err := adm.Backup(ctx); !client.IsUnsupported(err) {
		t.Errorf("Backup on a node without --backup-dir: %v, want unsupported", err)
	}

	// Scopes: read-only cannot change, an owner cannot read.
	var e *client.Error
	if _, err := read.PauseDispatch(ctx); !client.IsForbidden(err) || !errors.As(err, &e) || e.StatusCode != 403 {
		t.Errorf("read-only pause: %v, want a 403 *client.Error", err)
	}
	if _, err := s.alice.Admin().Overview(ctx); !client.IsForbidden(err) {
		t.Errorf("owner overview: %v, want forbidden", err)
	}
}

// Backup on a node with --backup-dir: the copy is there, under the name the node gave.
func TestClientAdminBackup(t *testing.T) {
	dir := t.TempDir()
	s := testserver.New(t, testserver.Options{BackupDir: dir})
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, s.Token(t, "ops", domain.ScopeAdmin), client.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Admin().Backup(t.Context())
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, b.File))
	if err != nil || fi.Size() != b.Bytes || b.At.IsZero() || b.Took < 0 {
		t.Errorf("Backup = %+v; the file: %v", b, err)
	}
}
