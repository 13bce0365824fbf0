package httpapi

import (
	"bytes"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
)

func TestDecodeObjectKeepsPayloadBytes(t *testing.T) {
	payload := `{"b": 1,  "a": [1, 2], "h": "<&>"}`
	var req createRequest
	body := "{\n  \"kind\": \"once\",\n  \"payload\": " + payload + "\n}\n"
	if err := jsonio.DecodeObject([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(req.Payload, []byte(payload)) {
		t.Errorf("payload = %s, want %s", req.Payload, payload)
	}
}

func TestDecodeObjectNullMeansAbsent(t *testing.T) {
	var req createRequest
	if err := jsonio.DecodeObject([]byte(`{"max_failures":null,"delay_seconds":null,"fire_at":null}`), &req); err != nil {
		t.Fatal(err)
	}
	if req.MaxFailures != nil || req.DelaySeconds != nil || req.FireAt != nil {
		t.Errorf("null fields decoded as set: %+v", req)
	}
}

func TestSecondsToDuration(t *testing.T) {
	cases := []struct {
		sec  float64
		want int64
	}{
		{0, 0},
		{1.5, 1_500_000_000},
		{0.0000000004, 0},
		{1e300, 1<<63 - 1},
		{-1e300, -1 << 63},
	}
	for _, c := range cases {
		if got := secondsToDuration(c.sec); int64(got) != c.want {
			t.Errorf("secondsToDuration(%g) = %d, want %d", c.sec, got, c.want)
		}
	}
}
