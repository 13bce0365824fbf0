package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// echoAlarms answers a batch with every spec made into an alarm, without a store: what
// the API itself costs per item.
type echoAlarms struct{ failingAlarms }

func (echoAlarms) CreateBatch(_ context.Context, specs []domain.Spec) ([]ports.CreateResult, error) {
	out := make([]ports.CreateResult, len(specs))
	for i, s := range specs {
		a, err := domain.NewAlarm("01a20000-0000-7000-8000-000000000000", s, time.Now(), domain.Defaults{MaxFailures: 5})
		out[i] = ports.CreateResult{Alarm: a, Err: err}
	}
	return out, nil
}

type okAuth struct{}

func (okAuth) Authenticate(context.Context, string) (domain.Token, error) {
	return domain.Token{Owner: "bench"}, nil
}

// BenchmarkBatchOf1000 is the API's own cost of POST /v1/alarms/batch with 1,000 items:
// decoding, validation, encoding the answer.
func BenchmarkBatchOf1000(b *testing.B) {
	item := `{"kind":"once","delay_seconds":3600,"label":"bench","payload":"` + strings.Repeat("x", 98) + `"}`
	body := `{"alarms":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`
	h := New(echoAlarms{}, okAuth{}, nil, Options{})
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/alarms/batch", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer x")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}
