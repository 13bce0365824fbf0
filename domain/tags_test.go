package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestValidateTags(t *testing.T) {
	sixteen, seventeen := map[string]string{}, map[string]string{}
	for i := range 17 {
		k := "k" + strings.Repeat("x", i)
		if i < 16 {
			sixteen[k] = "v"
		}
		seventeen[k] = "v"
	}
	for _, c := range []struct {
		name  string
		tags  map[string]string
		field string // "" when valid
	}{
		{"none", nil, ""},
		{"typical", map[string]string{"customer": "42", "plan": "pro"}, ""},
		{"key characters", map[string]string{"a-b_c.d0": ""}, ""},
		{"64-byte key", map[string]string{strings.Repeat("k", 64): "v"}, ""},
		{"200 characters", map[string]string{"k": strings.Repeat("é", 200)}, ""},
		{"16 pairs", sixteen, ""},
		{"17 pairs", seventeen, "tags"},
		{"empty key", map[string]string{"": "v"}, "tags"},
		{"upper case", map[string]string{"Customer": "v"}, "tags"},
		{"space", map[string]string{"a b": "v"}, "tags"},
		{"colon", map[string]string{"a:b": "v"}, "tags"},
		{"65-byte key", map[string]string{strings.Repeat("k", 65): "v"}, "tags"},
		{"201 characters", map[string]string{"customer": strings.Repeat("é", 201)}, "tags.customer"},
		{"NUL", map[string]string{"customer": "a\x00"}, "tags.customer"},
		{"not UTF-8", map[string]string{"customer": "\xff"}, "tags.customer"},
	} {
		err := ValidateTags(c.tags)
		var ve *ValidationError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (!errors.As(err, &ve) || ve.Field != c.field):
			t.Errorf("%s: %v, want a refusal of %s", c.name, err, c.field)
		}
	}
}

func TestParseTagFilters(t *testing.T) {
	for _, c := range []struct {
		raw  []string
		want []TagFilter
		bad  bool
	}{
		{nil, []TagFilter{}, false},
		{[]string{"customer:42"}, []TagFilter{{"customer", "42"}}, false},
		{[]string{"url:http://x:80/a"}, []TagFilter{{"url", "http://x:80/a"}}, false},
		{[]string{"empty:"}, []TagFilter{{"empty", ""}}, false},
		{[]string{"a:1", "b:2", "a:1"}, []TagFilter{{"a", "1"}, {"b", "2"}}, false},
		{[]string{"a:1", "a:2"}, nil, true},
		{[]string{"customer"}, nil, true},
		{[]string{":42"}, nil, true},
		{[]string{"Customer:42"}, nil, true},
		{[]string{"a:" + strings.Repeat("v", 201)}, nil, true},
		{make([]string, 17), nil, true},
	} {
		got, err := ParseTagFilters("tag", c.raw)
		if c.bad {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "tag" {
				t.Errorf("%q: %v, want a refusal of tag", c.raw, err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%q: %v, %v; want %v", c.raw, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: %v, want %v", c.raw, got, c.want)
			}
		}
	}
}

func TestTagsOnCreateAndUpdate(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := Spec{Owner: "o", Kind: KindCron, CronExpr: "@daily", Tags: map[string]string{"customer": "42"}}
	a, err := NewAlarm("id", spec, now, Defaults{MaxFailures: 3})
	if err != nil || a.Tags["customer"] != "42" {
		t.Fatalf("NewAlarm: %v, tags %v", err, a.Tags)
	}
	spec.Tags["customer"] = "changed by the caller"
	if a.Tags["customer"] != "42" {
		t.Error("the alarm shares the spec's map")
	}
	if b, _ := NewAlarm("id", Spec{Owner: "o", Kind: KindOnce, Delay: new(time.Duration), Tags: map[string]string{}}, now, Defaults{MaxFailures: 3}); b.Tags != nil {
		t.Errorf("empty tags kept as %v, want nil", b.Tags)
	}
	if _, err := NewAlarm("id", Spec{Owner: "o", Kind: KindOnce, Delay: new(time.Duration), Tags: map[string]string{"X": "1"}}, now, Defaults{MaxFailures: 3}); err == nil {
		t.Error("NewAlarm took a bad key")
	}

	for _, c := range []struct {
		name    string
		tags    map[string]string
		changed bool
		want    map[string]string
	}{
		{"the same", map[string]string{"customer": "42"}, false, map[string]string{"customer": "42"}},
		{"replaced", map[string]string{"plan": "pro"}, true, map[string]string{"plan": "pro"}},
		{"cleared", map[string]string{}, true, nil},
	} {
		tr, changed, err := Update(a, Patch{Tags: &c.tags}, now)
		if err != nil || changed != c.changed {
			t.Errorf("%s: changed %t, %v", c.name, changed, err)
			continue
		}
		if !changed {
			continue
		}
		if got := tr.ApplyTo(a).Tags; !TagsEqual(got, c.want) || tr.Events[0].Message != "changed: tags" || !tr.KeepLease {
			t.Errorf("%s: tags %v, event %q, keeps the lease %t", c.name, got, tr.Events[0].Message, tr.KeepLease)
		}
	}
	bad := map[string]string{"k": strings.Repeat("v", 201)}
	if _, _, err := Update(a, Patch{Tags: &bad}, now); err == nil || !strings.Contains(err.Error(), "tags.k") {
		t.Errorf("a bad value: %v", err)
	}
}

func TestOwnerBulkDecide(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	series, _ := NewAlarm("s", Spec{Owner: "o", Kind: KindCron, CronExpr: "@daily"}, now, Defaults{MaxFailures: 3})
	once, _ := NewAlarm("o", Spec{Owner: "o", Kind: KindOnce, Delay: new(time.Duration)}, now, Defaults{MaxFailures: 3})
	paused := series
	paused.Status = StatusPaused
	done := once
	done.Status = StatusFired
	for _, c := range []struct {
		action OwnerBulkAction
		a      Alarm
		want   Status // "" when unchanged
	}{
		{OwnerBulkPause, series, StatusPaused},
		{OwnerBulkPause, paused, ""},
		{OwnerBulkPause, once, ""},
		{OwnerBulkResume, paused, StatusActive},
		{OwnerBulkResume, series, ""},
		{OwnerBulkResume, once, ""},
		{OwnerBulkCancel, series, StatusCancelled},
		{OwnerBulkCancel, paused, StatusCancelled},
		{OwnerBulkCancel, once, StatusCancelled},
		{OwnerBulkCancel, done, ""},
	} {
		tr, changed, err := c.action.Decide(c.a, now)
		if err != nil || changed != (c.want != "") || (changed && tr.Status != c.want) {
			t.Errorf("%s of %s %s: changed %t to %s, %v; want %q", c.action, c.a.Kind, c.a.Status, changed, tr.Status, err, c.want)
		}
	}
	if _, err := ParseOwnerBulkAction("delete"); err == nil {
		t.Error("delete is no owner's bulk action")
	}
}
