package app

import "github.com/google/uuid"

// NewAlarmID returns a UUIDv7: time-ordered, so ids sort by creation time and the
// owner listing can page by id alone.
func NewAlarmID() string {
	return uuid.Must(uuid.NewV7()).String()
}
