// Package claims is the part of ClaimDue every store shares (ports.ClaimStore): the
// check of its parameters, the choice between the plain and the fair take, the order
// a fair claim visits lanes in, Claimed.Next and Claimed.Capped from what each lane
// gave, and the order alarms are handed out in. Each store takes and leases the rows
// with its own statements.
package claims

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// ErrNoWorker: a claim without a worker id. claimed_by "" means unclaimed, so such a
// lease would fence nothing.
var ErrNoWorker = errors.New("claim: a worker id is required")

// Check refuses claim parameters no store may serve: no worker, or a FairClaim that
// names no lane or no share.
func Check(p ports.ClaimParams) error {
	if p.Worker == "" {
		return ErrNoWorker
	}
	if p.Fair != nil {
		return checkFair(*p.Fair)
	}
	return nil
}

// Choose is one claim's choice, within whatever transaction the store runs it in:
// plain takes up to p.Batch alarms oldest due first, fairly takes a fair claim's
// (ports.FairClaim), counting in taken the alarms it took from each lane. The store
// leases them in the same transaction, in the same statement or after. Choose tallies a fair claim's Next and Capped and hands the alarms
// out oldest due first (ties by id), never as nil. A batch of 0 or less takes nothing.
func Choose(p ports.ClaimParams, plain func() ([]domain.Alarm, error), fairly func(taken *Taken) ([]domain.Alarm, error)) (ports.Claimed, error) {
	var (
		c     ports.Claimed
		taken Taken
		err   error
	)
	if p.Batch > 0 {
		if p.Fair == nil {
			c.Alarms, err = plain()
		} else {
			c.Alarms, err = fairly(&taken)
		}
		if err != nil {
			return ports.Claimed{}, err
		}
	}
	if p.Fair != nil {
		c.Next, c.Capped = Tally(*p.Fair, p.Batch, &taken)
	}
	if c.Alarms == nil {
		c.Alarms = []domain.Alarm{}
	}
	// Statements return rows in no promised order, and a fair claim's come lane by lane.
	slices.SortFunc(c.Alarms, OldestDueFirst)
	return c, nil
}

// OldestDueFirst orders alarms as a claim hands them out.
func OldestDueFirst(a, b domain.Alarm) int {
	return cmp.Or(a.NextFireAt.Compare(b.NextFireAt), strings.Compare(a.ID, b.ID))
}
