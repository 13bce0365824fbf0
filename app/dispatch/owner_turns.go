package dispatch

// ownerTurns is the delivery pool's queue: one first-in-first-out queue of jobs per
// owner, and the owners with jobs queued in a ring, served one job each in turn. A
// busy owner's thousand queued wakes therefore delay another owner's wake by at most
// one job per owner ahead of it in the ring, not by the thousand. Not safe for
// concurrent use: the pool holds its lock.
type ownerTurns struct {
	queues map[string]*ownerQueue // the owners with jobs queued
	ring   []*ownerQueue          // the same, in turn order
	at     int                    // the ring's next owner
	spare  []*ownerQueue          // emptied queues, reused to spare an allocation per owner and batch
}

type ownerQueue struct {
	owner string
	jobs  []task
	head  int
}

func (t *ownerTurns) empty() bool { return len(t.ring) == 0 }

// push queues job for owner, behind the owner's earlier jobs. An owner new to the ring
// joins just before the owner whose turn is next, so it is served last in this round:
// after every owner already waiting, as a newcomer to a queue would be.
func (t *ownerTurns) push(owner string, job task) {
	q, ok := t.queues[owner]
	if !ok {
		if t.queues == nil {
			t.queues = make(map[string]*ownerQueue)
		}
		if n := len(t.spare); n > 0 {
			q, t.spare = t.spare[n-1], t.spare[:n-1]
		} else {
			q = &ownerQueue{}
		}
		q.owner = owner
		t.queues[owner] = q
		t.ring = append(t.ring, nil)
		copy(t.ring[t.at+1:], t.ring[t.at:])
		t.ring[t.at] = q
		t.at++
		if t.at == len(t.ring) {
			t.at = 0
		}
	}
	q.jobs = append(q.jobs, job)
}

// next takes the head job of the owner whose turn it is; the ring must not be empty.
func (t *ownerTurns) next() task {
	q := t.ring[t.at]
	job := q.jobs[q.head]
	q.jobs[q.head] = task{}
	q.head++
	if q.head < len(q.jobs) {
		if q.head >= 256 && q.head*2 >= len(q.jobs) {
			// A queue that never empties (a backlog's owner) would otherwise grow
			// along its array forever: move what is left to the front.
			n := copy(q.jobs, q.jobs[q.head:])
			clear(q.jobs[n:])
			q.jobs, q.head = q.jobs[:n], 0
		}
		t.at++
	} else {
		// The owner's queue is empty: it leaves the ring, and the owner after it
		// moves into this turn.
		delete(t.queues, q.owner)
		t.ring = append(t.ring[:t.at], t.ring[t.at+1:]...)
		if cap(q.jobs) <= 4096 {
			q.jobs, q.head, q.owner = q.jobs[:0], 0, ""
			t.spare = append(t.spare, q)
		}
	}
	if t.at >= len(t.ring) {
		t.at = 0
	}
	return job
}
