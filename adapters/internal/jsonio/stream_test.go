package jsonio

import (
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
