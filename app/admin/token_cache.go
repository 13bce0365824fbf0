package admin

import (
	"sync"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// tokenCache remembers valid tokens by hash for ttl (see Tokens). Bounded: when it holds
// max entries it is emptied, which costs one store query per token afterwards and
// nothing else; a process authenticating more than max distinct tokens a second gains
// little from a cache anyway.
type tokenCache struct {
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[string]cachedToken
}

type cachedToken struct {
	token   domain.Token
	expires time.Time
}

func newTokenCache(ttl time.Duration, max int) *tokenCache {
	return &tokenCache{ttl: ttl, max: max, entries: map[string]cachedToken{}}
}

// get returns the token cached for hash when its entry has not expired at now.
func (c *tokenCache) get(hash string, now time.Time) (domain.Token, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[hash]
	if !ok || !now.Before(e.expires) {
		return domain.Token{}, false
	}
	return e.token, true
}

// put remembers t, checked valid at now, until now + ttl.
func (c *tokenCache) put(hash string, t domain.Token, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[hash] = cachedToken{token: t, expires: now.Add(c.ttl)}
}

// forget drops the entry of the token with this id, so a revoke on this node takes
// effect at once here (other nodes wait for their entry to expire).
func (c *tokenCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for hash, e := range c.entries {
		if e.token.ID == id {
			delete(c.entries, hash)
		}
	}
}
