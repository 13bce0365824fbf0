package claims

import (
	"errors"
	"testing"

	"github.com/chronoshq/chronos/ports"
)

func TestCheck(t *testing.T) {
	for _, f := range []ports.FairClaim{{Start: -1, PerLane: 1}, {Start: ports.Lanes, PerLane: 1}, {Start: 3, PerLane: 0}} {
		if err := checkFair(f); !errors.Is(err, ErrParams) {
			t.Errorf("Check(%+v) = %v, want ErrParams", f, err)
		}
	}
	for _, f := range []ports.FairClaim{{Start: 0, PerLane: 1}, {Start: ports.Lanes - 1, PerLane: 100}} {
		if err := checkFair(f); err != nil {
			t.Errorf("Check(%+v) = %v", f, err)
		}
	}
}

func TestTally(t *testing.T) {
	for _, c := range []struct {
		name              string
		start, per, batch int
		taken             map[int]int
		next, capped      int
	}{
		{"nothing", 5, 2, 10, nil, 6, 0},
		{"nothing from the last lane", ports.Lanes - 1, 2, 10, nil, 0, 0},
		{"not filled", 5, 2, 10, map[int]int{7: 2, 9: 1, 2: 2}, 6, 2},
		{"filled in a capped lane", 60, 2, 4, map[int]int{61: 2, 1: 2}, 2, 2},
		{"filled in a lane below PerLane", 60, 3, 4, map[int]int{61: 3, 1: 1}, 2, 2},
		{"filled, later lanes not visited", 10, 5, 5, map[int]int{10: 5}, 11, 1},
	} {
		var taken Taken
		for l, n := range c.taken {
			taken[l] = n
		}
		next, capped := Tally(ports.FairClaim{Start: c.start, PerLane: c.per}, c.batch, &taken)
		if next != c.next || capped != c.capped {
			t.Errorf("%s: Tally = %d, %d; want %d, %d", c.name, next, capped, c.next, c.capped)
		}
	}
}
