package claims

import (
	"errors"
	"fmt"

	"github.com/chronoshq/chronos/ports"
)

// ErrParams is wrapped by checkFair's errors.
var ErrParams = errors.New("fair claim: Start must be a lane (0 to ports.Lanes-1) and PerLane at least 1")

// checkFair refuses a FairClaim that names no lane or no share.
func checkFair(f ports.FairClaim) error {
	if f.Start < 0 || f.Start >= ports.Lanes || f.PerLane < 1 {
		return fmt.Errorf("%w: got Start %d, PerLane %d", ErrParams, f.Start, f.PerLane)
	}
	return nil
}

// Taken counts a fair claim's alarms by the lane they came from.
type Taken [ports.Lanes]int

// Lane is the i-th lane a claim from start visits (0 <= i < ports.Lanes).
func Lane(start, i int) int { return (start + i) % ports.Lanes }

// Tally is Next and Capped of a fair claim from f.Start that took taken[l] alarms
// from lane l and batch in all at most: the batch filled up in the last lane, in visit
// order, that gave any, if the total is batch.
func Tally(f ports.FairClaim, batch int, taken *Taken) (next, capped int) {
	next, total := Lane(f.Start, 1), 0
	for i := range ports.Lanes {
		l := Lane(f.Start, i)
		n := taken[l]
		total += n
		filled := n > 0 && total == batch
		if filled {
			next = Lane(l, 1)
		}
		if filled || n == f.PerLane {
			capped++
		}
		if filled {
			break
		}
	}
	return next, capped
}
