package contract

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// memStore is a small in-memory reference store. It exists only to test the suite
// itself: every case must pass against a store that does what ports says, so a
// failure here is a bug in the suite, not in an adapter. It keeps times to the
// microsecond, like PostgreSQL, so the suite's tolerance handling is exercised.
type memStore struct {
	mu      sync.Mutex
	clock   ports.Clock
	alarms  map[string]domain.Alarm
	events  []domain.Event
	tokens  []domain.Token
	workers map[string]domain.Worker
	nextEv  int64
	leaseOf map[string]memLease
	state   map[string]ports.State
}

var _ ports.Store = (*memStore)(nil)

const memPrecision = time.Microsecond

func memTrunc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(memPrecision)
}

func memAlarm(a domain.Alarm) domain.Alarm {
	for _, p := range []*time.Time{&a.FireAt, &a.NextFireAt, &a.ScheduledFor, &a.ClaimedAt, &a.CreatedAt, &a.UpdatedAt, &a.LastFiredAt} {
		*p = memTrunc(*p)
	}
	a.Payload = append([]byte(nil), a.Payload...)
	return a
}

func (s *memStore) Capabilities() ports.Capabilities {
	return ports.Capabilities{TimePrecision: memPrecision}
}

func (s *memStore) now() time.Time { return memTrunc(s.clock.Now()) }

func (s *memStore) Now(ctx context.Context) (time.Time, error) { return s.now(), ctx.Err() }
func (s *memStore) Ping(ctx context.Context) error             { return ctx.Err() }
func (s *memStore) Close() error                               { return nil }

func (s *memStore) appendEvents(evs []domain.Event) {
	for _, ev := range evs {
		s.nextEv++
		ev.ID = s.nextEv
		ev.At, ev.ScheduledFor = memTrunc(ev.At), memTrunc(ev.ScheduledFor)
		s.events = append(s.events, ev)
	}
}

func (s *memStore) Create(ctx context.Context, a domain.Alarm) (domain.Alarm, bool, error) {
	if err := ctx.Err(); err != nil {
		return domain.Alarm{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.createLocked(a)
	return r.Alarm, r.Deduped, r.Err
}

func (s *memStore) createLocked(a domain.Alarm) ports.CreateResult {
	if a.IdempotencyKey != "" {
		for _, b := range s.alarms {
			if b.Owner == a.Owner && b.IdempotencyKey == a.IdempotencyKey {
				return ports.CreateResult{Alarm: b, Deduped: true}
			}
		}
	}
	if _, ok := s.alarms[a.ID]; ok {
		return ports.CreateResult{Err: ports.ErrConflict}
	}
	a = memAlarm(a)
	s.alarms[a.ID] = a
	s.appendEvents([]domain.Event{{AlarmID: a.ID, Type: domain.EventCreated, At: a.CreatedAt}})
	return ports.CreateResult{Alarm: a}
}

func (s *memStore) CreateBatch(ctx context.Context, as []domain.Alarm) ([]ports.CreateResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ports.CreateResult, len(as))
	for i, a := range as {
		out[i] = s.createLocked(a)
	}
	return out, nil
}

// CreateMany is all or nothing: every id and key is checked before anything is written.
func (s *memStore) CreateMany(ctx context.Context, as []domain.Alarm) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := map[string]bool{}
	keys := map[[2]string]bool{}
	for _, b := range s.alarms {
		if b.IdempotencyKey != "" {
			keys[[2]string{b.Owner, b.IdempotencyKey}] = true
		}
	}
	for _, a := range as {
		k := [2]string{a.Owner, a.IdempotencyKey}
		if _, taken := s.alarms[a.ID]; taken || ids[a.ID] || (a.IdempotencyKey != "" && keys[k]) {
			return ports.ErrConflict
		}
		ids[a.ID] = true
		if a.IdempotencyKey != "" {
			keys[k] = true
		}
	}
	for _, a := range as {
		a = memAlarm(a)
		s.alarms[a.ID] = a
		s.appendEvents([]domain.Event{{AlarmID: a.ID, Type: domain.EventCreated, At: a.CreatedAt}})
	}
	return nil
}

var _ ports.BulkCreator = (*memStore)(nil)

func (s *memStore) owned(owner, id string) (domain.Alarm, error) {
	a, ok := s.alarms[id]
	if !ok || a.Owner != owner {
		return domain.Alarm{}, ports.ErrNotFound
	}
	return a, nil
}

func (s *memStore) Get(ctx context.Context, owner, id string) (domain.Alarm, error) {
	if err := ctx.Err(); err != nil {
		return domain.Alarm{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owned(owner, id)
}

func (s *memStore) List(ctx context.Context, owner string, f ports.ListFilter) ([]domain.Alarm, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	after := ""
	if f.Cursor != "" {
		b, err := hex.DecodeString(strings.TrimPrefix(f.Cursor, "c:"))
		if err != nil || !strings.HasPrefix(f.Cursor, "c:") || len(b) != 36 {
			return nil, "", &domain.ValidationError{Field: "cursor", Message: "is not a cursor from this store"}
		}
		after = string(b)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultListLimit
	}
	limit = min(limit, ports.MaxListLimit)
	s.mu.Lock()
	var out []domain.Alarm
	for _, a := range s.alarms {
		if a.Owner == owner && (f.Status == "" || a.Status == f.Status) && (after == "" || a.ID < after) {
			out = append(out, a)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(x, y domain.Alarm) int { return strings.Compare(y.ID, x.ID) })
	if len(out) <= limit {
		return out, "", nil
	}
	out = out[:limit]
	return out, "c:" + hex.EncodeToString([]byte(out[limit-1].ID)), nil
}

func (s *memStore) apply(t domain.Transition) bool {
	a, ok := s.alarms[t.AlarmID]
	if !ok {
		return false
	}
	if !t.Fence.IsZero() && (a.ClaimedBy != t.Fence.Worker || !a.ClaimedAt.Equal(t.Fence.ClaimedAt)) {
		return false
	}
	s.alarms[a.ID] = memAlarm(t.ApplyTo(a))
	s.appendEvents(t.Events)
	return true
}

func (s *memStore) Mutate(ctx context.Context, owner, id string, fn ports.MutateFunc) (domain.Alarm, error) {
	if err := ctx.Err(); err != nil {
		return domain.Alarm{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.owned(owner, id)
	if err != nil {
		return domain.Alarm{}, err
	}
	t, changed, err := fn(a, s.now())
	if err != nil || !changed {
		return a, err
	}
	t.Fence = domain.Fence{}
	s.apply(t)
	return s.alarms[id], nil
}

func (s *memStore) Events(ctx context.Context, owner, id string, limit int) ([]domain.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.owned(owner, id); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > ports.MaxEventsLimit {
		limit = ports.MaxEventsLimit
	}
	var out []domain.Event
	for _, ev := range s.events {
		if ev.AlarmID == id && len(out) < limit {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (s *memStore) ClaimDue(ctx context.Context, p ports.ClaimParams) (ports.Claimed, error) {
	if err := ctx.Err(); err != nil {
		return ports.Claimed{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var due []domain.Alarm
	for _, a := range s.alarms {
		if a.Status == domain.StatusActive && !a.NextFireAt.After(now) &&
			(a.ClaimedBy == "" || a.ClaimedAt.Before(now.Add(-p.Lease))) {
			due = append(due, a)
		}
	}
	slices.SortFunc(due, func(x, y domain.Alarm) int {
		return cmp.Or(x.NextFireAt.Compare(y.NextFireAt), strings.Compare(x.ID, y.ID))
	})
	due = due[:min(len(due), p.Batch)]
	for i := range due {
		due[i].ClaimedBy, due[i].ClaimedAt = p.Worker, now
		s.alarms[due[i].ID] = due[i]
	}
	return ports.Claimed{Alarms: due, Now: now}, nil
}

func (s *memStore) Apply(ctx context.Context, ts []domain.Transition) (ports.ApplyResult, error) {
	if err := ctx.Err(); err != nil {
		return ports.ApplyResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var r ports.ApplyResult
	for _, t := range ts {
		if s.apply(t) {
			r.Applied++
		} else {
			r.Stale = append(r.Stale, t.AlarmID)
		}
	}
	return r, nil
}

func (s *memStore) NextDue(ctx context.Context) (time.Time, bool, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, a := range s.alarms {
		if a.Status == domain.StatusActive && a.ClaimedBy == "" && (next.IsZero() || a.NextFireAt.Before(next)) {
			next = a.NextFireAt
		}
	}
	return next, !next.IsZero(), nil
}

func (s *memStore) CreateToken(ctx context.Context, t domain.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.tokens {
		if u.ID == t.ID || u.Hash == t.Hash {
			return ports.ErrConflict
		}
	}
	t.CreatedAt, t.RevokedAt = memTrunc(t.CreatedAt), memTrunc(t.RevokedAt)
	s.tokens = append(s.tokens, t)
	return nil
}

func (s *memStore) TokenByHash(ctx context.Context, hash string) (domain.Token, error) {
	if err := ctx.Err(); err != nil {
		return domain.Token{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tokens {
		if t.Hash == hash {
			return t, nil
		}
	}
	return domain.Token{}, ports.ErrNotFound
}

func (s *memStore) ListTokens(ctx context.Context) ([]domain.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tokens), nil
}

func (s *memStore) RevokeToken(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, t := range s.tokens {
		if t.ID == id {
			if t.RevokedAt.IsZero() {
				s.tokens[i].RevokedAt = s.now()
			}
			return nil
		}
	}
	return ports.ErrNotFound
}

func (s *memStore) RegisterWorker(ctx context.Context, w domain.Worker) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w.StartedAt, w.HeartbeatAt = s.now(), s.now()
	s.workers[w.ID] = w
	return nil
}

func (s *memStore) Heartbeat(ctx context.Context, id string, stats domain.WorkerStats) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.workers[id]
	if !ok {
		return ports.ErrNotFound
	}
	w.HeartbeatAt, w.Stats = s.now(), stats
	s.workers[id] = w
	return nil
}

func (s *memStore) DeregisterWorker(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.workers, id)
	return nil
}

func (s *memStore) ListWorkers(ctx context.Context) ([]domain.Worker, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []domain.Worker
	for _, w := range s.workers {
		out = append(out, w)
	}
	slices.SortFunc(out, func(x, y domain.Worker) int { return x.StartedAt.Compare(y.StartedAt) })
	return out, nil
}

func (s *memStore) PublishHint(context.Context, time.Time) error { return ports.ErrUnsupported }

func (s *memStore) SubscribeHints(context.Context) (<-chan time.Time, error) {
	return nil, ports.ErrUnsupported
}

type memHarness struct{}

func (memHarness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
	return &memStore{clock: clock, alarms: map[string]domain.Alarm{}, workers: map[string]domain.Worker{}}
}

// TestSuiteAgainstReference runs the suite against memStore: the suite's own test.
func TestSuiteAgainstReference(t *testing.T) {
	Run(t, func(*testing.T) Harness { return memHarness{} })
}

func terminal(s domain.Status) bool {
	return s == domain.StatusFired || s == domain.StatusCancelled || s == domain.StatusFailed
}

func (s *memStore) DeleteExpiredAlarms(ctx context.Context, p ports.ExpiredAlarms) (ports.Deleted, error) {
	if err := ctx.Err(); err != nil {
		return ports.Deleted{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var expired []domain.Alarm
	for _, a := range s.alarms {
		if terminal(a.Status) && a.ClaimedBy == "" && a.UpdatedAt.Before(p.Before) {
			expired = append(expired, a)
		}
	}
	slices.SortFunc(expired, func(a, b domain.Alarm) int { return a.UpdatedAt.Compare(b.UpdatedAt) })
	gone := map[string]bool{}
	for _, a := range expired[:min(len(expired), p.Limit)] {
		gone[a.ID] = true
		delete(s.alarms, a.ID)
	}
	before := len(s.events)
	s.events = slices.DeleteFunc(s.events, func(ev domain.Event) bool { return gone[ev.AlarmID] })
	return ports.Deleted{Alarms: len(gone), Events: before - len(s.events)}, nil
}

func (s *memStore) TrimEvents(ctx context.Context, p ports.TrimEvents) (ports.Trimmed, error) {
	if err := ctx.Err(); err != nil {
		return ports.Trimmed{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.alarms {
		if id > p.After {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var out ports.Trimmed
	if len(ids) > p.Alarms {
		ids = ids[:p.Alarms]
		out.Next = ids[len(ids)-1]
	} else if len(ids) == p.Alarms && len(ids) > 0 {
		out.Next = ids[len(ids)-1]
	}
	drop := map[int64]bool{}
	for _, id := range ids {
		var evs []domain.Event // in id order: appended so
		for _, ev := range s.events {
			if ev.AlarmID == id {
				evs = append(evs, ev)
			}
		}
		for i, ev := range evs {
			if ev.At.Before(p.Before) || (p.Keep > 0 && i < len(evs)-p.Keep) {
				drop[ev.ID] = true
			}
		}
	}
	before := len(s.events)
	s.events = slices.DeleteFunc(s.events, func(ev domain.Event) bool { return drop[ev.ID] })
	out.Events = before - len(s.events)
	return out, nil
}

type memLease struct {
	holder  string
	expires time.Time
}

// leases is the store's lease table; callers hold mu.
func (s *memStore) leases() map[string]memLease {
	if s.leaseOf == nil {
		s.leaseOf = map[string]memLease{}
	}
	return s.leaseOf
}

func (s *memStore) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	l, ok := s.leases()[name]
	if ok && l.holder != holder && l.expires.After(now) {
		return false, nil
	}
	s.leases()[name] = memLease{holder: holder, expires: now.Add(ttl)}
	return true, nil
}

func (s *memStore) ReleaseLease(ctx context.Context, name, holder string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.leases()[name]; ok && l.holder == holder {
		delete(s.leases(), name)
	}
	return nil
}
