package memory

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// lane is the owner's claim lane. A database keeps it in a generated column of the
// owner and indexes it with next_fire_at over the active rows.
func lane(owner string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(owner)) // a hash never fails to write
	return int(h.Sum32() % ports.Lanes)
}

// checkFair refuses a FairClaim that names no lane or no share.
func checkFair(f ports.FairClaim) error {
	if f.Start < 0 || f.Start >= ports.Lanes || f.PerLane < 1 {
		return fmt.Errorf("memory: fair claim: Start %d must be a lane (0..%d) and PerLane %d at least 1", f.Start, ports.Lanes-1, f.PerLane)
	}
	return nil
}

// takeFair is the fair claim's choice from due (oldest due first): up to f.PerLane of
// each lane from f.Start on, until batch are taken; a database probes its lane index
// once per lane instead. It returns them oldest due first, with Next and Capped.
func takeFair(due []domain.Alarm, batch int, f ports.FairClaim) (took []domain.Alarm, next, capped int) {
	took = []domain.Alarm{}
	lanes := make([][]domain.Alarm, ports.Lanes)
	for _, a := range due {
		lanes[lane(a.Owner)] = append(lanes[lane(a.Owner)], a)
	}
	next = (f.Start + 1) % ports.Lanes
	for i := 0; i < ports.Lanes && len(took) < batch; i++ {
		l := (f.Start + i) % ports.Lanes
		n := min(len(lanes[l]), f.PerLane, batch-len(took))
		took = append(took, lanes[l][:n]...)
		filled := n > 0 && len(took) == batch
		if filled {
			next = (l + 1) % ports.Lanes
		}
		if filled || n == f.PerLane {
			capped++
		}
	}
	slices.SortFunc(took, byDue)
	return took, next, capped
}
