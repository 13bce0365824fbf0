package ports

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Each field of a ListFilter narrows what it selects; the zero ones do not filter, and
// the label prefix is literal and byte-wise.
func TestListFilterMatches(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	a := domain.Alarm{Owner: "alice", Status: domain.StatusFailed, Kind: domain.KindOnce, Label: "billing:%_x",
		UpdatedAt: at, Tags: map[string]string{"team": "pay", "env": "prod"}}
	for _, tc := range []struct {
		name string
		f    ListFilter
		want bool
	}{
		{"zero scope", ListFilter{}, false},
		{"another owner", ListFilter{Scope: OwnedBy("bob")}, false},
		{"owner", ListFilter{Scope: OwnedBy("alice")}, true},
		{"any owner", ListFilter{Scope: AnyOwner}, true},
		{"status", ListFilter{Scope: AnyOwner, Status: domain.StatusFailed}, true},
		{"other status", ListFilter{Scope: AnyOwner, Status: domain.StatusActive}, false},
		{"kind", ListFilter{Scope: AnyOwner, Kind: domain.KindOnce}, true},
		{"other kind", ListFilter{Scope: AnyOwner, Kind: domain.KindCron}, false},
		{"label prefix", ListFilter{Scope: AnyOwner, LabelPrefix: "billing:%_"}, true},
		{"label prefix is no pattern", ListFilter{Scope: AnyOwner, LabelPrefix: "billing:%%"}, false},
		{"label prefix is case-sensitive", ListFilter{Scope: AnyOwner, LabelPrefix: "Billing"}, false},
		{"tags", ListFilter{Scope: AnyOwner, Tags: []domain.TagFilter{{Key: "team", Value: "pay"}, {Key: "env", Value: "prod"}}}, true},
		{"a tag it lacks", ListFilter{Scope: AnyOwner, Tags: []domain.TagFilter{{Key: "team", Value: "pay"}, {Key: "env", Value: "dev"}}}, false},
		{"failed at the instant", ListFilter{Scope: AnyOwner, FailedSince: at}, true},
		{"failed before", ListFilter{Scope: AnyOwner, FailedSince: at.Add(time.Nanosecond)}, false},
		{"failed since, another status", ListFilter{Scope: AnyOwner, FailedSince: at, Status: domain.StatusActive}, false},
	} {
		if got := tc.f.Matches(a); got != tc.want {
			t.Errorf("%s: Matches = %t, want %t", tc.name, got, tc.want)
		}
	}
	active := a
	active.Status = domain.StatusActive
	if (ListFilter{Scope: AnyOwner, FailedSince: at.Add(-time.Hour)}).Matches(active) {
		t.Error("failed since selects an active alarm")
	}
}
