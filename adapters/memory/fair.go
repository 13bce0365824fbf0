package memory

import (
	"hash/fnv"

	"github.com/chronoshq/chronos/adapters/internal/claims"
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

// takeFair is the fair claim's choice from due (oldest due first): up to f.PerLane of
// each lane from f.Start on, until batch are taken, counted by lane in taken; a database
// probes its lane index once per lane instead.
func takeFair(due []domain.Alarm, batch int, f ports.FairClaim, taken *claims.Taken) []domain.Alarm {
	var lanes [ports.Lanes][]domain.Alarm
	for _, a := range due {
		lanes[lane(a.Owner)] = append(lanes[lane(a.Owner)], a)
	}
	var took []domain.Alarm
	for i := 0; i < ports.Lanes && len(took) < batch; i++ {
		l := claims.Lane(f.Start, i)
		taken[l] = min(len(lanes[l]), f.PerLane, batch-len(took))
		took = append(took, lanes[l][:taken[l]]...)
	}
	return took
}
