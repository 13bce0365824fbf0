package domain

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestBusiestEndpoints(t *testing.T) {
	load := func(owner, name string, queued, inFlight int, heldBack int64) EndpointLoad {
		return EndpointLoad{Owner: owner, Name: name, Queued: queued, InFlight: inFlight, HeldBack: heldBack}
	}
	for _, c := range []struct {
		name  string
		in    []EndpointLoad
		limit int
		want  []EndpointLoad
	}{
		{"none", nil, 10, []EndpointLoad{}},
		{"most queued first", []EndpointLoad{load("a", "x", 1, 8, 0), load("a", "y", 5, 2, 0)}, 10,
			[]EndpointLoad{load("a", "y", 5, 2, 0), load("a", "x", 1, 8, 0)}},
		{"then most in flight", []EndpointLoad{load("a", "x", 0, 2, 9), load("a", "y", 0, 8, 0)}, 10,
			[]EndpointLoad{load("a", "y", 0, 8, 0), load("a", "x", 0, 2, 9)}},
		{"then most held back", []EndpointLoad{load("a", "x", 0, 4, 1), load("a", "y", 0, 4, 7)}, 10,
			[]EndpointLoad{load("a", "y", 0, 4, 7), load("a", "x", 0, 4, 1)}},
		{"equals by owner and name", []EndpointLoad{load("b", "a", 3, 3, 3), load("a", "z", 3, 3, 3), load("a", "b", 3, 3, 3)}, 10,
			[]EndpointLoad{load("a", "b", 3, 3, 3), load("a", "z", 3, 3, 3), load("b", "a", 3, 3, 3)}},
		{"at most limit", []EndpointLoad{load("a", "x", 1, 0, 0), load("a", "y", 3, 0, 0), load("a", "z", 2, 0, 0)}, 2,
			[]EndpointLoad{load("a", "y", 3, 0, 0), load("a", "z", 2, 0, 0)}},
		{"a limit of 0 keeps none", []EndpointLoad{load("a", "x", 1, 0, 0)}, 0, []EndpointLoad{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := BusiestEndpoints(c.in, c.limit)
			if len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
				t.Errorf("BusiestEndpoints(limit %d) = %+v, want %+v", c.limit, got, c.want)
			}
		})
	}
}

// Stats are stored as their JSON: the endpoints survive the round trip, and stats
// without any (a node routing to no endpoint, or one older than endpoints) read as none.
func TestWorkerStatsEndpointsJSON(t *testing.T) {
	st := WorkerStats{Delivered: 3, Endpoints: []EndpointLoad{{Owner: "shop", Name: "billing", Queued: 4, InFlight: 8, HeldBack: 12}}}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back WorkerStats
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, st) {
		t.Errorf("round trip of %s = %+v, %v", b, back, err)
	}
	if want := `"endpoints":[{"owner":"shop","name":"billing","queued":4,"in_flight":8,"held_back":12}]`; !strings.Contains(string(b), want) {
		t.Errorf("JSON %s, want it to hold %s", b, want)
	}
	b, _ = json.Marshal(WorkerStats{Delivered: 3})
	if strings.Contains(string(b), "endpoints") {
		t.Errorf("stats without endpoints: %s, want no endpoints member", b)
	}
}
