package ports

import "time"

// Clock tells the time. Stores that compare against a database clock use it only when
// one is injected (tests); the SQLite store always uses it (the process clock by default).
type Clock interface {
	Now() time.Time
}

// SystemClock is the process clock.
type SystemClock struct{}

// Now returns time.Now() in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }
