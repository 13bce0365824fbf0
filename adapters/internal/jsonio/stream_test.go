package jsonio

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// items reads body with EachItem, keeping the last member's elements.
func items(body string) ([]string, error) {
	var got []string
	err := EachItem(strings.NewReader(body), "alarms", func(raw []byte) error {
		got = append(got, string(raw))
		return nil
	}, func() { got = nil })
	return got, err
}

// FuzzEachItem: EachItem accepts exactly the bodies DecodeObject accepts into an object
// of one array member, with the same elements byte for byte (the last member's when it
// is repeated), and refuses the others with an *Error.
func FuzzEachItem(f *testing.F) {
	for _, s := range []string{`{"alarms":[{"kind":"once"},{}]}`, `{"alarms":null}`, `{"alarms":{}}`, `{"Alarms":[]}`,
		` {"alarms" : [ 1 , "x" , [ ] ] } `, `{"alarms":[],"alarms":[{}]}`, `[]`, `{"alarms":[}`, `{"alarms":[]} x`, ``,
		`{"alarms":[{"a": [1, {"b": "c"}]}]}`, `{"alarms":"x"}`, `{"alarms":5}`, `{"alarms":true}`, `{}`, `{"alarms":[]}{}`,
		`{"alarms":[1,]}`, `{"alarms":[1] "x":2}`, "{\"alarms\":[\"\\u00e9\"]}", `{"alarms"`, `{"alarms":[`, `{`, `1e999{`, `{"alarms":1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := items(s)
		var want struct {
			Alarms []json.RawMessage `json:"alarms"`
		}
		wantErr := DecodeObject([]byte(s), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("EachItem(%q) error %v, DecodeObject %v", s, gotErr, wantErr)
		}
		var refusal *Error
		if gotErr != nil && !errors.As(gotErr, &refusal) {
			t.Fatalf("EachItem(%q) = %v, want an *Error", s, gotErr)
		}
		if gotErr != nil {
			return
		}
		if len(got) != len(want.Alarms) {
			t.Fatalf("EachItem(%q) = %d items, DecodeObject %d", s, len(got), len(want.Alarms))
		}
		for i := range got {
			if got[i] != string(want.Alarms[i]) {
				t.Fatalf("EachItem(%q) item %d = %s, DecodeObject %s", s, i, got[i], want.Alarms[i])
			}
		}
	})
}

// Each refusal names the field DecodeObject would; an error of item stops the read at
// once and comes back as it is, before the rest of the body is read.
func TestEachItemRefusals(t *testing.T) {
	for _, c := range []struct{ body, field string }{
		{``, ""}, {`[]`, ""}, {`{"alarms":[}`, ""}, {`{"alarms":[]} x`, ""}, {`{"alarms":[1,]}`, ""},
		{`{"Alarms":[]}`, "Alarms"}, {`{"alarms":[],"x":1}`, "x"}, {`{"alarms":{}}`, "alarms"}, {`{"alarms":"x"}`, "alarms"},
	} {
		_, err := items(c.body)
		var refusal *Error
		if !errors.As(err, &refusal) || refusal.Field != c.field || refusal.Message == "" {
			t.Errorf("EachItem(%q) = %v, want a refusal naming %q", c.body, err, c.field)
		}
	}
	stop := errors.New("enough")
	seen := 0
	r := &countingReader{r: strings.NewReader(`{"alarms":[{},{},{}` + strings.Repeat(`,{"pad":"`+strings.Repeat("x", 1000)+`"}`, 10000) + `]}`)}
	err := EachItem(r, "alarms", func([]byte) error {
		if seen++; seen == 3 {
			return stop
		}
		return nil
	}, func() {})
	if !errors.Is(err, stop) || r.n > 1<<20 {
		t.Errorf("an item's error: %v after reading %d bytes; want it at once, the body unread", err, r.n)
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
