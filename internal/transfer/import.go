package transfer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// Batch sizes of the import's writes: each batch is one transaction.
const (
	alarmBatch    = 500
	eventBatch    = 2000
	calendarBatch = 100
)

// Target is what Import writes: a whole store that implements ports.Importer.
type Target interface {
	ports.Store
	ports.Importer
}

// AsTarget returns s as a Target, or an error saying it cannot be imported into.
func AsTarget(s ports.Store) (Target, error) {
	t, ok := s.(Target)
	if !ok {
		return nil, fmt.Errorf("import: %T: this store cannot be imported into (it does not implement ports.Importer)", s)
	}
	return t, nil
}

// ImportOptions say how Import treats a target that already holds something.
type ImportOptions struct {
	// IntoNonEmpty lets Import write into a store that already holds alarms, endpoints,
	// calendars or tokens. It still refuses any record whose id (an alarm's, a token's)
	// or (owner, name) (an endpoint's, a calendar's) the target holds, and keeps the
	// target's own cluster values.
	IntoNonEmpty bool
}

// ImportResult is what Import wrote.
type ImportResult struct {
	Source string // the header's store kind
	Counts Counts // records written (states: values written)
	// LeasesCleared counts alarms that were leased in the source: their leases were
	// taken by the old cluster's workers and are cleared, so the new cluster claims them.
	LeasesCleared int64
	// StatesKept are the cluster values the target had already (IntoNonEmpty), kept.
	StatesKept []string
}

// ErrNotEmpty is Import's refusal of a target that holds something already.
var ErrNotEmpty = errors.New("the target store is not empty")

// Import writes an export (see Export) into dst: cluster values, endpoints, tokens,
// calendars, then alarms and their histories in batches, each batch one transaction;
// a series keeps the calendars it names (ports.Importer.ImportAlarms writes its
// links). Every alarm's lease is cleared (ImportResult.LeasesCleared). It refuses a
// target that holds any alarm, endpoint, calendar or token unless opts.IntoNonEmpty.
// It reads files of every format from oldestFormat on.
//
// It is not one transaction: when it fails, what was written before stays (the result
// counts it), and the way on is to empty the target (drop and re-create the database)
// and import again. Into an empty target a re-run writes exactly what one run would.
func Import(ctx context.Context, dst Target, r io.Reader, opts ImportOptions) (ImportResult, error) {
	im := &importer{ctx: ctx, dst: dst, opts: opts}
	if !opts.IntoNonEmpty {
		if what, err := holds(ctx, dst); err != nil {
			return im.res, fmt.Errorf("import: checking that the target is empty: %w", err)
		} else if what != "" {
			return im.res, fmt.Errorf("import: %w: it holds %s; import into a new database, or give --into-nonempty to add to it (records whose ids it holds are refused)", ErrNotEmpty, what)
		}
	}
	rd := newReader(r)
	for {
		rec, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return im.res, fmt.Errorf("import: %w", err)
		}
		if err := im.take(rec); err != nil {
			return im.res, fmt.Errorf("import: line %d: %w", rec.line, err)
		}
	}
	if err := im.flushAll(); err != nil {
		return im.res, fmt.Errorf("import: %w", err)
	}
	if rd.header != nil {
		im.res.Source = rd.header.Store
	}
	// Nodes already running on the target cache its endpoints: tell them they changed.
	if err := endpointsChanged(ctx, dst); err != nil {
		return im.res, fmt.Errorf("import: everything is written, but marking the endpoints changed failed (restart the nodes, or change any endpoint): %w", err)
	}
	return im.res, nil
}

// holds says what the store holds of what Import writes ("" for nothing).
func holds(ctx context.Context, s ports.Store) (string, error) {
	var what []string
	as, _, err := s.List(ctx, ports.ListFilter{Scope: ports.AnyOwner, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(as) > 0 {
		what = append(what, "alarms")
	}
	eps, err := s.ListEndpoints(ctx, "")
	if err != nil {
		return "", err
	}
	if len(eps) > 0 {
		what = append(what, fmt.Sprintf("endpoints (%d)", len(eps)))
	}
	if ex, ok := s.(ports.Exporter); ok { // every store has both; ListCalendars is one owner's
		cals, err := ex.ExportCalendars(ctx, ports.CalendarCursor{}, 1)
		if err != nil {
			return "", err
		}
		if len(cals) > 0 {
			what = append(what, "calendars")
		}
	}
	toks, err := s.ListTokens(ctx, "")
	if err != nil {
		return "", err
	}
	if len(toks) > 0 {
		what = append(what, fmt.Sprintf("tokens (%d)", len(toks)))
	}
	return strings.Join(what, ", "), nil
}

type importer struct {
	ctx  context.Context
	dst  Target
	opts ImportOptions
	res  ImportResult

	alarms     []domain.Alarm
	alarmLines []int // the line of each of alarms
	events     []domain.Event
	eventFrom  int
	endpoints  []domain.Endpoint
	epLines    []int
	calendars  []domain.Calendar
	calLines   []int
}

// take handles one record: small tables at once, endpoints, alarms and events in batches.
func (im *importer) take(rec record) error {
	switch {
	case rec.state != nil:
		return im.putState(*rec.state)
	case rec.token != nil:
		return im.createToken(*rec.token)
	case rec.endpoint != nil:
		im.endpoints = append(im.endpoints, *rec.endpoint)
		im.epLines = append(im.epLines, rec.line)
	case rec.calendar != nil:
		im.calendars = append(im.calendars, *rec.calendar)
		im.calLines = append(im.calLines, rec.line)
		if len(im.calendars) == calendarBatch {
			return im.flushCalendars()
		}
	case rec.alarm != nil:
		// Refused endpoints or calendars stop the import before any alarm; a series'
		// calendars are in the target before it.
		if err := im.flushEndpoints(); err != nil {
			return err
		}
		if err := im.flushCalendars(); err != nil {
			return err
		}
		a := *rec.alarm
		if a.Claimed() {
			a.ClaimedBy, a.ClaimedAt = "", time.Time{}
			im.res.LeasesCleared++
		}
		im.alarms = append(im.alarms, a)
		im.alarmLines = append(im.alarmLines, rec.line)
		if len(im.alarms) == alarmBatch {
			return im.flushAlarms()
		}
	case rec.event != nil:
		if len(im.events) == 0 {
			im.eventFrom = rec.line
		}
		im.events = append(im.events, *rec.event)
		if len(im.events) == eventBatch {
			return im.flushEvents()
		}
	}
	return nil
}

func (im *importer) putState(s stateRecord) error {
	if !slices.Contains(MovedStates, s.Name) {
		return fmt.Errorf("cluster value %q is not one that moves (%s)", s.Name, strings.Join(MovedStates, ", "))
	}
	if im.opts.IntoNonEmpty {
		if _, ok, err := im.dst.GetState(im.ctx, s.Name); err != nil {
			return fmt.Errorf("reading the target's cluster value %q: %w", s.Name, err)
		} else if ok {
			im.res.StatesKept = append(im.res.StatesKept, s.Name)
			return nil
		}
	}
	if err := im.dst.PutState(im.ctx, s.Name, s.Value); err != nil {
		return fmt.Errorf("writing the cluster value %q: %w", s.Name, err)
	}
	im.res.Counts.States++
	return nil
}

func (im *importer) createToken(t domain.Token) error {
	if err := im.dst.CreateToken(im.ctx, t); err != nil {
		if errors.Is(err, ports.ErrConflict) {
			return fmt.Errorf("token %s of owner %q: the target holds a token with this id or hash already", t.ID, t.Owner)
		}
		return fmt.Errorf("token %s: %w", t.ID, err)
	}
	im.res.Counts.Tokens++
	return nil
}

func (im *importer) flushAll() error {
	if err := im.flushEndpoints(); err != nil {
		return err
	}
	if err := im.flushCalendars(); err != nil {
		return err
	}
	return im.flushEvents() // alarms first
}

func (im *importer) flushEndpoints() error {
	if len(im.endpoints) == 0 {
		return nil
	}
	if im.opts.IntoNonEmpty {
		for i, e := range im.endpoints {
			if _, err := im.dst.GetEndpoint(im.ctx, e.Owner, e.Name); err == nil {
				return fmt.Errorf("line %d: endpoint %q of owner %q: the target has one of that name already; nothing of the endpoints was written",
					im.epLines[i], e.Name, e.Owner)
			} else if !errors.Is(err, ports.ErrNotFound) {
				return fmt.Errorf("line %d: reading the target's endpoint %s/%s: %w", im.epLines[i], e.Owner, e.Name, err)
			}
		}
	}
	if err := im.dst.ImportEndpoints(im.ctx, im.endpoints); err != nil {
		return fmt.Errorf("endpoints (lines %d to %d): %w", im.epLines[0], im.epLines[len(im.epLines)-1], err)
	}
	im.res.Counts.Endpoints += int64(len(im.endpoints))
	im.endpoints, im.epLines = nil, nil
	return nil
}

func (im *importer) flushCalendars() error {
	if len(im.calendars) == 0 {
		return nil
	}
	if im.opts.IntoNonEmpty {
		for i, c := range im.calendars {
			if _, err := im.dst.GetCalendar(im.ctx, c.Owner, c.Name); err == nil {
				return fmt.Errorf("line %d: calendar %q of owner %q: the target has one of that name already; nothing of its batch (lines %d to %d) was written",
					im.calLines[i], c.Name, c.Owner, im.calLines[0], im.calLines[len(im.calLines)-1])
			} else if !errors.Is(err, ports.ErrNotFound) {
				return fmt.Errorf("line %d: reading the target's calendar %s/%s: %w", im.calLines[i], c.Owner, c.Name, err)
			}
		}
	}
	if err := im.dst.ImportCalendars(im.ctx, im.calendars); err != nil {
		return fmt.Errorf("calendars (lines %d to %d): %w", im.calLines[0], im.calLines[len(im.calLines)-1], err)
	}
	im.res.Counts.Calendars += int64(len(im.calendars))
	im.calendars, im.calLines = im.calendars[:0], im.calLines[:0]
	return nil
}

func (im *importer) flushAlarms() error {
	if len(im.alarms) == 0 {
		return nil
	}
	if im.opts.IntoNonEmpty {
		for i, a := range im.alarms {
			if _, err := im.dst.Get(im.ctx, ports.AnyOwner, a.ID); err == nil {
				return fmt.Errorf("line %d: alarm %s of owner %q: the target holds an alarm with this id already; nothing of its batch (lines %d to %d) was written",
					im.alarmLines[i], a.ID, a.Owner, im.alarmLines[0], im.alarmLines[len(im.alarmLines)-1])
			} else if !errors.Is(err, ports.ErrNotFound) {
				return fmt.Errorf("reading the target's alarm %s: %w", a.ID, err)
			}
		}
	}
	if err := im.dst.ImportAlarms(im.ctx, im.alarms); err != nil {
		if errors.Is(err, ports.ErrConflict) {
			return fmt.Errorf("the alarms of lines %d to %d: an owner's idempotency key among them is taken in the target, or an id or key is repeated; nothing of the batch was written: %w",
				im.alarmLines[0], im.alarmLines[len(im.alarmLines)-1], err)
		}
		return fmt.Errorf("the alarms of lines %d to %d: %w", im.alarmLines[0], im.alarmLines[len(im.alarmLines)-1], err)
	}
	im.res.Counts.Alarms += int64(len(im.alarms))
	im.alarms, im.alarmLines = im.alarms[:0], im.alarmLines[:0]
	return nil
}

// flushEvents writes the pending alarms first: a store may refuse an event of an alarm
// it does not hold.
func (im *importer) flushEvents() error {
	if err := im.flushAlarms(); err != nil {
		return err
	}
	if len(im.events) == 0 {
		return nil
	}
	if err := im.dst.ImportEvents(im.ctx, im.events); err != nil {
		return fmt.Errorf("the %d events from line %d on: %w", len(im.events), im.eventFrom, err)
	}
	im.res.Counts.Events += int64(len(im.events))
	im.events = im.events[:0]
	return nil
}

// endpointsChanged writes a new app.EndpointsChange, as an admin's change does.
func endpointsChanged(ctx context.Context, s ports.Store) error {
	var v [8]byte
	_, _ = rand.Read(v[:]) // never fails (crypto/rand)
	now, err := s.Now(ctx)
	if err != nil {
		return err
	}
	b, err := json.Marshal(app.EndpointsChange{Version: hex.EncodeToString(v[:]), At: now.UTC(), Action: "imported", By: "chronos import"})
	if err != nil {
		return err
	}
	return s.PutState(ctx, app.EndpointsStateName, string(b))
}
