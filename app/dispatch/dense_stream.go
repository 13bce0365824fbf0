package dispatch

import (
	"time"

	"github.com/chronoshq/chronos/domain"
)

// denseStream reports whether a claim that took everything due came from a stream so
// dense that the next alarm is most likely due before a read of the next due time
// would come back: its alarms fell due, on average, less than the claim's own round
// trip (took) apart. The loop then claims again at once instead of reading NextDue
// first. In a steady stream that read found the next alarm already due nearly every
// time, and it was a round trip in every cycle of the loop, so each alarm waited for
// it: a longer cycle means larger claims and more lag (docs/benchmarks.md, "The claim
// loop in a dense stream"). Wrong, it costs one claim that finds nothing, about what
// the read costs, and the loop idles after it as before.
//
// Fewer than two alarms say nothing of a stream. An old overdue alarm in the claim
// (a retry, a backlog's tail) widens the span, so the rule errs toward reading.
func denseStream(alarms []domain.Alarm, took time.Duration) bool {
	if len(alarms) < 2 {
		return false
	}
	oldest, newest := dueSpan(alarms)
	return newest.Sub(oldest) < took*time.Duration(len(alarms)-1)
}

// dueSpan is the earliest and the latest due time among alarms (none empty).
func dueSpan(alarms []domain.Alarm) (oldest, newest time.Time) {
	oldest, newest = alarms[0].NextFireAt, alarms[0].NextFireAt
	for i := range alarms {
		at := alarms[i].NextFireAt
		if at.Before(oldest) {
			oldest = at
		}
		if at.After(newest) {
			newest = at
		}
	}
	return oldest, newest
}
