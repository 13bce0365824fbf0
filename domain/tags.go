package domain

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Limits on an alarm's tags (part of the API contract, like the other limits).
const (
	MaxTags        = 16  // pairs per alarm
	MaxTagKeyLen   = 64  // bytes of [a-z0-9_.-]
	MaxTagValueLen = 200 // characters
	// MaxTagFilters is how many tag conditions one list or bulk filter may AND.
	MaxTagFilters = MaxTags
)

var tagKey = regexp.MustCompile(`^[a-z0-9_.-]{1,64}$`)

// ValidateTags checks an alarm's tags as a create or an update gives them: at most
// MaxTags pairs, each key [a-z0-9_.-]{1,64}, each value text of at most MaxTagValueLen
// characters. A refusal names the field, "tags" or "tags.<key>".
func ValidateTags(tags map[string]string) error {
	if len(tags) > MaxTags {
		return invalid("tags", "has %d pairs; the limit is %d", len(tags), MaxTags)
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if !tagKey.MatchString(k) {
			return invalid("tags", "key %q must be 1 to %d of a-z, 0-9, '_', '.' and '-'", k, MaxTagKeyLen)
		}
		if err := checkText("tags."+k, tags[k], MaxTagValueLen); err != nil {
			return err
		}
	}
	return nil
}

// cloneTags is tags as an alarm keeps them: a copy, nil when there are none, so an
// alarm without tags is one value however the caller said "none".
func cloneTags(tags map[string]string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	return maps.Clone(tags)
}

// TagsEqual reports whether two alarms' tags are the same pairs (nil and empty alike).
func TagsEqual(a, b map[string]string) bool { return maps.Equal(a, b) }

// TagFilter selects the alarms that carry Key with exactly Value.
type TagFilter struct {
	Key, Value string
}

// String is the filter as the API writes it, "key:value".
func (f TagFilter) String() string { return f.Key + ":" + f.Value }

// ParseTagFilters reads the API's tag conditions, each "key:value" split on its first
// ':' (a value may hold more). field names them in a refusal ("tag", or "filter.tag").
// A key repeated with another value can match no alarm; it is refused as a mistake.
func ParseTagFilters(field string, raw []string) ([]TagFilter, error) {
	if len(raw) > MaxTagFilters {
		return nil, invalid(field, "has %d conditions; the limit is %d", len(raw), MaxTagFilters)
	}
	out := make([]TagFilter, 0, len(raw))
	seen := map[string]string{}
	for _, r := range raw {
		k, v, ok := strings.Cut(r, ":")
		if !ok {
			return nil, invalid(field, "%q must be key:value", r)
		}
		if !tagKey.MatchString(k) {
			return nil, invalid(field, "key %q must be 1 to %d of a-z, 0-9, '_', '.' and '-'", k, MaxTagKeyLen)
		}
		if err := checkText(field, v, MaxTagValueLen); err != nil {
			return nil, err
		}
		if prev, dup := seen[k]; dup {
			if prev != v {
				return nil, invalid(field, "gives key %q twice with different values; no alarm can match", k)
			}
			continue
		}
		seen[k] = v
		out = append(out, TagFilter{Key: k, Value: v})
	}
	return out, nil
}

// MatchesTags reports whether tags carry every pair of fs.
func MatchesTags(tags map[string]string, fs []TagFilter) bool {
	for _, f := range fs {
		if v, ok := tags[f.Key]; !ok || v != f.Value {
			return false
		}
	}
	return true
}

// OwnerBulkAction is what an owner's bulk call does to every alarm its filter selects:
// exactly what the single action of that name does to one.
type OwnerBulkAction string

const (
	OwnerBulkPause  OwnerBulkAction = "pause"
	OwnerBulkResume OwnerBulkAction = "resume"
	OwnerBulkCancel OwnerBulkAction = "cancel"
)

// Decide returns the action's decision for one alarm, the same Pause, Resume and Cancel
// make for the single calls. An alarm the action does not apply to (pausing a once
// alarm, resuming an active one) is unchanged, not an error: a bulk call skips it.
func (b OwnerBulkAction) Decide(a Alarm, now time.Time) (Transition, bool, error) {
	var (
		t       Transition
		changed bool
		err     error
	)
	switch b {
	case OwnerBulkPause:
		if a.Kind != KindCron || a.Status != StatusActive {
			return Transition{}, false, nil // a paused series stays as its pause left it
		}
		t, changed, err = Pause(a, now)
	case OwnerBulkResume:
		if a.Status != StatusPaused {
			return Transition{}, false, nil
		}
		t, changed, err = Resume(a, now)
	case OwnerBulkCancel:
		t, changed = Cancel(a, now)
	default:
		return Transition{}, false, fmt.Errorf("domain: unknown bulk action %q", b)
	}
	return t, changed, err
}

// ParseOwnerBulkAction checks the API's action name.
func ParseOwnerBulkAction(s string) (OwnerBulkAction, error) {
	switch b := OwnerBulkAction(s); b {
	case OwnerBulkPause, OwnerBulkResume, OwnerBulkCancel:
		return b, nil
	}
	return "", invalid("action", `must be "pause", "resume" or "cancel", got %q`, s)
}
