package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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
