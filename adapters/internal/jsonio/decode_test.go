package jsonio

import (
	"encoding/json"
	"errors"
	"testing"
)

// request has a field of each JSON type the API's bodies take.
type request struct {
	Label        string          `json:"label"`
	Kind         string          `json:"kind"`
	DelaySeconds *float64        `json:"delay_seconds"`
	FireAt       *string         `json:"fire_at"`
	MaxFailures  *int            `json:"max_failures"`
	Payload      json.RawMessage `json:"payload"`
}

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
			var req request
			err := DecodeObject([]byte(c.body), &req)
			var refusal *Error
			if !errors.As(err, &refusal) {
				t.Fatalf("DecodeObject(%q) = %v, want an *Error", c.body, err)
			}
			if refusal.Field != c.field {
				t.Errorf("DecodeObject(%q) = field %q (%s); want field %q", c.body, refusal.Field, refusal.Message, c.field)
			}
			if refusal.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

// A type error in a member of an embedded struct names the member as the client wrote
// it, without the embedded struct's Go name.
func TestTypeErrorInEmbeddedStructNamesTheMember(t *testing.T) {
	type inner struct {
		A *int `json:"a"`
	}
	type outer struct {
		B string `json:"b"`
		inner
	}
	var o outer
	var e *Error
	if err := DecodeObject([]byte(`{"a":"x"}`), &o); !errors.As(err, &e) || e.Field != "a" {
		t.Errorf("err = %v, want one naming a", err)
	}
}

// A type error in a map's value names the map's member, whichever path encoding/json
// reports (the map's field, or the field and the key): the keys are the client's data.
func TestTypeErrorInAMapNamesTheMap(t *testing.T) {
	type inner struct {
		Tags map[string]string `json:"tags"`
	}
	type outer struct {
		inner
	}
	var o outer
	var e *Error
	if err := DecodeObject([]byte(`{"tags":{"customer":42}}`), &o); !errors.As(err, &e) || e.Field != "tags" {
		t.Errorf("err = %v, want one naming tags", err)
	}
	for _, path := range []string{"tags", "tags.customer", "inner.tags.customer"} {
		if got := jsonPath(reflectType(&o), path); got != "tags" {
			t.Errorf("jsonPath(%q) = %q, want tags", path, got)
		}
	}
}
