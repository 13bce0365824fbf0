package sqlrow

import (
	"time"

	"github.com/chronoshq/chronos/domain"
)

// EventColumns are the columns an event insert writes, in AppendEvent's order (the id
// is the database's).
const EventColumns = `alarm_id, type, at, attempt, scheduled_for, worker, message`

// EventParams is how many values one event row binds.
const EventParams = 7

// AppendEvent appends e's values, in EventColumns order, to args; timeArg is how the
// store binds a time (at its precision, NULL for the zero time). Appending, not
// returning a slice, keeps a batch of events at one allocation of args.
func AppendEvent(args []any, e domain.Event, timeArg func(time.Time) any) []any {
	return append(args, e.AlarmID, string(e.Type), timeArg(e.At), e.Attempt, timeArg(e.ScheduledFor), e.Worker, e.Message)
}
