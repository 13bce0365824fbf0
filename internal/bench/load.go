package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
)

// Mix describes the alarms a run loads.
type Mix struct {
	// CronFraction of the alarms are cron series (0..1); the rest are once alarms.
	CronFraction float64
	// AtMostOnceFraction of the alarms ask for at-most-once delivery (0..1): each then
	// costs an extra Apply (the advance) before its wake.
	AtMostOnceFraction float64
	// PayloadBytes is the size of each alarm's JSON payload (at least 2 bytes).
	PayloadBytes int
	// Tags gives every alarm two tags (benchTags), for the tag variants of the list
	// benchmark.
	Tags bool
}

// benchTags are the tags of the i-th alarm with Mix.Tags: customer:<(i/10) mod 100> (1%
// of the alarms each, in runs of ten), and plan pro or free (half of each customer's
// each, by thousands). Each run of ten covers every value of i mod 10, so the mix's
// picks by i (picked: a cron fraction of 0.1 takes i mod 10 = 9) fall on every customer
// alike, a tenth of each one's alarms cron series. By i mod 100 every cron series fell
// on the customers 9, 19, ..., 99, and the status=active variant matched nothing.
func benchTags(i int) map[string]string {
	plan := "free"
	if (i/1000)%2 == 0 {
		plan = "pro"
	}
	return map[string]string{"customer": strconv.Itoa((i / 10) % 100), "plan": plan}
}

// Validate refuses a mix that cannot be built.
func (m Mix) Validate() error {
	switch {
	case m.CronFraction < 0 || m.CronFraction > 1:
		return fmt.Errorf("cron fraction must be between 0 and 1, got %g", m.CronFraction)
	case m.AtMostOnceFraction < 0 || m.AtMostOnceFraction > 1:
		return fmt.Errorf("at-most-once fraction must be between 0 and 1, got %g", m.AtMostOnceFraction)
	case m.PayloadBytes < 2 || m.PayloadBytes > domain.MaxPayloadBytes:
		return fmt.Errorf("payload size must be between 2 and %d bytes, got %d", domain.MaxPayloadBytes, m.PayloadBytes)
	}
	return nil
}

// payload is the JSON string every alarm of the mix carries.
func (m Mix) payload() json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("x", m.PayloadBytes-2) + `"`)
}

// Owner owns every alarm a run creates, but for the fairness mode's (BurstOwner,
// QuietOwners).
const Owner = "bench"

// cronSchedules are the series a run's cron alarms follow: a handful of expressions
// and zones, so that a dispatcher that caches parsed schedules is measured as it
// would run in production (many series, few distinct schedules), and one that parses
// per fire pays for it. Each is at most daily, so a run never fires a series twice.
var cronSchedules = []struct{ expr, tz string }{
	{"30 3 * * *", "Europe/Berlin"},
	{"0 9 * * 1-5", "America/New_York"},
	{"15 0 * * *", "UTC"},
	{"0 12 1 * *", "Asia/Tokyo"},
}

// Build makes n alarms of the mix, created at now, with due times spread evenly over
// [from, to). Cron series are made as a series looks after downtime: an occurrence
// already due, whatever its schedule says next.
func Build(n int, m Mix, now, from, to time.Time) ([]domain.Alarm, error) {
	return buildFor(Owner, n, m, now, from, to)
}

// buildFor is Build for alarms of owner.
func buildFor(owner string, n int, m Mix, now, from, to time.Time) ([]domain.Alarm, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	payload := m.payload()
	as := make([]domain.Alarm, n)
	step := to.Sub(from) / time.Duration(max(n, 1))
	for i := range as {
		due := from.Add(time.Duration(i) * step)
		spec := domain.Spec{Owner: owner, Label: "bench", Payload: payload, MaxFailures: 5}
		if m.Tags {
			spec.Tags = benchTags(i)
		}
		isCron := picked(i, m.CronFraction)
		if isCron {
			c := cronSchedules[i%len(cronSchedules)]
			spec.Kind, spec.CronExpr, spec.Timezone = domain.KindCron, c.expr, c.tz
		} else {
			spec.Kind, spec.FireAt = domain.KindOnce, &due
		}
		if picked(i, m.AtMostOnceFraction) {
			spec.Delivery = domain.AtMostOnce
		}
		a, err := domain.NewAlarm(app.NewAlarmID(), spec, now, domain.Defaults{MaxFailures: 5})
		if err != nil {
			return nil, fmt.Errorf("bench: building alarm %d: %w", i, err)
		}
		if isCron {
			a.NextFireAt, a.ScheduledFor = due, due
		}
		as[i] = a
	}
	return as, nil
}

// picked spreads a fraction f evenly over the indexes: alarm i is picked when the
// running count floor(i*f) steps up at it, so exactly floor(n*f) of n are picked.
func picked(i int, f float64) bool {
	return int(float64(i+1)*f) > int(float64(i)*f)
}

// BuildSpecs makes n specs of once alarms of the mix (its cron fraction does not apply:
// a cron series created through the API falls due at its schedule, not within a run),
// due evenly over [from, to): what a client sends to create them. Steady mode creates
// its alarms from these through the real create path (validation, ids, the store's
// CreateBatch), or over HTTP.
func BuildSpecs(n int, m Mix, from, to time.Time) ([]domain.Spec, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	payload := m.payload()
	specs := make([]domain.Spec, n)
	step := to.Sub(from) / time.Duration(max(n, 1))
	for i := range specs {
		due := from.Add(time.Duration(i) * step)
		specs[i] = domain.Spec{Owner: Owner, Label: "bench", Payload: payload, MaxFailures: 5, Kind: domain.KindOnce, FireAt: &due}
		if picked(i, m.AtMostOnceFraction) {
			specs[i].Delivery = domain.AtMostOnce
		}
	}
	return specs, nil
}

// SpecsJSON is the body of POST /v1/alarms/batch for specs made by BuildSpecs.
func SpecsJSON(specs []domain.Spec) []byte {
	var b strings.Builder
	b.WriteString(`{"alarms":[`)
	for i, s := range specs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"kind":"once","label":%q,"fire_at":%q,"payload":%s,"max_failures":%d`,
			s.Label, s.FireAt.UTC().Format(time.RFC3339Nano), s.Payload, s.MaxFailures)
		if s.Delivery != "" {
			fmt.Fprintf(&b, `,"delivery":%q`, s.Delivery)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}
