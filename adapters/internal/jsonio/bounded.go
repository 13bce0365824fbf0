package jsonio

import (
	"encoding/json"
	"fmt"
	"io"
)

// ValueTooLargeError refuses a token of a body read by EachItem (a member name, an
// element) that is longer than the bound it was given.
type ValueTooLargeError struct {
	Limit int64
}

func (e *ValueTooLargeError) Error() string {
	return fmt.Sprintf("a value of the body is over %d bytes", e.Limit)
}

// boundedDecoder is a json.Decoder that holds no token longer than max bytes (with the
// comma and space before it): before each call it lets the decoder read at most max bytes past
// where its next token starts, so a longer one fails as soon as the read passes the
// bound, its rest unread. max 0: no bound.
type boundedDecoder struct {
	*json.Decoder
	in  *windowReader
	max int64
}

func newBoundedDecoder(r io.Reader, max int64) *boundedDecoder {
	in := &windowReader{r: r, limit: -1, max: max}
	return &boundedDecoder{Decoder: json.NewDecoder(in), in: in, max: max}
}

// open moves the window to the decoder's next token: max bytes, and one more, which
// tells the decoder that a number of max bytes has ended.
func (d *boundedDecoder) open() {
	if d.max > 0 {
		d.in.limit = d.InputOffset() + d.max + 1
	}
}

func (d *boundedDecoder) Token() (json.Token, error) {
	d.open()
	return d.Decoder.Token()
}

func (d *boundedDecoder) More() bool {
	d.open()
	return d.Decoder.More()
}

func (d *boundedDecoder) Decode(v any) error {
	d.open()
	return d.Decoder.Decode(v)
}

// windowReader reads r up to limit bytes in all (-1: no limit), then fails.
type windowReader struct {
	r     io.Reader
	read  int64
	limit int64
	max   int64 // the bound, for the error
}

func (w *windowReader) Read(p []byte) (int, error) {
	if w.limit >= 0 {
		left := w.limit - w.read
		if left <= 0 {
			return 0, &ValueTooLargeError{Limit: w.max}
		}
		p = p[:min(int64(len(p)), left)]
	}
	n, err := w.r.Read(p)
	w.read += int64(n)
	return n, err
}
