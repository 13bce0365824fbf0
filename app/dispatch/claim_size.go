package dispatch

// claimSize adapts how many alarms the dispatcher asks for in one claim: small when
// little is due, up to the configured Batch under a backlog.
//
// A claim returns only what is due, so asking for more than that costs nothing in the
// database (the LIMIT stops a walk, it does not make one), but a store sizes its scan
// targets for the batch asked for, and at a steady rate a node makes many small claims:
// sized for Batch every time, they were most of the dispatcher's garbage
// (docs/architecture.md, "The dispatcher"). So the size follows what claims return: a
// full claim doubles the next one (a backlog is draining, larger claims amortise each
// statement over more alarms), a partial one brings it down to twice what it returned
// (room to grow at once if the rate rises). Never below minClaimSize, never above Batch.
type claimSize struct {
	max  int
	next int
}

// minClaimSize is the smallest claim asked for. Below it, a claim's fixed cost (a round
// trip and a statement) dominates, and a few more rows cost nothing.
const minClaimSize = 16

func newClaimSize(batch int) *claimSize {
	return &claimSize{max: batch, next: min(minClaimSize, batch)}
}

// want is the size of the next claim.
func (c *claimSize) want() int { return c.next }

// observe adapts to a claim that asked for asked alarms and got got.
func (c *claimSize) observe(asked, got int) {
	if got >= asked {
		c.next = min(max(2*asked, c.next), c.max)
		return
	}
	c.next = min(max(2*got, minClaimSize), c.max)
}
