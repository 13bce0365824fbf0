package admin

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Endpoints is the admin's side of endpoints: register, read, change and delete an
// owner's delivery targets. Only admin tokens reach it (the owner's own list is
// List(owner)); every change names the token that made it (by) in the log.
type Endpoints struct {
	store  EndpointStore
	clock  ports.Clock
	log    *zap.Logger
	egress domain.EgressPolicy

	mu    sync.Mutex
	fpKey []byte // the secrets' fingerprint key, once loaded (secret_fingerprint.go)
}

// EndpointStore is what Endpoints calls: the endpoints, and the state values that
// keep the secrets' fingerprint key and tell every node's router that endpoints changed.
type EndpointStore interface {
	ports.EndpointStore
	ports.StateStore
}

// NewEndpoints builds the endpoint use cases.
func NewEndpoints(store EndpointStore, clock ports.Clock, log *zap.Logger) *Endpoints {
	if log == nil {
		log = zap.NewNop()
	}
	return &Endpoints{store: store, clock: clock, log: log}
}

// WithEgress makes writes refuse a url or failure_url written as an address the
// node's egress policy refuses (domain.EgressPolicy.CheckURL); the node refuses to
// connect there anyway, and says so at once. Without it the zero policy applies: every
// loopback, private, link-local and other internal address is refused.
func (s *Endpoints) WithEgress(p domain.EgressPolicy) *Endpoints {
	s.egress = p
	return s
}

// changedTimeout bounds telling the nodes of a change (a write of one small row).
const changedTimeout = 10 * time.Second

// maxOwnerLen is the longest owner a token may have (Tokens.Create), so the longest
// that can own an endpoint.
const maxOwnerLen = 200

// Create registers e for its owner; ErrConflict when the owner has one of that name.
// An endpoint given no secret gets one made here (NewEndpointSecret), returned in the
// result's Secrets: the caller shows it this once, since no view ever shows it again.
func (s *Endpoints) Create(ctx context.Context, e domain.Endpoint, by string) (domain.Endpoint, error) {
	e = endpointAsStored(e)
	if len(e.Secrets) == 0 {
		e.Secrets = []string{NewEndpointSecret()}
	}
	if err := s.validate(e, nil); err != nil {
		return domain.Endpoint{}, err
	}
	stored, err := s.store.CreateEndpoint(ctx, e)
	if err != nil {
		return domain.Endpoint{}, err
	}
	return stored, s.changed(ctx, stored.Owner, stored.Name, "created", by)
}

// Get returns the owner's endpoint; ErrNotFound when there is none.
func (s *Endpoints) Get(ctx context.Context, owner, name string) (domain.Endpoint, error) {
	return s.store.GetEndpoint(ctx, owner, name)
}

// List returns the owner's endpoints by name, or every owner's (by owner, then name)
// when owner is "".
func (s *Endpoints) List(ctx context.Context, owner string) ([]domain.Endpoint, error) {
	return s.store.ListEndpoints(ctx, owner)
}

// Update changes the fields p gives of the owner's endpoint and validates the result as
// Create does; ErrNotFound when there is none. A patch that changes nothing writes
// nothing. The endpoint is read, patched and written whole: of two patches of one
// endpoint at once, the later write wins, and a field only the earlier one gave may be
// lost (admins change endpoints one at a time; the port has no conditional write).
func (s *Endpoints) Update(ctx context.Context, owner, name string, p domain.EndpointPatch, by string) (domain.Endpoint, error) {
	old, err := s.store.GetEndpoint(ctx, owner, name)
	if err != nil {
		return domain.Endpoint{}, err
	}
	e := endpointAsStored(p.ApplyTo(old))
	if err := s.validate(e, &old); err != nil {
		return domain.Endpoint{}, err
	}
	if sameEndpoint(e, old) {
		return old, nil
	}
	stored, err := s.store.UpdateEndpoint(ctx, e)
	if err != nil {
		return domain.Endpoint{}, err
	}
	return stored, s.changed(ctx, owner, name, "updated", by)
}

// Delete removes the owner's endpoint; ErrNotFound when there is none. Alarms naming it
// keep the name, and their wakes fail until an endpoint of that name exists again.
func (s *Endpoints) Delete(ctx context.Context, owner, name, by string) error {
	if err := s.store.DeleteEndpoint(ctx, owner, name); err != nil {
		return err
	}
	return s.changed(ctx, owner, name, "deleted", by)
}

// changed tells every node that the endpoints changed, and logs who changed what. The
// change itself is stored already: a failure here is returned, saying so, because
// until the next change the nodes would keep delivering with what they cached. For the
// same reason a caller that gives up now (its context ends) does not stop the telling.
func (s *Endpoints) changed(ctx context.Context, owner, name, action, by string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), changedTimeout)
	defer cancel()
	var v [8]byte
	_, _ = rand.Read(v[:]) // never fails (crypto/rand)
	c := app.EndpointsChange{Version: hex.EncodeToString(v[:]), At: s.clock.Now().UTC(), Owner: owner, Name: name,
		Action: action, By: by}
	b, err := json.Marshal(c)
	if err == nil {
		err = s.store.PutState(ctx, app.EndpointsStateName, string(b))
	}
	if err != nil {
		s.log.Error("endpoint "+action+", but telling the nodes failed: they deliver with what they cached until the next change",
			zap.String("owner", owner), zap.String("endpoint", name), zapToken(by), zap.Error(err))
		return fmt.Errorf("app: endpoint %q of owner %q %s, but telling the nodes failed: %w", name, owner, action, err)
	}
	s.log.Info("admin "+action+" endpoint", zap.String("owner", owner), zap.String("endpoint", name), zapToken(by))
	return nil
}

// endpointAsStored brings e to what is stored: the timeout in whole milliseconds (the stores
// keep no finer, ports.EndpointStore), rounded rather than cut so 0.1005s is 101ms.
func endpointAsStored(e domain.Endpoint) domain.Endpoint {
	e.Timeout = e.Timeout.Round(time.Millisecond)
	return e
}

// validate is domain.ValidateEndpointWrite, an owner a token could have (the stores key
// on it: PostgreSQL text refuses NUL, MySQL's key is 255 bytes), and the egress policy
// on a url or failure_url given now; one kept from before passes as it is, as
// ValidateEndpointWrite lets it.
func (s *Endpoints) validate(e domain.Endpoint, before *domain.Endpoint) error {
	if o := e.Owner; o != "" && (len(o) > maxOwnerLen || !utf8.ValidString(o) || strings.ContainsRune(o, 0)) {
		return &domain.ValidationError{Field: "owner", Message: fmt.Sprintf("must be valid UTF-8 without NUL, at most %d bytes", maxOwnerLen)}
	}
	if err := domain.ValidateEndpointWrite(e, before); err != nil {
		return err
	}
	var was domain.Endpoint
	if before != nil {
		was = *before
	}
	if e.URL != was.URL {
		if err := s.egress.CheckURL("url", e.URL); err != nil {
			return err
		}
	}
	if e.FailureURL != was.FailureURL {
		return s.egress.CheckURL("failure_url", e.FailureURL)
	}
	return nil
}

// NewEndpointSecret makes a secret for an endpoint registered without one: 32 random
// bytes in the Standard Webhooks form, "whsec_" and base64, which that spec's libraries
// take as they are.
func NewEndpointSecret() string {
	var k [32]byte
	_, _ = rand.Read(k[:]) // never fails (crypto/rand)
	return "whsec_" + base64.StdEncoding.EncodeToString(k[:])
}

// sameEndpoint reports whether a and b hold the same values (the stamps aside).
func sameEndpoint(a, b domain.Endpoint) bool {
	return a.Owner == b.Owner && a.Name == b.Name && a.URL == b.URL && slices.Equal(a.Secrets, b.Secrets) &&
		a.Timeout == b.Timeout && a.MaxInFlight == b.MaxInFlight && a.RatePerSecond == b.RatePerSecond &&
		a.FailureURL == b.FailureURL
}
