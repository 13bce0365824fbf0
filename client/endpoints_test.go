package client_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/client"
)

// The endpoint methods against the real routes: an admin registers, reads, lists,
// changes and deletes; the secrets come back as digests only; the owner lists its own
// and names one in an alarm; the scope and field errors are *client.Error.
func TestClientEndpointsAgainstTheRealServer(t *testing.T) {
	s := newRealServer(t)
	ctx := t.Context()
	adm, read := s.ops.Admin(), s.reader.Admin()
	digest := func(secret string) client.SecretDigest {
		fp, err := admin.NewEndpoints(s.store, nil, nil).Fingerprint(ctx, secret) // the server's key, from its store
		if err != nil {
			t.Fatal(err)
		}
		return client.SecretDigest{Size: len(secret), Fingerprint: fp}
	}
	const (
		one   = "whsec_c2VjcmV0LW9mLTI0LWJ5dGVzLWF0LWxlYXN0" // "secret-of-24-bytes-at-least"
		two   = "two-secret-of-24-bytes-at-least"
		three = "three-secret-of-24-bytes-at-least"
		other = "other-secret-of-24-bytes-at-least"
	)

	created, err := adm.CreateEndpoint(ctx, "alice", client.CreateEndpoint{Name: "billing", URL: "https://hooks.example.com/b",
		Secrets: []string{one, two}, Timeout: 1500 * time.Millisecond, MaxInFlight: 4, RatePerSecond: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := client.AdminEndpoint{Endpoint: client.Endpoint{Name: "billing", URL: "https://hooks.example.com/b",
		Timeout: 1500 * time.Millisecond, MaxInFlight: 4, RatePerSecond: 0.5}, Owner: "alice",
		Secrets: []client.SecretDigest{digest(one), digest(two)}, CreatedAt: created.CreatedAt, UpdatedAt: created.UpdatedAt}
	if !reflect.DeepEqual(created, want) || created.CreatedAt.IsZero() {
		t.Errorf("CreateEndpoint = %+v, want %+v", created, want)
	}
	if _, err := adm.CreateEndpoint(ctx, "alice", client.CreateEndpoint{Name: "billing", URL: "https://x.example.com", Secrets: []string{other}}); !client.IsConflict(err) {
		t.Errorf("a second billing: %v, want a conflict", err)
	}
	_, err = adm.CreateEndpoint(ctx, "alice", client.CreateEndpoint{Name: "x", URL: "ftp://x.example.com", Secrets: []string{other}})
	if e, ok := err.(*client.Error); !ok || !client.IsInvalid(err) || e.Field != "url" {
		t.Errorf("an ftp URL: %v, want invalid on url", err)
	}
	if _, err := s.alice.Admin().CreateEndpoint(ctx, "alice", client.CreateEndpoint{Name: "mine", URL: "https://x.example.com", Secrets: []string{other}}); !client.IsForbidden(err) {
		t.Errorf("an owner token registering: %v, want forbidden", err)
	}
	if got, err := read.GetEndpoint(ctx, "alice", "billing"); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("GetEndpoint = %+v, %v", got, err)
	}
	if _, err := adm.CreateEndpoint(ctx, "bob", client.CreateEndpoint{Name: "alerts", URL: "http://bob.example.com", Secrets: []string{other}}); err != nil {
		t.Fatal(err)
	}
	all, err := read.ListEndpoints(ctx, "")
	if err != nil || len(all) != 2 || all[0].Owner != "alice" || all[1].Owner != "bob" {
		t.Errorf("ListEndpoints(every owner) = %+v, %v", all, err)
	}
	if mine, err := read.ListEndpoints(ctx, "alice"); err != nil || len(mine) != 1 || mine[0].Name != "billing" {
		t.Errorf("ListEndpoints(alice) = %+v, %v", mine, err)
	}

	url, zero := "https://hooks.example.com/v2", time.Duration(0)
	updated, err := adm.UpdateEndpoint(ctx, "alice", "billing", client.UpdateEndpoint{URL: &url, Timeout: &zero, Secrets: []string{three}})
	if err != nil || updated.URL != url || updated.Timeout != 0 || updated.MaxInFlight != 4 ||
		!reflect.DeepEqual(updated.Secrets, []client.SecretDigest{digest(three)}) {
		t.Errorf("UpdateEndpoint = %+v, %v; want the URL, timeout and secrets changed, the rest kept", updated, err)
	}
	if _, err := adm.UpdateEndpoint(ctx, "alice", "billing", client.UpdateEndpoint{Secrets: []string{}}); err == nil {
		t.Error("UpdateEndpoint with no secrets: no error")
	}
	if _, err := read.UpdateEndpoint(ctx, "alice", "billing", client.UpdateEndpoint{URL: &url}); !client.IsForbidden(err) {
		t.Errorf("an admin:read token changing: %v, want forbidden", err)
	}

	own, err := s.alice.ListMyEndpoints(ctx)
	if wantOwn := []client.Endpoint{updated.Endpoint}; err != nil || !reflect.DeepEqual(own, wantOwn) {
		t.Errorf("ListMyEndpoints = %+v, %v; want %+v", own, err, wantOwn)
	}
	a, _, err := s.alice.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour, Endpoint: "billing"})
	if err != nil || a.Endpoint != "billing" {
		t.Errorf("an alarm naming billing: %+v, %v", a, err)
	}
	_, _, err = s.bob.CreateAlarm(ctx, client.CreateAlarm{Delay: time.Hour, Endpoint: "billing"})
	if e, ok := err.(*client.Error); !ok || e.Field != "endpoint" {
		t.Errorf("bob naming alice's endpoint: %v, want invalid on endpoint", err)
	}

	if err := adm.DeleteEndpoint(ctx, "alice", "billing"); err != nil {
		t.Fatal(err)
	}
	if _, err := read.GetEndpoint(ctx, "alice", "billing"); !client.IsNotFound(err) {
		t.Errorf("a deleted endpoint: %v, want not_found", err)
	}
	if err := adm.DeleteEndpoint(ctx, "alice", "billing"); !client.IsNotFound(err) {
		t.Errorf("deleting it again: %v, want not_found", err)
	}
	if _, err := adm.GetEndpoint(ctx, "", "billing"); err == nil {
		t.Error("GetEndpoint without an owner: no error")
	}
}
