package ports

import (
	"testing"
	"time"
)

// A receiver's answer becomes the attempt log's receipt: every field carried over, the
// body cut to the limit and marked truncated.
func TestResponseReceipt(t *testing.T) {
	r := Response{Status: 503, ContentType: "text/plain", Body: []byte("busy, try later")}
	got := r.Receipt(1500*time.Millisecond, 4)
	if got.Duration != 1500*time.Millisecond || got.Status != 503 || got.ContentType != "text/plain" ||
		string(got.Body) != "busy" || !got.Truncated {
		t.Errorf("Receipt = %+v, want 1.5s, 503, text/plain, body %q truncated", got, "busy")
	}
	if got := (Response{}).Receipt(time.Second, 64); got.Status != 0 || got.Body != nil || got.Truncated {
		t.Errorf("the zero Response's receipt = %+v, want only its duration", got)
	}
}
