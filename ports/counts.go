package ports

import (
	"time"

	"github.com/chronoshq/chronos/domain"
)

// MaxDeleteIDs bounds one DeleteAlarms call.
const MaxDeleteIDs = 1000

// AlarmCounts is what CountAlarms saw.
type AlarmCounts struct {
	ByStatus  map[domain.Status]int64 // every status in domain.Statuses, zero included
	Due       int64                   // due and not held by a live lease
	OldestDue time.Time               // the earliest due next_fire_at among those; zero when Due is 0
	Now       time.Time               // the store's now the counts were taken at
}
