package httpapi

import (
	"bytes"
	"errors"
	"testing"
)

func TestDecodeObjectRefusals(t *testing.T) {
	cases := []struct {
		name, body string
		field      string // the field the error must name ("" for none)
	}{
		{"empty", ``, ""},
		{"whitespace only", " \n\t", ""},
		{"malformed", `{"label": }`, ""},
		{"truncated", `{"label": "x"`, ""},
		{"array", `[]`, ""},
		{"string", `"x"`, ""},
		{"null", `null`, ""},
		{"number", `42`, ""},
		{"trailing object", `{} {}`, ""},
		{"trailing garbage", `{"label":"x"} xyz`, ""},
		{"trailing brace", `{}}`, ""},
		{"unknown field", `{"label":"x","colour":"red"}`, "colour"},
		{"unknown field first in document order", `{"zz":1,"aa":2}`, "zz"},
		{"field name differs in case", `{"Label":"x"}`, "Label"},
		{"string for integer", `{"max_failures":"3"}`, "max_failures"},
		{"fraction for integer", `{"max_failures":1.5}`, "max_failures"},
		{"huge integer", `{"max_failures":1e30}`, "max_failures"},
		{"number for string", `{"label":5}`, "label"},
		{"object for string", `{"kind":{}}`, "kind"},
		{"string for number", `{"delay_seconds":"10"}`, "delay_seconds"},
		{"number out of float range", `{"delay_seconds":1e400}`, "delay_seconds"},
		{"bool for string", `{"fire_at":true}`, "fire_at"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var req createRequest
			err := decodeObject([]byte(c.body), &req)
			var ae *apiError
			if !errors.As(err, &ae) {
				t.Fatalf("decodeObject(%q) = %v, want an *apiError", c.body, err)
			}
			if ae.Status != 400 || ae.Code != "invalid_request" || ae.Field != c.field {
				t.Errorf("decodeObject(%q) = %d %s field %q (%s); want 400 invalid_request field %q",
					c.body, ae.Status, ae.Code, ae.Field, ae.Message, c.field)
			}
			if ae.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

func TestDecodeObjectKeepsPayloadBytes(t *testing.T) {
	payload := `{"b": 1,  "a": [1, 2], "h": "<&>"}`
	var req createRequest
	body := "{\n  \"kind\": \"once\",\n  \"payload\": " + payload + "\n}\n"
	if err := decodeObject([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(req.Payload, []byte(payload)) {
		t.Errorf("payload = %s, want %s", req.Payload, payload)
	}
}

func TestDecodeObjectNullMeansAbsent(t *testing.T) {
	var req createRequest
	if err := decodeObject([]byte(`{"max_failures":null,"delay_seconds":null,"fire_at":null}`), &req); err != nil {
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
