package jsonio

import (
	"encoding/json"
	"testing"
)

// A list with nothing in it encodes as [], whether it is nil or empty, and a list with
// something in it as itself.
func TestArrayIsNeverNull(t *testing.T) {
	for _, c := range []struct {
		list []string
		want string
	}{
		{nil, `[]`},
		{[]string{}, `[]`},
		{[]string{"a", "b"}, `["a","b"]`},
	} {
		b, err := json.Marshal(Array(c.list))
		if err != nil || string(b) != c.want {
			t.Errorf("Array(%#v) encodes as %s, %v; want %s", c.list, b, err, c.want)
		}
	}
}
