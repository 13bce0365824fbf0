package webhook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chronoshq/chronos/domain"
)

func sampleWake() domain.Wake {
	paris := time.FixedZone("CEST", 2*60*60)
	return domain.Wake{
		AlarmID:        "0190f2a4-7c1e-7b3a-9d2e-3f4a5b6c7d8e",
		Owner:          "team-a",
		Label:          "standup",
		Kind:           domain.KindCron,
		ScheduledFor:   time.Date(2025, 3, 30, 9, 0, 0, 0, paris),
		FiredAt:        time.Date(2025, 3, 30, 7, 0, 0, 123456789, time.UTC),
		Attempt:        2,
		OccurrenceKey:  "0190f2a4-7c1e-7b3a-9d2e-3f4a5b6c7d8e/2025-03-30T07:00:00Z",
		ConversationID: "conv-42",
		WakeMessage:    "time for standup",
		Payload:        json.RawMessage(`{"b": 1,  "a":[1, 2]}`),
		Delivery:       domain.AtLeastOnce,
	}
}

func TestBodyIsTheDocumentedJSON(t *testing.T) {
	want := `{"alarm_id":"0190f2a4-7c1e-7b3a-9d2e-3f4a5b6c7d8e","owner":"team-a","label":"standup",` +
		`"kind":"cron","scheduled_for":"2025-03-30T07:00:00Z","fired_at":"2025-03-30T07:00:00.123456789Z",` +
		`"attempt":2,"occurrence_key":"0190f2a4-7c1e-7b3a-9d2e-3f4a5b6c7d8e/2025-03-30T07:00:00Z",` +
		`"conversation_id":"conv-42","wake_message":"time for standup","payload":{"b": 1,  "a":[1, 2]},` +
		`"delivery":"at_least_once"}`
	if got := string(Body(sampleWake())); got != want {
		t.Fatalf("body:\n got %s\nwant %s", got, want)
	}
}

func TestBodyFieldOrder(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(Body(sampleWake())))
	var keys []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := "alarm_id owner label kind scheduled_for fired_at attempt occurrence_key " +
		"conversation_id wake_message payload delivery"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("keys:\n got %s\nwant %s", got, want)
	}
}

func TestBodyEmbedsPayloadByteForByte(t *testing.T) {
	for _, payload := range []string{
		`{"b": 1,  "a":[1, 2]}`,
		"[\n  1,\n  {\"z\" : \"\\u00e9\"}\n]",
		`"a string"`,
		`12.50`,
		`null`,
	} {
		w := sampleWake()
		w.Payload = json.RawMessage(payload)
		body := Body(w)
		if !json.Valid(body) {
			t.Fatalf("payload %q: body is not valid JSON: %s", payload, body)
		}
		if !bytes.Contains(body, []byte(`"payload":`+payload+`,"delivery":`)) {
			t.Fatalf("payload %q not embedded verbatim: %s", payload, body)
		}
	}
}

func TestBodyWithoutPayloadSaysNull(t *testing.T) {
	w := sampleWake()
	w.Payload = nil
	var got struct{ Payload json.RawMessage }
	if err := json.Unmarshal(Body(w), &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Payload) != "null" {
		t.Fatalf("payload = %s, want null", got.Payload)
	}
}

func TestBodyTimesAreUTC(t *testing.T) {
	w := sampleWake()
	w.FiredAt = time.Date(2025, 1, 2, 3, 4, 5, 500_000_000, time.FixedZone("X", -5*60*60))
	var got struct {
		ScheduledFor string `json:"scheduled_for"`
		FiredAt      string `json:"fired_at"`
	}
	if err := json.Unmarshal(Body(w), &got); err != nil {
		t.Fatal(err)
	}
	if got.ScheduledFor != "2025-03-30T07:00:00Z" || got.FiredAt != "2025-01-02T08:04:05.5Z" {
		t.Fatalf("times = %+v", got)
	}
}

func TestBodyEscapesStrings(t *testing.T) {
	w := sampleWake()
	w.Label = "a \"quoted\" <b>&\\ label\n\twith\x00control\x1f"
	w.WakeMessage = "héllo ✓ \u2028 \u2029 😀"
	w.ConversationID = "bad\xffutf8"
	var got struct {
		Label          string `json:"label"`
		WakeMessage    string `json:"wake_message"`
		ConversationID string `json:"conversation_id"`
	}
	if err := json.Unmarshal(Body(w), &got); err != nil {
		t.Fatal(err)
	}
	if got.Label != w.Label || got.WakeMessage != w.WakeMessage {
		t.Fatalf("strings did not round-trip: %+v", got)
	}
	if got.ConversationID != "bad\uFFFDutf8" {
		t.Fatalf("invalid UTF-8 = %q, want it replaced by U+FFFD", got.ConversationID)
	}
}

// FuzzAppendString holds appendString to encoding/json's own escaping: byte for byte
// for valid UTF-8; for invalid UTF-8, to the same decoded string (U+FFFD for each bad
// byte). The spelling of that U+FFFD differs between Go releases (`\ufffd` up to 1.26,
// the character itself from 1.27), and receivers see the same value either way.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\/", "\b\f\n\r\t\x00\x1f\x7f", "<>&", "\u2028\u2029", "é😀", "\xff\xfe", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := appendString(nil, s)
		if utf8.ValidString(s) {
			if string(got) != strings.TrimSuffix(want.String(), "\n") {
				t.Fatalf("appendString(%q) = %s, encoding/json says %s", s, got, want.String())
			}
			return
		}
		var gotS, wantS string
		if err := json.Unmarshal(got, &gotS); err != nil {
			t.Fatalf("appendString(%q) = %s, not a JSON string: %v", s, got, err)
		}
		if err := json.Unmarshal(want.Bytes(), &wantS); err != nil || gotS != wantS {
			t.Fatalf("appendString(%q) = %s decoding to %q, encoding/json says %s (%q)", s, got, gotS, want.String(), wantS)
		}
	})
}

func TestAppendBodyReusesBuffer(t *testing.T) {
	w := sampleWake()
	buf := AppendBody(nil, w)
	allocs := testing.AllocsPerRun(100, func() { buf = AppendBody(buf[:0], w) })
	if allocs != 0 {
		t.Fatalf("AppendBody into a large enough buffer allocated %v times", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = Body(w) }); allocs != 1 {
		t.Fatalf("Body allocated %v times, want 1", allocs)
	}
}

func BenchmarkBody(b *testing.B) {
	w := sampleWake()
	b.ReportAllocs()
	for b.Loop() {
		_ = Body(w)
	}
}
