package domain

import (
	"reflect"
	"testing"
	"time"
)

// A patch changes only the fields it gives; secrets given replace the list, and the
// patched endpoint shares no slice with the patch.
func TestEndpointPatch(t *testing.T) {
	e := Endpoint{Owner: "alice", Name: "billing", URL: "https://a.example.com", Secrets: []string{"one", "two"},
		Timeout: time.Second, MaxInFlight: 4, RatePerSecond: 2, FailureURL: "https://f.example.com"}
	if !(EndpointPatch{}).IsZero() || !reflect.DeepEqual(EndpointPatch{}.ApplyTo(e), e) {
		t.Error("the empty patch is not zero, or changed the endpoint")
	}
	url, none, rate := "https://b.example.com", "", 0.5
	p := EndpointPatch{URL: &url, Secrets: []string{"three"}, FailureURL: &none, RatePerSecond: &rate}
	got := p.ApplyTo(e)
	want := e
	want.URL, want.Secrets, want.FailureURL, want.RatePerSecond = url, []string{"three"}, "", 0.5
	if p.IsZero() || !reflect.DeepEqual(got, want) {
		t.Errorf("ApplyTo = %+v, want %+v", got, want)
	}
	p.Secrets[0] = "changed later"
	if got.Secrets[0] != "three" {
		t.Error("the patched endpoint shares its secrets with the patch")
	}
	timeout, inFlight := time.Duration(0), 0
	got = EndpointPatch{Timeout: &timeout, MaxInFlight: &inFlight}.ApplyTo(e)
	if got.Timeout != 0 || got.MaxInFlight != 0 || got.URL != e.URL {
		t.Errorf("zeros given are not written: %+v", got)
	}
}
