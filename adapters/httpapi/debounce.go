package httpapi

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// debounceRequest is what a create says about a repeat of its idempotency key:
// "on_duplicate" ("return", the default, or "replace") and, with replace,
// "max_wait_seconds" (domain.Debounce; the domain checks the rules).
type debounceRequest struct {
	OnDuplicate    string   `json:"on_duplicate"`
	MaxWaitSeconds *float64 `json:"max_wait_seconds"`
}

// apply puts the request's debounce on s.
func (req debounceRequest) apply(s *domain.Spec) error {
	if strings.ContainsRune(req.OnDuplicate, 0) {
		return invalidArgument("on_duplicate", "must not contain NUL characters")
	}
	s.OnDuplicate = domain.OnDuplicate(req.OnDuplicate)
	if req.MaxWaitSeconds != nil {
		d := secondsToDuration(*req.MaxWaitSeconds)
		s.MaxWait = &d
	}
	return nil
}

// appendCreated writes a create's answer: {"alarm": ..., "deduped": ...}, with
// "replaced": true when it replaced its key's alarm.
func appendCreated(b *bytes.Buffer, r ports.CreateResult) error {
	b.WriteString(`{"alarm":`)
	if err := appendAlarm(b, r.Alarm); err != nil {
		return err
	}
	fmt.Fprintf(b, `,"deduped":%t`, r.Deduped)
	if r.Replaced {
		b.WriteString(`,"replaced":true`)
	}
	b.WriteByte('}')
	return nil
}
