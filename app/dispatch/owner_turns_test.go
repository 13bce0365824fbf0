package dispatch

import (
	"fmt"
	"testing"
)

// drainTurns takes every queued job and returns the owners in the order they were served.
func drainTurns(t *ownerTurns, owners map[int]string) []string {
	var got []string
	for !t.empty() {
		got = append(got, owners[t.next().i])
	}
	return got
}

// A quiet owner's wake queued behind a busy owner's backlog is served second, not
// after the backlog.
func TestOwnerTurnsServeOwnersInTurn(t *testing.T) {
	var q ownerTurns
	owners := map[int]string{}
	i := 0
	add := func(owner string, n int) {
		for range n {
			owners[i] = owner
			q.push(owner, task{i: i})
			i++
		}
	}
	add("busy", 1000)
	add("quiet", 1)
	add("other", 2)
	got := drainTurns(&q, owners)
	want := []string{"busy", "quiet", "other", "busy", "other", "busy"}
	for k, w := range want {
		if got[k] != w {
			t.Fatalf("served %v..., want %v...", got[:len(want)], want)
		}
	}
	if len(got) != 1003 {
		t.Fatalf("served %d jobs, want 1003", len(got))
	}
}

// Within one owner jobs keep their order, and every job is served exactly once, also
// while jobs are queued as others are taken (a queue that never empties is compacted).
func TestOwnerTurnsKeepEachOwnersOrder(t *testing.T) {
	var q ownerTurns
	owners := map[int]string{}
	next := map[string]int{}
	served := map[int]bool{}
	i := 0
	for round := range 50 {
		for k := range 3 {
			owner := fmt.Sprintf("o%d", k)
			for range 20 + round%7 {
				owners[i] = owner
				q.push(owner, task{i: i})
				i++
			}
		}
		for range 40 {
			if q.empty() {
				break
			}
			job := q.next()
			o := owners[job.i]
			if job.i < next[o] || served[job.i] {
				t.Fatalf("job %d of %s served out of order or twice", job.i, o)
			}
			next[o], served[job.i] = job.i, true
		}
	}
	for !q.empty() {
		job := q.next()
		if served[job.i] {
			t.Fatalf("job %d served twice", job.i)
		}
		served[job.i] = true
	}
	if len(served) != i {
		t.Fatalf("served %d jobs of %d", len(served), i)
	}
}

// An owner that comes when others are queued waits for one job of each of them, not
// for their queues.
func TestOwnerTurnsNewcomerWaitsOneRound(t *testing.T) {
	var q ownerTurns
	owners := map[int]string{}
	for i := range 10 {
		owner := fmt.Sprintf("o%d", i%3)
		owners[i] = owner
		q.push(owner, task{i: i})
	}
	q.next() // o0 served; o1's turn is next
	owners[100] = "new"
	q.push("new", task{i: 100})
	got := drainTurns(&q, owners)
	if got[0] != "o1" || got[1] != "o2" || got[2] != "o0" || got[3] != "new" {
		t.Fatalf("served %v, want o1, o2, o0, new first", got)
	}
}
