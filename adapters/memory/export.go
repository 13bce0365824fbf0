package memory

import (
	"context"
	"maps"
	"slices"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

func (s *Store) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	return txv(s, ctx, func() ([]domain.Alarm, error) {
		rows := s.alarms.rows(func(a domain.Alarm) bool { return a.ID > after }, byID)
		rows = rows[:min(limit, len(rows))]
		for i, a := range rows {
			rows[i] = out(a)
		}
		return rows, nil
	})
}

// ExportEvents walks the events table by (alarm id, event id), as a database walks its
// index on them; events of removed alarms are removed with them here, so none is orphaned.
func (s *Store) ExportEvents(ctx context.Context, after ports.EventCursor, through string, limit int) ([]domain.Event, error) {
	return txv(s, ctx, func() ([]domain.Event, error) {
		evs := []domain.Event{}
		for _, id := range slices.Sorted(maps.Keys(s.events)) {
			for _, ev := range s.events[id] {
				if len(evs) < limit && id <= through && (id > after.AlarmID || (id == after.AlarmID && ev.ID > after.ID)) {
					evs = append(evs, ev)
				}
			}
		}
		return evs, nil
	})
}

func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	return s.tx(ctx, func() error { s.appendEvents(es); return nil })
}

// ImportEndpoints writes into a copy of the table, kept only when every row went in:
// all or nothing, as a database's transaction.
func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	return s.tx(ctx, func() error {
		endpoints := maps.Clone(s.endpoints)
		for _, e := range es {
			if err := endpoints.insert(ownerKey{e.Owner, e.Name}, keepEndpoint(e)); err != nil {
				return err
			}
		}
		s.endpoints = endpoints
		return nil
	})
}
