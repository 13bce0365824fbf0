package storetest

import (
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// TagPageShape is one shape of a tag-filtered page the stores' plan tests check.
type TagPageShape struct {
	Name string
	F    ports.ListFilter
}

// TagPageShapes are the tag pages every SQL store's plan test checks: one pair or
// three, alone or with the list's other filters, of owner "o".
var TagPageShapes = []TagPageShape{
	{"one pair", ports.ListFilter{Scope: ports.OwnedBy("o"), Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
	{"three pairs", ports.ListFilter{Scope: ports.OwnedBy("o"), Tags: []domain.TagFilter{
		{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}, {Key: "region", Value: "eu"}}}},
	{"status", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusActive,
		Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
	{"every filter", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusFailed, Kind: domain.KindOnce,
		LabelPrefix: "b", FailedSince: time.Unix(1, 0), Tags: []domain.TagFilter{{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}}}},
}

// StatusTagPageShapes are the tag pages of one owner and a rare status, which walk the
// owner's alarms of that status and check the pairs on each (sqlstore's statusTagPage).
var StatusTagPageShapes = []TagPageShape{
	{"failed, one pair", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusFailed,
		Tags: []domain.TagFilter{{Key: "customer", Value: "42"}}}},
	{"paused, three pairs", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusPaused, Tags: []domain.TagFilter{
		{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}, {Key: "region", Value: "eu"}}}},
	{"every filter", ports.ListFilter{Scope: ports.OwnedBy("o"), Status: domain.StatusFailed, Kind: domain.KindOnce,
		LabelPrefix: "b", FailedSince: time.Unix(1, 0), Tags: []domain.TagFilter{{Key: "customer", Value: "42"}, {Key: "plan", Value: "pro"}}}},
}
