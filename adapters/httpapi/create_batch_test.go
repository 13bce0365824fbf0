package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
)

// batchItemsOf reads body as a batch's is read, keeping the items of the last member.
func batchItemsOf(body string) ([]string, error) {
	var got []string
	err := jsonio.EachItem(strings.NewReader(body), "alarms", 0, func(raw []byte) error {
		got = append(got, string(raw))
		return nil
	}, func() { got = nil })
	return got, err
}

// FuzzDecodeBatch: the batch's reading item by item (jsonio.EachItem) accepts exactly
// the bodies jsonio.DecodeObject accepts into {"alarms": [...]}, with the same items byte
// for byte (the last member's when it is repeated), and refuses the others with a
// *jsonio.Error.
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range []string{`{"alarms":[{"kind":"once"},{}]}`, `{"alarms":null}`, `{"alarms":{}}`, `{"Alarms":[]}`,
		` {"alarms" : [ 1 , "x" , [ ] ] } `, `{"alarms":[],"alarms":[{}]}`, `[]`, `{"alarms":[}`, `{"alarms":[]} x`, ``,
		`{"alarms":[{"a": [1, {"b": "c"}]}]}`, `{"alarms":"x"}`, `{"alarms":5}`, `{"alarms":true}`, `{}`, `{"alarms":[]}{}`,
		`{"alarms":[1,]}`, `{"alarms":[1] "x":2}`, "{\"alarms\":[\"\\u00e9\"]}", `{"alarms"`, `{"alarms":[`, `{`, `1e999{`, `{"alarms":1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := batchItemsOf(s)
		var want struct {
			Alarms []json.RawMessage `json:"alarms"`
		}
		wantErr := jsonio.DecodeObject([]byte(s), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("EachItem(%q) error %v, DecodeObject %v", s, gotErr, wantErr)
		}
		var refusal *jsonio.Error
		if gotErr != nil && !errors.As(gotErr, &refusal) {
			t.Fatalf("EachItem(%q) = %v, want a *jsonio.Error", s, gotErr)
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

// countingBody is a request body that counts the bytes the server read of it.
type countingBody struct {
	r io.Reader
	n int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func (c *countingBody) Close() error { return nil }

// A batch of more items than MaxBatchItems is refused at the first one over, naming
// "alarms", without the rest of its body read; one at the limit is answered whole,
// a result per item.
func TestBatchOverTheLimitRefusedBeforeItIsRead(t *testing.T) {
	item := `{"kind":"once","delay_seconds":3600,"payload":"` + strings.Repeat("x", 1000) + `"}`
	batch := func(n int) string {
		return `{"alarms":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}`
	}
	h := New(echoAlarms{}, okAuth{}, nil, Options{})
	post := func(body string) (*httptest.ResponseRecorder, *countingBody) {
		b := &countingBody{r: strings.NewReader(body)}
		req := httptest.NewRequest(http.MethodPost, "/v1/alarms/batch", nil)
		req.Body = b
		req.Header.Set("Authorization", "Bearer x")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec, b
	}

	big := batch(5 * MaxBatchItems)
	rec, read := post(big)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"field":"alarms"`) {
		t.Errorf("a batch of %d items: %d %s", 5*MaxBatchItems, rec.Code, rec.Body)
	}
	if read.n > len(big)/3 {
		t.Errorf("the server read %d of the body's %d bytes before refusing it; want about a fifth", read.n, len(big))
	}

	rec, _ = post(batch(MaxBatchItems))
	if rec.Code != http.StatusOK || strings.Count(rec.Body.String(), `"alarm":`) != MaxBatchItems {
		t.Errorf("a batch of %d items: %d, %d results", MaxBatchItems, rec.Code, strings.Count(rec.Body.String(), `"alarm":`))
	}
	rec, _ = post(`{"alarms":[]}`)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "got 0") {
		t.Errorf("an empty batch: %d %s", rec.Code, rec.Body)
	}
}

// An item longer than a single create's body is refused (413, naming "alarms") as soon
// as the read passes that limit, the rest of it unread: a batch of one 16 MiB item holds
// no more than one of small ones. An item within it that breaks a rule is that item's
// error, as before.
func TestBatchItemOverTheCreateLimitRefusedBeforeItIsRead(t *testing.T) {
	h := New(echoAlarms{}, okAuth{}, nil, Options{})
	post := func(body string) (*httptest.ResponseRecorder, *countingBody) {
		b := &countingBody{r: strings.NewReader(body)}
		req := httptest.NewRequest(http.MethodPost, "/v1/alarms/batch", nil)
		req.Body = b
		req.Header.Set("Authorization", "Bearer x")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec, b
	}
	huge := `{"alarms":[{"kind":"once","delay_seconds":60,"payload":"` + strings.Repeat("x", DefaultMaxBatchBodyBytes-100) + `"}]}`
	rec, read := post(huge)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), `"field":"alarms"`) {
		t.Errorf("a batch of one %d-byte item: %d %s", len(huge), rec.Code, rec.Body)
	}
	if read.n > 4*DefaultMaxBodyBytes {
		t.Errorf("the server read %d bytes of a %d-byte item before refusing it; want about %d, a create's limit", read.n, len(huge), DefaultMaxBodyBytes)
	}
	rec, _ = post(`{"alarms":[{"kind":"once","delay_seconds":60,"payload":"` + strings.Repeat("x", 100<<10) + `"}]}`)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"field":"payload"`) {
		t.Errorf("a batch of one item with a payload over its limit: %d %s", rec.Code, rec.Body)
	}
}
