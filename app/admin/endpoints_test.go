package admin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// endpointStore is the part of a store the endpoint use cases and the creates touch,
// counting the endpoint reads; every other method panics (the embedded nil Store).
type endpointStore struct {
	ports.Store
	endpoints   map[[2]string]domain.Endpoint
	states      []string // every value put under EndpointsStateName, in order
	gets, lists int
	updates     int
	failState   error
	now         time.Time
	fpKey       string // the value under SecretFingerprintKeyName
}

func (s *endpointStore) GetState(_ context.Context, name string) (ports.State, bool, error) {
	if name != SecretFingerprintKeyName {
		return ports.State{}, false, fmt.Errorf("GetState(%q)", name)
	}
	return ports.State{Value: s.fpKey}, s.fpKey != "", nil
}

func newEndpointStore() *endpointStore {
	return &endpointStore{endpoints: map[[2]string]domain.Endpoint{}, now: time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (s *endpointStore) Capabilities() ports.Capabilities { return ports.Capabilities{} }

func (s *endpointStore) CreateEndpoint(_ context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	if _, ok := s.endpoints[[2]string{e.Owner, e.Name}]; ok {
		return domain.Endpoint{}, ports.ErrConflict
	}
	e.CreatedAt, e.UpdatedAt = s.now, s.now
	s.endpoints[[2]string{e.Owner, e.Name}] = e
	return e, nil
}

func (s *endpointStore) GetEndpoint(_ context.Context, owner, name string) (domain.Endpoint, error) {
	s.gets++
	if e, ok := s.endpoints[[2]string{owner, name}]; ok {
		return e, nil
	}
	return domain.Endpoint{}, fmt.Errorf("fake: %w", ports.ErrNotFound)
}

func (s *endpointStore) ListEndpoints(_ context.Context, owner string) ([]domain.Endpoint, error) {
	s.lists++
	out := []domain.Endpoint{}
	for k, e := range s.endpoints {
		if k[0] == owner || owner == "" {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *endpointStore) UpdateEndpoint(_ context.Context, e domain.Endpoint) (domain.Endpoint, error) {
	old, ok := s.endpoints[[2]string{e.Owner, e.Name}]
	if !ok {
		return domain.Endpoint{}, ports.ErrNotFound
	}
	s.updates++
	e.CreatedAt, e.UpdatedAt = old.CreatedAt, s.now.Add(time.Minute)
	s.endpoints[[2]string{e.Owner, e.Name}] = e
	return e, nil
}

func (s *endpointStore) DeleteEndpoint(_ context.Context, owner, name string) error {
	if _, ok := s.endpoints[[2]string{owner, name}]; !ok {
		return ports.ErrNotFound
	}
	delete(s.endpoints, [2]string{owner, name})
	return nil
}

func (s *endpointStore) PutState(_ context.Context, name, value string) error {
	if name == SecretFingerprintKeyName {
		s.fpKey = value
		return nil
	}
	if name != app.EndpointsStateName {
		return fmt.Errorf("PutState(%q)", name)
	}
	if s.failState != nil {
		return s.failState
	}
	s.states = append(s.states, value)
	return nil
}

func (s *endpointStore) CreateBatch(_ context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	for i, a := range as {
		out[i] = ports.CreateResult{Alarm: a}
	}
	return out, nil
}

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

func billing(owner string) domain.Endpoint {
	return domain.Endpoint{Owner: owner, Name: "billing", URL: "https://hooks.example.com/billing", Secrets: []string{secret1}}
}

// Secrets of the 24 bytes a new one needs at least.
const (
	secret1 = "secret-one-of-24-bytes-!"
	secret2 = "secret-two-of-24-bytes-!"
)

// Every change writes a new value under EndpointsStateName, so a node that cached the
// endpoints reads them again; reads write nothing. The timeout is kept to the
// millisecond, rounded.
func TestEndpointsChangesBumpTheState(t *testing.T) {
	ctx := t.Context()
	s := newEndpointStore()
	eps := NewEndpoints(s, fixedClock(s.now), nil)
	e := billing("alice")
	e.Timeout = 1500*time.Millisecond + 600*time.Microsecond
	created, err := eps.Create(ctx, e, "tok_admin")
	if err != nil || created.Timeout != 1501*time.Millisecond {
		t.Fatalf("Create = %+v, %v; want the timeout rounded to 1.501s", created, err)
	}
	if _, err := eps.Get(ctx, "alice", "billing"); err != nil {
		t.Fatal(err)
	}
	if _, err := eps.List(ctx, ""); err != nil {
		t.Fatal(err)
	}
	url := "https://hooks.example.com/other"
	if _, err := eps.Update(ctx, "alice", "billing", domain.EndpointPatch{URL: &url}, "tok_admin"); err != nil {
		t.Fatal(err)
	}
	if err := eps.Delete(ctx, "alice", "billing", "tok_admin"); err != nil {
		t.Fatal(err)
	}
	if len(s.states) != 3 {
		t.Fatalf("state written %d times (%q), want 3: create, update, delete", len(s.states), s.states)
	}
	seen := map[string]bool{}
	for _, v := range s.states {
		if seen[v] {
			t.Errorf("two changes wrote the same value %s: a node could miss the second", v)
		}
		seen[v] = true
	}

	// A change the nodes were not told of is an error that says the change was made.
	s.failState = errors.New("store down")
	_, err = eps.Create(ctx, billing("bob"), "tok_admin")
	if err == nil || !errors.Is(err, s.failState) {
		t.Errorf("Create with the state unwritable: %v, want the store's error", err)
	}
}

// Update changes only the fields the patch gives, validates the result as Create does
// (naming the field), and writes nothing when nothing changes; unknown is ErrNotFound.
func TestEndpointsUpdate(t *testing.T) {
	ctx := t.Context()
	s := newEndpointStore()
	eps := NewEndpoints(s, fixedClock(s.now), nil)
	e := billing("alice")
	e.MaxInFlight, e.FailureURL = 7, "https://hooks.example.com/failed"
	if _, err := eps.Create(ctx, e, "tok"); err != nil {
		t.Fatal(err)
	}
	rate := 2.5
	got, err := eps.Update(ctx, "alice", "billing", domain.EndpointPatch{RatePerSecond: &rate, Secrets: []string{secret2, secret1}}, "tok")
	if err != nil {
		t.Fatal(err)
	}
	if got.RatePerSecond != 2.5 || len(got.Secrets) != 2 || got.MaxInFlight != 7 || got.FailureURL != e.FailureURL || got.URL != e.URL ||
		!got.CreatedAt.Equal(s.now) {
		t.Errorf("Update = %+v; want rate and secrets changed, the rest kept", got)
	}
	states, updates := len(s.states), s.updates
	if _, err := eps.Update(ctx, "alice", "billing", domain.EndpointPatch{RatePerSecond: &rate}, "tok"); err != nil {
		t.Fatal(err)
	}
	if s.updates != updates || len(s.states) != states {
		t.Error("a patch that changes nothing wrote")
	}
	bad := "ftp://example.com"
	_, err = eps.Update(ctx, "alice", "billing", domain.EndpointPatch{URL: &bad}, "tok")
	if ve := (*domain.ValidationError)(nil); !errors.As(err, &ve) || ve.Field != "url" {
		t.Errorf("Update to an ftp URL: %v, want a validation error on url", err)
	}
	if _, err := eps.Update(ctx, "alice", "nope", domain.EndpointPatch{RatePerSecond: &rate}, "tok"); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("Update of an unknown endpoint: %v, want ErrNotFound", err)
	}
}

// An owner no token could have is refused before the store sees it.
func TestEndpointsRefuseImpossibleOwners(t *testing.T) {
	s := newEndpointStore()
	eps := NewEndpoints(s, fixedClock(s.now), nil)
	for _, owner := range []string{"", "a\x00b", string(make([]byte, 201)), "\xff"} {
		_, err := eps.Create(t.Context(), billing(owner), "tok")
		if ve := (*domain.ValidationError)(nil); !errors.As(err, &ve) || ve.Field != "owner" {
			t.Errorf("owner %q: %v, want a validation error on owner", owner, err)
		}
	}
	if len(s.endpoints) != 0 {
		t.Error("an endpoint of an impossible owner was stored")
	}
}

// An endpoint registered without secrets gets one the server made (whsec_, 32 bytes);
// a new secret shorter than 24 bytes is refused naming secrets, while one stored before
// the rule is kept through a patch. Fingerprints are stable per secret, differ between
// secrets, and are not the secret's SHA-256: their key is the cluster's, made once.
func TestEndpointSecrets(t *testing.T) {
	ctx := t.Context()
	s := newEndpointStore()
	eps := NewEndpoints(s, fixedClock(s.now), nil)
	e := billing("alice")
	e.Secrets = nil
	made, err := eps.Create(ctx, e, "tok")
	if err != nil {
		t.Fatal(err)
	}
	if len(made.Secrets) != 1 || !strings.HasPrefix(made.Secrets[0], "whsec_") || len(made.Secrets[0]) != len("whsec_")+44 {
		t.Errorf("made secrets %q, want one whsec_ of 32 bytes", made.Secrets)
	}
	if again, _ := eps.Create(ctx, func() domain.Endpoint { x := billing("bob"); x.Secrets = nil; return x }(), "tok"); again.Secrets[0] == made.Secrets[0] {
		t.Error("two made secrets are the same")
	}
	e = billing("carol")
	e.Secrets = []string{"too-short"}
	if _, err := eps.Create(ctx, e, "tok"); !isFieldErr(err, "secrets") {
		t.Errorf("a short secret: %v, want a refusal naming secrets", err)
	}

	// An endpoint stored before the rule, with a short secret.
	old := billing("dave")
	old.Secrets = []string{"short"}
	s.endpoints[[2]string{"dave", "billing"}] = old
	n := 3
	if _, err := eps.Update(ctx, "dave", "billing", domain.EndpointPatch{MaxInFlight: &n, Secrets: []string{secret1, "short"}}, "tok"); err != nil {
		t.Errorf("a patch keeping an old short secret: %v", err)
	}

	f1, err := eps.Fingerprint(ctx, secret1)
	if err != nil {
		t.Fatal(err)
	}
	f1again, _ := NewEndpoints(s, fixedClock(s.now), nil).Fingerprint(ctx, secret1) // another node
	f2, _ := eps.Fingerprint(ctx, secret2)
	sum := sha256.Sum256([]byte(secret1))
	if f1 != f1again || f1 == f2 || len(f1) != 16 || strings.HasPrefix(hex.EncodeToString(sum[:]), f1) {
		t.Errorf("fingerprints %q, %q (another node), %q (another secret)", f1, f1again, f2)
	}
	if s.fpKey == "" {
		t.Error("the fingerprint key is not the cluster's")
	}
}

func isFieldErr(err error, field string) bool {
	var ve *domain.ValidationError
	return errors.As(err, &ve) && ve.Field == field
}
