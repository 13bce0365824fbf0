package jsonio

import (
	"errors"
	"strings"
	"testing"
)

// items reads body with EachItem, keeping the last member's elements.
func items(body string) ([]string, error) {
	var got []string
	err := EachItem(strings.NewReader(body), "alarms", 0, func(raw []byte) error {
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
	err := EachItem(r, "alarms", 0, func([]byte) error {
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

// With a bound, elements and names up to it read as without one, and a longer one is
// refused with a *ValueTooLargeError once the read passes the bound, its rest unread:
// a body of one huge element holds no more than the bound.
func TestEachItemBoundsEachValue(t *testing.T) {
	const bound = 1000
	fits := `{"pad":"` + strings.Repeat("x", bound-30) + `"}`
	body := `{ "alarms" : [ ` + fits + ` ,` + strings.Repeat(" ", 10) + fits + `, {}, ` + strings.Repeat("1", bound-5) + `] }  `
	var got []string
	if err := EachItem(strings.NewReader(body), "alarms", bound, func(raw []byte) error {
		got = append(got, string(raw))
		return nil
	}, func() {}); err != nil || len(got) != 4 || got[0] != fits || got[1] != fits {
		t.Fatalf("elements within the bound: %v, %d read", err, len(got))
	}
	huge := strings.Repeat("x", 16<<20)
	for what, body := range map[string]string{
		"an element":          `{"alarms":[{},{"pad":"` + huge + `"}]}`,
		"a member name":       `{"` + huge + `":[]}`,
		"space before a name": `{` + strings.Repeat(" ", 16<<20) + `"alarms":[]}`,
		"an element's string": `{"alarms":["` + huge + `"]}`,
	} {
		r := &countingReader{r: strings.NewReader(body)}
		err := EachItem(r, "alarms", bound, func([]byte) error { return nil }, func() {})
		var tooLarge *ValueTooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != bound {
			t.Errorf("%s over the bound: %v, want a *ValueTooLargeError", what, err)
		}
		if r.n > 3*bound {
			t.Errorf("%s over the bound: %d bytes read before the refusal, want at most about %d", what, r.n, bound)
		}
	}
}
