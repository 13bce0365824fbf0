package jsonio

import (
	"encoding/json"
	"slices"
	"testing"
)

// eachKey reads the member names of any valid object as encoding/json would, whatever
// the values hold (nested objects, arrays, strings with brackets, quotes and escapes)
// and however the names are written (escapes included).
func TestEachKey(t *testing.T) {
	for _, c := range []struct {
		obj  string
		want []string
	}{
		{`{}`, nil},
		{` { } `, nil},
		{`{"a":1}`, []string{"a"}},
		{`{ "a" : 1 , "b" : "x" }`, []string{"a", "b"}},
		{`{"a":{"b":[1,{"c":"}]"}]},"d":"\"{\\","e":null,"f":true,"g":-1.5e3}`, []string{"a", "d", "e", "f", "g"}},
		{"{\n\t\"lab\\u0065l\": \"x\",\r\n \"k\\\"q\": []}", []string{"label", `k"q`}},
		{`{"a":[],"b":{},"c":""}`, []string{"a", "b", "c"}},
	} {
		if !json.Valid([]byte(c.obj)) {
			t.Fatalf("test object %s is not valid JSON", c.obj)
		}
		var got []string
		eachKey([]byte(c.obj), func(k string) bool { got = append(got, k); return true })
		if !slices.Equal(got, c.want) {
			t.Errorf("eachKey(%s) = %q, want %q", c.obj, got, c.want)
		}
	}
	var first []string
	eachKey([]byte(`{"a":1,"b":2}`), func(k string) bool { first = append(first, k); return false })
	if !slices.Equal(first, []string{"a"}) {
		t.Errorf("eachKey went on after fn returned false: %q", first)
	}
}

// FuzzEachKey: on every valid object, eachKey finds exactly the names encoding/json
// reads, in order.
func FuzzEachKey(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,"]"]},"c":"\\"}`, `{"\u00e9":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &m) != nil {
			return // not an object
		}
		var got []string
		eachKey([]byte(s), func(k string) bool { got = append(got, k); return true })
		seen := map[string]bool{}
		for _, k := range got {
			seen[k] = true
		}
		for k := range m {
			if !seen[k] {
				t.Fatalf("eachKey(%q) = %q misses %q", s, got, k)
			}
		}
		if len(seen) != len(m) {
			t.Fatalf("eachKey(%q) = %q, encoding/json reads %d names", s, got, len(m))
		}
	})
}
