package mysql

import (
	"bytes"
	"encoding/json"
	"github.com/chronoshq/chronos/test/contract"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// fixedClock is a clock that does not move.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// testNow has nanoseconds on purpose: the store must cut them, never round.
var testNow = time.Date(2030, time.January, 2, 3, 4, 5, 999999999, time.UTC)

// newDueAlarm builds an alarm of owner that is due at testNow.
func newDueAlarm(t *testing.T, owner string, payload string) domain.Alarm {
	t.Helper()
	return onceAlarm(t, owner, testNow, payload)
}

// onceAlarm builds a one-off alarm of owner with payload, created at at and due then.
func onceAlarm(t *testing.T, owner string, at time.Time, payload string) domain.Alarm {
	t.Helper()
	a, err := domain.NewAlarm(uuid.Must(uuid.NewV7()).String(),
		domain.Spec{Owner: owner, Kind: domain.KindOnce, FireAt: &at, Payload: json.RawMessage(payload)},
		at, domain.Defaults{MaxFailures: 3})
	if err != nil {
		t.Fatalf("NewAlarm: %v", err)
	}
	return a
}

// A payload comes back byte for byte from every read path: whitespace, key order,
// duplicate keys, escapes, numbers beyond float64, 4-byte characters and even invalid
// UTF-8 (which json.Valid lets through) included. A MySQL JSON column would have
// normalised most of these, and a utf8mb4 text column refused the last.
func TestPayloadByteForByte(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
	ctx := t.Context()
	largest := `{"big":"` + strings.Repeat("x", domain.MaxPayloadBytes-10) + `"}` // 64 KiB, one over a BLOB
	payloads := []string{
		`{"b":1,  "a":[1,2 ,3]}`,
		"\n\t{ \"z\" : null ,\"a\":{}}\r\n ",
		`{"dup":1,"dup":2}`,
		`{"n":12345678901234567890123456789,"f":1.0e+00,"g":-0.0}`,
		`{"esc":"\u00e9\u0000\"\\\/","raw":"é ☃ 🎉"}`,
		`"just a string"`,
		"{\"not utf-8\":\"\xff\xfe\"}", // json.Valid accepts it; a utf8mb4 text column would not
		`null`,
		`[]`,
		largest,
	}
	if len(largest) != domain.MaxPayloadBytes {
		t.Fatalf("the largest test payload is %d bytes, want %d", len(largest), domain.MaxPayloadBytes)
	}
	want := map[string][]byte{}
	for _, p := range payloads {
		a := newDueAlarm(t, "payload", p)
		if _, _, err := contract.CreateOne(ctx, s, a); err != nil {
			t.Fatalf("Create with payload %.40q: %v", p, err)
		}
		want[a.ID] = []byte(p)
		got, err := s.Get(ctx, ports.OwnedBy("payload"), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Payload, []byte(p)) {
			t.Errorf("Get: payload = %.60q, want %.60q", got.Payload, p)
		}
	}
	listed, _, err := s.List(ctx, ports.ListFilter{Scope: ports.OwnedBy("payload"), Limit: ports.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: 100})
	if err != nil {
		t.Fatal(err)
	}
	for path, alarms := range map[string][]domain.Alarm{"List": listed, "ClaimDue": claimed.Alarms} {
		if len(alarms) != len(payloads) {
			t.Fatalf("%s returned %d alarms, want %d", path, len(alarms), len(payloads))
		}
		for _, a := range alarms {
			if !bytes.Equal(a.Payload, want[a.ID]) {
				t.Errorf("%s: payload = %.60q, want %.60q", path, a.Payload, want[a.ID])
			}
		}
	}
}

// Times are cut to the microsecond, never rounded, and what Create and ClaimDue return
// is exactly what a later read finds: the lease ClaimDue hands out must fence the row.
func TestTimesAreStoredCutToMicroseconds(t *testing.T) {
	s, _ := openTestStore(t, Options{Clock: fixedClock(testNow)})
	ctx := t.Context()
	created, _, err := contract.CreateOne(ctx, s, newDueAlarm(t, "o", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	wantAt := testNow.Truncate(time.Microsecond)
	if !created.NextFireAt.Equal(wantAt) || !created.CreatedAt.Equal(wantAt) {
		t.Errorf("Create returned next_fire_at %s, created_at %s, want both %s",
			created.NextFireAt.Format(time.RFC3339Nano), created.CreatedAt.Format(time.RFC3339Nano), wantAt.Format(time.RFC3339Nano))
	}
	claimed, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w", Lease: time.Minute, Batch: 1})
	if err != nil || len(claimed.Alarms) != 1 {
		t.Fatalf("ClaimDue = %+v, %v", claimed, err)
	}
	got, err := s.Get(ctx, ports.OwnedBy("o"), created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ClaimedBy != "w" || !got.ClaimedAt.Equal(claimed.Alarms[0].ClaimedAt) || !got.ClaimedAt.Equal(wantAt) || !claimed.Now.Equal(wantAt) {
		t.Errorf("stored lease %q@%s, ClaimDue returned %s, Now %s; want all %s", got.ClaimedBy,
			got.ClaimedAt.Format(time.RFC3339Nano), claimed.Alarms[0].ClaimedAt.Format(time.RFC3339Nano),
			claimed.Now.Format(time.RFC3339Nano), wantAt.Format(time.RFC3339Nano))
	}
}
