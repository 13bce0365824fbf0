package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

func (s *Store) ExportAlarms(ctx context.Context, after string, limit int) ([]domain.Alarm, error) {
	return txv(s, ctx, func() ([]domain.Alarm, error) {
		rows := s.query(func(a domain.Alarm) bool { return a.ID > after }, byID)
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
		ids := slices.Sorted(maps.Keys(s.events))
		out := []domain.Event{}
		for _, id := range ids {
			if id < after.AlarmID || id > through {
				continue
			}
			for _, ev := range s.events[id] {
				if id == after.AlarmID && ev.ID <= after.ID {
					continue
				}
				if len(out) == limit {
					return out, nil
				}
				out = append(out, ev)
			}
		}
		return out, nil
	})
}

// ImportAlarms is CreateMany, which keeps every field it is given.
func (s *Store) ImportAlarms(ctx context.Context, as []domain.Alarm) error {
	return s.CreateMany(ctx, as)
}

func (s *Store) ImportEvents(ctx context.Context, es []domain.Event) error {
	return s.tx(ctx, func() error {
		s.appendEvents(es)
		return nil
	})
}

func (s *Store) ImportEndpoints(ctx context.Context, es []domain.Endpoint) error {
	return s.tx(ctx, func() error {
		seen := map[ownerName]bool{}
		for _, e := range es {
			k := ownerName{e.Owner, e.Name}
			if _, taken := s.endpoints[k]; taken || seen[k] {
				return fmt.Errorf("memory: endpoint %q of owner %q: %w", e.Name, e.Owner, ports.ErrConflict)
			}
			seen[k] = true
		}
		for _, e := range es {
			s.endpoints[ownerName{e.Owner, e.Name}] = keepEndpoint(e)
		}
		return nil
	})
}
