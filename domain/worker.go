package domain

import "time"

// Worker is one dispatcher process, registered so operators can see who holds leases.
type Worker struct {
	ID          string
	Host        string
	PID         int
	StartedAt   time.Time
	HeartbeatAt time.Time
}
