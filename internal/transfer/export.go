package transfer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// MovedStates are the named cluster values (ports.StateStore) that move with a cluster,
// and why each does:
//   - the dispatch pause gate: an operator who paused dispatching cluster-wide meant the
//     cluster, wherever it runs; a cluster paused before the move starts paused after
//     it, until resumed (docs/migrating-stores.md);
//   - the key of the endpoint secrets' fingerprints: the admin views show the same
//     fingerprints after the move, so a rotation under way can still be followed.
//
// What stays: the endpoints' change marker (Import writes a new one, so any node
// already running on the target reloads the endpoints), the sampled alarm counts and
// the last retention run (each node remakes them), the dashboard's session key and its
// sign-outs (everyone signs in again: a key without its sign-outs would revive signed-out
// sessions), cluster leases and registered workers (they belong to the old nodes).
var MovedStates = []string{chores.DispatchStateName, admin.SecretFingerprintKeyName}

// Page sizes of the export's reads.
const (
	alarmPage    = 500
	eventPage    = 2000
	calendarPage = 100 // up to 2,000 dates and ranges each
)

// Source is what Export reads: a whole store that implements ports.Exporter.
type Source interface {
	ports.Store
	ports.Exporter
}

// ExportOptions describe the export for its header, and what it holds.
type ExportOptions struct {
	ChronosVersion string
	StoreKind      string // sqlite, postgres, mysql
	// Owner, when set, exports that owner alone: its alarms with their histories, its
	// endpoints, calendars and tokens' hashes, and no cluster value (they are the cluster's, not
	// the owner's). It is how an owner moves to another cluster (docs/scaling.md); the
	// alarms are still read in id order across every owner, so it costs a walk of the
	// table, with the events read only for pages that hold the owner's alarms.
	Owner string
}

// ExportResult is what Export wrote and what it saw.
type ExportResult struct {
	Counts Counts // exactly what the file holds
	// Orphans are stored events whose alarm no longer exists (the stores keep no
	// foreign key everywhere): not exported, since no alarm would show them.
	Orphans int64
}

// Export writes every alarm with its stored history, every endpoint with its secrets,
// every token's hash, every exclusion calendar and the cluster values that move, as
// JSON lines: a header, the records (the calendars before the alarms, whose series
// name them), an end line with the counts. The file holds endpoint secrets: the caller
// writes it somewhere private.
//
// It reads the store in pages, not in one snapshot: a store that nodes are writing to
// may be exported half before and half after a change. Stop every node first (the
// caller warns when workers are registered).
func Export(ctx context.Context, src Source, w io.Writer, opts ExportOptions) (ExportResult, error) {
	var res ExportResult
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	write := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("export: writing: %w", err)
		}
		return nil
	}

	// What moves besides alarms is a few rows: read it whole, first, for the header.
	var states []stateRecord
	for _, name := range MovedStates {
		if opts.Owner != "" {
			break
		}
		st, ok, err := src.GetState(ctx, name)
		if err != nil {
			return res, fmt.Errorf("export: reading the cluster value %q: %w", name, err)
		}
		if ok {
			states = append(states, stateRecord{Type: typeState, Name: name, Value: st.Value})
		}
	}
	endpoints, err := src.ListEndpoints(ctx, opts.Owner)
	if err != nil {
		return res, fmt.Errorf("export: listing endpoints: %w", err)
	}
	tokens, err := src.ListTokens(ctx, opts.Owner)
	if err != nil {
		return res, fmt.Errorf("export: listing tokens: %w", err)
	}
	counts, err := src.CountAlarms(ctx, time.Minute)
	if err != nil {
		return res, fmt.Errorf("export: counting alarms: %w", err)
	}
	now, err := src.Now(ctx)
	if err != nil {
		return res, fmt.Errorf("export: reading the store's clock: %w", err)
	}
	h := header{Type: typeHeader, Format: FormatVersion, ChronosVersion: opts.ChronosVersion, Store: opts.StoreKind,
		Owner: opts.Owner, ExportedAt: now.UTC(),
		Counts:  Counts{Endpoints: int64(len(endpoints)), Tokens: int64(len(tokens)), States: int64(len(states))},
		Secrets: "this file holds every endpoint's signing secrets and every token's hash: keep it as private as the database"}
	if opts.Owner == "" { // one owner's alarms are not counted ahead: that is the walk itself
		for _, n := range counts.ByStatus {
			h.Counts.Alarms += n
		}
	}
	if err := write(h); err != nil {
		return res, err
	}

	for _, s := range states {
		if err := write(s); err != nil {
			return res, err
		}
		res.Counts.States++
	}
	for _, e := range endpoints {
		if err := write(endpointToRecord(e)); err != nil {
			return res, err
		}
		res.Counts.Endpoints++
	}
	for _, t := range tokens {
		if err := write(tokenToRecord(t)); err != nil {
			return res, err
		}
		res.Counts.Tokens++
	}
	if err := exportCalendars(ctx, src, opts.Owner, write, &res); err != nil {
		return res, err
	}

	// Alarms page by page in id order, each page followed by the stored events of its
	// alarms, so an import meets an alarm before its history.
	after := ""
	for {
		page, err := src.ExportAlarms(ctx, after, alarmPage)
		if err != nil {
			return res, fmt.Errorf("export: reading alarms after %q: %w", after, err)
		}
		if len(page) == 0 {
			break
		}
		ids := make(map[string]bool, len(page))
		for _, a := range page {
			if opts.Owner != "" && a.Owner != opts.Owner {
				continue
			}
			if err := write(alarmToRecord(a)); err != nil {
				return res, err
			}
			ids[a.ID] = true
			res.Counts.Alarms++
		}
		last := page[len(page)-1].ID
		if len(ids) > 0 || opts.Owner == "" {
			if err := exportEvents(ctx, src, after, last, ids, opts.Owner != "", write, &res); err != nil {
				return res, err
			}
		}
		after = last
	}

	if err := write(end{Type: typeEnd, Counts: res.Counts}); err != nil {
		return res, err
	}
	if err := bw.Flush(); err != nil {
		return res, fmt.Errorf("export: writing: %w", err)
	}
	return res, nil
}

// exportCalendars writes the owner's calendars, or every owner's page by page.
func exportCalendars(ctx context.Context, src Source, owner string, write func(any) error, res *ExportResult) error {
	put := func(cs []domain.Calendar) error {
		for _, c := range cs {
			if err := write(calendarToRecord(c)); err != nil {
				return err
			}
			res.Counts.Calendars++
		}
		return nil
	}
	if owner != "" {
		cs, err := src.ListCalendars(ctx, owner)
		if err != nil {
			return fmt.Errorf("export: listing the calendars of %q: %w", owner, err)
		}
		return put(cs)
	}
	var after ports.CalendarCursor
	for {
		cs, err := src.ExportCalendars(ctx, after, calendarPage)
		if err != nil {
			return fmt.Errorf("export: reading calendars after %s/%s: %w", after.Owner, after.Name, err)
		}
		if len(cs) == 0 {
			return nil
		}
		if err := put(cs); err != nil {
			return err
		}
		last := cs[len(cs)-1]
		after = ports.CalendarCursor{Owner: last.Owner, Name: last.Name}
	}
}

// exportEvents writes the stored events of the alarms with ids in (after, through],
// skipping those whose alarm is not among ids: gone (orphans), or, when oneOwner,
// another owner's.
func exportEvents(ctx context.Context, src Source, after, through string, ids map[string]bool, oneOwner bool, write func(any) error, res *ExportResult) error {
	cur := ports.EventCursor{AlarmID: after, ID: maxEventID}
	if after == "" {
		cur = ports.EventCursor{}
	}
	for {
		evs, err := src.ExportEvents(ctx, cur, through, eventPage)
		if err != nil {
			return fmt.Errorf("export: reading the events of alarms up to %s: %w", through, err)
		}
		if len(evs) == 0 {
			return nil
		}
		for _, e := range evs {
			if !ids[e.AlarmID] {
				if !oneOwner {
					res.Orphans++
				}
				continue
			}
			if err := write(eventToRecord(e)); err != nil {
				return err
			}
			res.Counts.Events++
		}
		last := evs[len(evs)-1]
		cur = ports.EventCursor{AlarmID: last.AlarmID, ID: last.ID}
	}
}

// maxEventID puts a cursor past every event of its alarm: the events of the previous
// page's last alarm are written already.
const maxEventID = 1<<63 - 1

// LiveWorkers returns the workers whose heartbeat is more recent than within of the
// store's now: nodes that may be writing while an export reads.
func LiveWorkers(ctx context.Context, s ports.Store, within time.Duration) ([]domain.Worker, error) {
	ws, err := s.ListWorkers(ctx)
	if err != nil {
		return nil, err
	}
	now, err := s.Now(ctx)
	if err != nil {
		return nil, err
	}
	var live []domain.Worker
	for _, w := range ws {
		if now.Sub(w.HeartbeatAt) < within {
			live = append(live, w)
		}
	}
	return live, nil
}

// errNotExporter is returned for a store without ports.Exporter.
var errNotExporter = errors.New("this store cannot be exported (it does not implement ports.Exporter)")

// AsSource returns s as a Source, or an error saying it cannot be exported.
func AsSource(s ports.Store) (Source, error) {
	src, ok := s.(Source)
	if !ok {
		return nil, fmt.Errorf("export: %T: %w", s, errNotExporter)
	}
	return src, nil
}
