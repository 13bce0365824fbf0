package cli

import (
	"errors"
	"flag"
	"time"

	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
)

// debounceFlags are alarm create's --on-duplicate and --max-wait (docs/schedules.md,
// "Debounce").
type debounceFlags struct {
	onDuplicate *string
	maxWait     *time.Duration
}

func (d *debounceFlags) register(fs *flag.FlagSet) {
	d.onDuplicate = fs.String("on-duplicate", "", `what a repeat of --idempotency-key does: "return" (the default) answers the key's alarm; "replace" moves it to this create's time and payload (debounce)`)
	d.maxWait = fs.Duration("max-wait", 0, "with --on-duplicate replace: fire no later than this long after the key's first create, however often replaced (1h)")
}

// create puts the flags given on req; the server checks the rest.
func (d debounceFlags) create(set map[string]bool, req *client.CreateAlarm) error {
	req.OnDuplicate = domain.OnDuplicate(*d.onDuplicate)
	if set["max-wait"] {
		if *d.maxWait <= 0 {
			return errors.New("alarm create: --max-wait must be positive")
		}
		req.MaxWait = *d.maxWait
	}
	return nil
}
