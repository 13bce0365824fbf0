package owners

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// failingBatchStore fails every CreateBatch with err; nothing else of the store is used.
type failingBatchStore struct {
	ports.Store
	err error
}

func (s failingBatchStore) CreateBatch(context.Context, []domain.Alarm) ([]CreateResult, error) {
	return nil, s.err
}

// A batch whose caller left (a client that disconnected, a deadline) may still have
// committed, so its alarms count against the quota until the next count, as a single
// create's do; a batch the store refused outright wrote nothing and takes no room.
func TestCreateBatchCountsACancelledBatchAgainstTheQuota(t *testing.T) {
	for _, tt := range []struct {
		name    string
		err     error
		counted bool
	}{
		{"cancelled", fmt.Errorf("postgres: commit: %w", context.Canceled), true},
		{"timed out", fmt.Errorf("mysql: %w", context.DeadlineExceeded), true},
		{"refused", fmt.Errorf("sqlite: %w", ports.ErrUnavailable), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, _, _ := newTestQuota(t, 5)
			alarms := NewAlarms(failingBatchStore{err: tt.err}, newTestClock(), nil,
				AlarmsConfig{Defaults: domain.Defaults{MaxFailures: 3}, Quota: q}, nil)
			delay := time.Minute
			specs := make([]domain.Spec, 3)
			for i := range specs {
				specs[i] = domain.Spec{Owner: "alice", Kind: domain.KindOnce, Delay: &delay}
			}
			if _, err := alarms.CreateBatch(t.Context(), specs); !errors.Is(err, tt.err) {
				t.Fatalf("CreateBatch: %v, want the store's %v", err, tt.err)
			}
			err := admit(t, q, "alice", 3, 3)
			switch {
			case tt.counted && !errors.Is(err, domain.ErrQuotaExceeded):
				t.Errorf("3 more of 5 after a batch of 3 that may have committed: %v, want refused", err)
			case !tt.counted && err != nil:
				t.Errorf("3 more of 5 after a batch of 3 that wrote nothing: %v, want admitted", err)
			}
		})
	}
}
