package ports

import (
	"fmt"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// MaxDeleteIDs bounds one DeleteAlarms call.
const MaxDeleteIDs = 1000

// CheckDeleteIDs is the refusal every store's DeleteAlarms makes of more than
// MaxDeleteIDs ids, before it deletes any: a *domain.ValidationError on "ids".
func CheckDeleteIDs(ids []string) error {
	if len(ids) > MaxDeleteIDs {
		return &domain.ValidationError{Field: "ids", Message: fmt.Sprintf("%d ids, at most %d may be deleted at once", len(ids), MaxDeleteIDs)}
	}
	return nil
}

// AlarmCounts is what CountAlarms saw.
type AlarmCounts struct {
	ByStatus  map[domain.Status]int64 // every status in domain.Statuses, zero included
	Due       int64                   // due and not held by a live lease
	OldestDue time.Time               // the earliest due next_fire_at among those; zero when Due is 0
	Now       time.Time               // the store's now the counts were taken at
}
