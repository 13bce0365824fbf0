package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/chronoshq/chronos/ports"
	"github.com/chronoshq/chronos/test/contract"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/chronoshq/chronos/domain"
)

// Payloads come back byte for byte: the column is json, which keeps the text, where
// jsonb would reorder keys, drop duplicates and rewrite whitespace and numbers.
func TestPayloadIsStoredVerbatim(t *testing.T) {
	s, _ := newTestStore(t, nil)
	ctx := context.Background()
	payloads := []string{
		`{"b":1,"a":2}`,
		`{ "a" : [1, 2,  3],
		   "nested": {"z": null, "y": true} }`,
		`{"dup":1,"dup":2}`,
		`{"n":1.0000000000000000000001,"big":123456789012345678901234567890,"e":1E+2}`,
		`"\u00e9t\u00e9 \ud83d\ude00"`,
		`"été 😀"`,
		`null`,
		`[]`,
		` 42 `,
	}
	for _, p := range payloads {
		if !json.Valid([]byte(p)) {
			t.Fatalf("test payload is not JSON: %s", p)
		}
		now := time.Now()
		a, err := domain.NewAlarm(uuid.NewString(), domain.Spec{
			Owner: "alice", Kind: domain.KindOnce, FireAt: &now, Payload: json.RawMessage(p),
		}, now, domain.Defaults{MaxFailures: 3})
		if err != nil {
			t.Fatal(err)
		}
		created, _, err := contract.CreateOne(ctx, s, a)
		if err != nil {
			t.Fatalf("Create(%s): %v", p, err)
		}
		got, err := s.Get(ctx, ports.OwnedBy("alice"), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for what, b := range map[string][]byte{"Create": created.Payload, "Get": got.Payload} {
			if !bytes.Equal(b, []byte(p)) {
				t.Errorf("%s payload = %q, want %q", what, b, p)
			}
		}
	}
}
