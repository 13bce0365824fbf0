package owners

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// endpointReads is the part of a store a create naming an endpoint touches, counting
// the endpoint reads; every other method panics (the embedded nil Store).
type endpointReads struct {
	ports.Store
	endpoints   map[[2]string]domain.Endpoint
	gets, lists int
}

func (s *endpointReads) Capabilities() ports.Capabilities { return ports.Capabilities{} }

func (s *endpointReads) GetEndpoint(_ context.Context, owner, name string) (domain.Endpoint, error) {
	s.gets++
	if e, ok := s.endpoints[[2]string{owner, name}]; ok {
		return e, nil
	}
	return domain.Endpoint{}, fmt.Errorf("fake: %w", ports.ErrNotFound)
}

func (s *endpointReads) ListEndpoints(_ context.Context, owner string) ([]domain.Endpoint, error) {
	s.lists++
	var out []domain.Endpoint
	for k, e := range s.endpoints {
		if k[0] == owner {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *endpointReads) CreateBatch(_ context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(as))
	for i, a := range as {
		out[i] = ports.CreateResult{Alarm: a}
	}
	return out, nil
}

// A create naming an endpoint its owner has goes through; one naming an endpoint the
// owner does not have (or another owner has) is a validation error on "endpoint". A
// batch reads each owner's endpoints once, whatever the number of items; a create or a
// batch naming no endpoint reads none.
func TestCreatesCheckTheEndpoint(t *testing.T) {
	ctx := t.Context()
	s := &endpointReads{endpoints: map[[2]string]domain.Endpoint{}}
	s.endpoints[[2]string{"alice", "billing"}] = domain.Endpoint{Owner: "alice", Name: "billing", URL: "https://hooks.example.com/billing"}
	s.endpoints[[2]string{"bob", "reports"}] = domain.Endpoint{Owner: "bob", Name: "reports", URL: "https://hooks.example.com/reports"}
	alarms := NewAlarms(s, newTestClock(), nil, AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 3}}, nil)
	spec := func(owner, endpoint string) domain.Spec {
		d := time.Hour
		return domain.Spec{Owner: owner, Kind: domain.KindOnce, Delay: &d, Endpoint: endpoint}
	}
	wantRefused := func(what string, err error, name string) {
		t.Helper()
		ve := (*domain.ValidationError)(nil)
		if !errors.As(err, &ve) || ve.Field != "endpoint" || !strings.Contains(ve.Message, `"`+name+`"`) || !strings.Contains(ve.Message, `"alice"`) {
			t.Errorf("%s: %v, want a validation error on endpoint naming %q and the owner", what, err, name)
		}
	}

	if a, _, err := alarms.Create(ctx, spec("alice", "billing")); err != nil || a.Endpoint != "billing" {
		t.Errorf("Create naming alice's endpoint: %+v, %v", a, err)
	}
	_, _, err := alarms.Create(ctx, spec("alice", "reports"))
	wantRefused("Create naming bob's endpoint as alice", err, "reports")
	gets := s.gets
	if _, _, err := alarms.Create(ctx, spec("alice", "")); err != nil || s.gets != gets || s.lists != 0 {
		t.Errorf("Create naming no endpoint: %v, %d endpoint reads; want none", err, s.gets-gets+s.lists)
	}

	rs, err := alarms.CreateBatch(ctx, []domain.Spec{
		spec("alice", "billing"), spec("alice", "nope"), spec("alice", ""), spec("alice", "billing"), spec("alice", "Bad Name"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.lists != 1 {
		t.Errorf("the batch read alice's endpoints %d times, want once", s.lists)
	}
	for _, i := range []int{0, 2, 3} {
		if rs[i].Err != nil {
			t.Errorf("batch item %d: %v, want created", i, rs[i].Err)
		}
	}
	wantRefused("batch item 1", rs[1].Err, "nope")
	if ve := (*domain.ValidationError)(nil); !errors.As(rs[4].Err, &ve) || ve.Field != "endpoint" {
		t.Errorf("batch item 4 (a name that is no name): %v, want a validation error on endpoint", rs[4].Err)
	}
	lists := s.lists
	if _, err := alarms.CreateBatch(ctx, []domain.Spec{spec("alice", ""), spec("bob", "")}); err != nil || s.lists != lists {
		t.Errorf("a batch naming no endpoint: %v, %d endpoint reads; want none", err, s.lists-lists)
	}
}
