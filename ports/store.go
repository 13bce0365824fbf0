package ports

import (
	"context"
	"strings"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Store is everything chronos needs from a database. Adapters implement all of it and
// assert so at compile time: var _ ports.Store = (*Store)(nil).
//
// Every method is safe for concurrent use by many goroutines and, for stores that
// declare MultiProcess, by many processes sharing one database.
type Store interface {
	AlarmStore
	ClaimStore
	TokenStore
	WorkerStore
	HintStore
	RetentionStore
	LeaseStore
	StateStore
	SessionStore
	EndpointStore
	QuotaStore
	CalendarStore

	// Capabilities declares what this store can and cannot do. It never changes for the
	// life of the Store.
	Capabilities() Capabilities
	// Now is the store's notion of the current time: the database clock on stores that
	// declare DatabaseClock (unless a Clock was injected), else the injected or process
	// clock. Always UTC.
	Now(ctx context.Context) (time.Time, error)
	// Ping checks that the database answers (readiness).
	Ping(ctx context.Context) error
	// Close releases connections. Calls after Close return errors.
	Close() error
}

// Capabilities is a store's declaration of what it supports. The contract suite skips
// only on a declared capability, and checks that what is declared unsupported really
// returns ErrUnsupported.
type Capabilities struct {
	// DatabaseClock: due-ness, leases and Now come from the database server's clock, so
	// nodes with skewed process clocks agree. False: the process (or injected) clock.
	DatabaseClock bool
	// MultiProcess: several processes (nodes) may claim from one database at once.
	MultiProcess bool
	// WakeHints: PublishHint and SubscribeHints work across processes. When false both
	// return ErrUnsupported and dispatchers rely on polling and in-process hints.
	WakeHints bool
	// TimePrecision is the finest time resolution the store keeps (at most 1ms).
	TimePrecision time.Duration
}

// AlarmStore creates, reads and changes alarms. Every read and change by id takes a
// Scope: the owner API passes OwnedBy(owner), the operator's AnyOwner, and a store
// implements each method once, finding the alarm by id and checking its owner against
// the scope (an alarm the scope does not see is ErrNotFound, exactly as an unknown id,
// so other owners' ids leak nothing).
//
// An alarm's Tags are part of it for every method here and in AlarmReader: written with
// it by CreateBatch (and BulkCreator, Importer), read back by Get, List, Mutate and
// ExportAlarms (nil when none), replaced by a Mutate whose transition carries Define,
// and deleted with it (DeleteAlarms, RetentionStore) in the same transaction. Only
// ClaimDue may return alarms without their tags: wakes do not carry them.
type AlarmStore interface {
	AlarmReader

	// CreateBatch creates every alarm of as (each built by domain.NewAlarm) in one
	// transaction and returns one result per alarm, in order. No created event need be
	// stored: Events puts one first (domain.WithCreated), from the alarm's own row.
	//
	// Each is idempotent on its own key: when a.IdempotencyKey is non-empty and the
	// owner already has an alarm with that key, nothing is written for it and the
	// existing alarm is its result with Deduped, whatever the rest of a says; a key
	// repeated within as makes one alarm, and the later items get it with Deduped. This
	// holds under concurrency with other batches: N simultaneous batches with one key
	// make exactly one row, and all N callers get that row. An id that is already
	// stored is that item's ErrConflict (Err), and the other items are created all the
	// same. Ids within one batch are distinct (the caller made them, as the API does,
	// with domain.NewAlarm); stores need not handle an id repeated in as.
	// An alarm with a Debounce (domain.OnDuplicateReplace) acts on its key's once alarm
	// instead of returning it (a series' key is deduped as above): while that alarm is
	// domain.Replaceable it is replaced (domain.Replace) in one conditional write, WHERE
	// it is still active and unleased, with the replacement's event, and the result is
	// it as replaced, with Replaced; otherwise the alarm gives its key up (it keeps no
	// key: '' or NULL, with a domain.KeyReleased event) and the item is inserted as the
	// key's next alarm. So one owner's key has at most one alarm at a time, and racing
	// replaces of one key end with one active alarm of the key, holding what the last
	// of them to commit wrote; each of them is Replaced but the one that inserted it.
	// Items are settled in order, so a key repeated within as is replaced by each later
	// item with a Debounce in turn. Replace items cost a few statements more each.
	// An error returned by the call itself means nothing was written. Not a round trip
	// per alarm: the API's group commit and its batch endpoint call it to put many
	// creates in one transaction. Stores may split the work into several statements
	// (parameter limits), never several transactions.
	CreateBatch(ctx context.Context, as []domain.Alarm) ([]CreateResult, error)

	// Mutate runs an owner or operator action atomically: it reads the alarm, locked
	// against concurrent writers (row lock, or the single writer), calls fn with it and
	// the store's now, and applies the transition fn returns (unfenced) with its
	// events, all in one transaction. fn returning changed=false commits nothing and
	// Mutate returns the alarm as read; fn returning an error aborts and Mutate returns
	// that error as is. fn must be pure: a store may call it again if it retries the
	// transaction. Owner and operator actions never carry a Notice (only domain.Decide
	// makes one, for Apply), so stores do not insert one here.
	// ErrNotFound when the id is unknown or not in scope.
	Mutate(ctx context.Context, scope Scope, id string, fn MutateFunc) (domain.Alarm, error)

	// DeleteAlarms deletes the alarms with these ids, whatever their owner, status or
	// lease, and all their events, in one transaction: the alarm rows first, then the
	// events of the ids deleted (see RetentionStore for why in that order). Unknown ids
	// are skipped. A worker still delivering a deleted alarm finds its outcome stale. At
	// most MaxDeleteIDs ids per call. Only the operator calls it.
	DeleteAlarms(ctx context.Context, ids []string) (Deleted, error)
}

// AlarmReader is the alarm reads, which a read replica may serve too (ReadReplica).
type AlarmReader interface {
	// Get returns the alarm. ErrNotFound when the id is unknown or not in scope.
	Get(ctx context.Context, scope Scope, id string) (domain.Alarm, error)

	// List returns the alarms in f.Scope that match f, newest first (by id, which is
	// time-ordered), at most min(f.Limit, MaxListLimit) of them; f.Limit <= 0 means
	// DefaultListLimit. The returned cursor is "" on the last page; passing it back
	// continues after the page: after the last alarm returned, or after the last one
	// the store looked at, which may come later. An unparseable cursor is a
	// *domain.ValidationError on "cursor". A scope that sees nothing (Scope.None) is an
	// empty page.
	//
	// A page filtered by more than a status (f.OwnerPage false) may hold fewer than
	// the limit, even none, and still carry a cursor: a store may stop looking after a
	// bounded amount of work, so that a sparse filter costs more pages rather than one
	// long one. Only the empty cursor ends the list; the pages together hold every
	// matching alarm exactly once, in order. An owner page (f.OwnerPage) is always
	// full unless it is the last or ends for its size.
	//
	// Every page ends early, with a cursor, after the alarm that brings what it read
	// past MaxListBytes (payloads and wake messages; a store reading rows may count
	// their other text too): a store reads rows as they come and stops there, so that
	// a page of the largest alarms costs a few MiB, not its limit times 80 KiB.
	//
	// Cost: a page of one owner filtered at most by status walks an index on the
	// owner's alarms from the cursor and stops after the page, however many the owner
	// has; that is the owner API's list, and it must stay so. With the other filters, or
	// across owners, a page's cost may grow with the alarms it skips over that do not
	// match (an operator's filter is not always backed by an index), unless the store
	// cuts the page short as above.
	List(ctx context.Context, f ListFilter) (alarms []domain.Alarm, nextCursor string, err error)

	// Events returns the alarm's history, oldest first, at most min(limit,
	// MaxEventsLimit) rows (limit <= 0 means MaxEventsLimit), beginning with its created
	// event: stores build it from the alarm's row with domain.WithCreated and
	// domain.CreatedEvent rather than write an event row per create (a history that
	// already begins with a stored one keeps it). ErrNotFound when the alarm is unknown
	// or not in scope.
	Events(ctx context.Context, scope Scope, id string, limit int) ([]domain.Event, error)

	// Attempts returns a page of the alarm's attempt log: its stored events that carry
	// a Receipt (domain.Event.IsAttempt), newest first, at most min(q.Limit,
	// MaxAttemptsLimit) of them (q.Limit <= 0: DefaultAttemptsLimit), each with its
	// Receipt as written. The returned cursor is "" on the last page (EncodeAttemptCursor
	// of the last event's id otherwise); passing it back continues with older attempts.
	// A cursor it did not issue is a *domain.ValidationError on "cursor". ErrNotFound
	// when the alarm is unknown or not in q.Scope.
	//
	// Events (the history) need not read the receipts; Attempts must. Cost: a walk of
	// the alarm's own events, newest first from the cursor ((alarm_id, id)), skipping
	// the events that are not attempts; never a scan of other alarms' events.
	Attempts(ctx context.Context, q AttemptsQuery) (attempts []domain.Event, nextCursor string, err error)

	// CountAlarms counts alarms by status, and the due backlog: active alarms whose
	// next_fire_at is at or before the store's now and that no worker holds a live
	// lease on, with the earliest such next_fire_at. It reads every alarm's status (an
	// index walk at best), so callers sample it (seconds apart), never per request.
	CountAlarms(ctx context.Context, lease time.Duration) (AlarmCounts, error)
}

// CreateResult is one item's outcome of AlarmStore.CreateBatch: the stored alarm and
// whether it was deduped or replaced, or Err.
type CreateResult struct {
	Alarm   domain.Alarm
	Deduped bool
	// Replaced: the item replaced its key's alarm (domain.Debounce); Alarm is that alarm
	// as replaced.
	Replaced bool
	Err      error
}

// MutateFunc decides an owner action; see AlarmStore.Mutate.
type MutateFunc func(a domain.Alarm, now time.Time) (t domain.Transition, changed bool, err error)

// List limits.
const (
	DefaultListLimit = 100
	MaxListLimit     = 500
	// MaxListBytes bounds what a page of alarms holds: it ends after the alarm that
	// brings its payloads and wake messages past this many bytes (AlarmReader.List).
	MaxListBytes   = 2 << 20
	MaxEventsLimit = 1000

	DefaultAttemptsLimit = 20
	MaxAttemptsLimit     = 100
)

// AttemptsQuery says which page of an alarm's attempt log AlarmReader.Attempts returns.
type AttemptsQuery struct {
	Scope   Scope
	AlarmID string
	Limit   int
	// Cursor continues after the page that returned it; "" for the newest attempts.
	Cursor string
}

// ListFilter says which alarms AlarmReader.List returns. Zero fields other than Scope do
// not filter; the zero Scope sees nothing, so a filter always says whose alarms it is
// about.
type ListFilter struct {
	Scope       Scope
	Status      domain.Status // "" for every status
	Kind        domain.Kind   // "" for both kinds
	LabelPrefix string        // alarms whose label starts with it (byte-wise, no wildcards)
	// FailedSince: status failed, failed (updated_at) at or after it, compared at the
	// store's TimePrecision (truncated first), so an alarm that failed at exactly this
	// instant is included.
	FailedSince time.Time
	// Tags: alarms that carry every one of these pairs (AND). With one owner in scope a
	// store walks an index on (owner, key, value, id) of the first pair from the cursor
	// and checks the others per row by the alarm's own tags (its primary key), so the
	// page costs the alarms of the first pair it passes over, never the owner's others.
	// When few of those match the other filters, a store may stop the walk after a
	// bounded number of them and return the page short, with the cursor of the last it
	// passed (AlarmReader.List); but it walks at least 16 of them per alarm asked for, so
	// a page fills wherever one in 16 of the first pair's alarms matches. Across owners (AnyOwner) the cost may grow with every
	// tagged alarm.
	Tags   []domain.TagFilter
	Limit  int
	Cursor string
}

// Matches reports whether f selects a, the cursor aside: what each field of f means,
// as a store without an index checks it on every row. FailedSince is compared as given;
// a store truncates it to its TimePrecision first.
func (f ListFilter) Matches(a domain.Alarm) bool {
	return f.Scope.Sees(a.Owner) && (f.Status == "" || a.Status == f.Status) && (f.Kind == "" || a.Kind == f.Kind) &&
		strings.HasPrefix(a.Label, f.LabelPrefix) && domain.MatchesTags(a.Tags, f.Tags) &&
		(f.FailedSince.IsZero() || (a.Status == domain.StatusFailed && !a.UpdatedAt.Before(f.FailedSince)))
}

// OwnerPage reports whether f is a page of one owner's alarms filtered at most by
// status: the owner API's list, which a store serves from its owner index.
func (f ListFilter) OwnerPage() bool {
	return !f.Scope.IsAnyOwner() && f.Kind == "" && f.LabelPrefix == "" && f.FailedSince.IsZero() && len(f.Tags) == 0
}

// ClaimStore is the dispatcher's side: claim due alarms under a lease and apply the
// outcomes, fenced on that lease.
type ClaimStore interface {
	// ClaimDue leases up to p.Batch alarms to p.Worker and returns them oldest due first.
	// Claimable: status active, next_fire_at <= now, and claimed_by NULL or claimed_at
	// older than now - p.Lease. "now" is the store's Now. The claim stamps claimed_by =
	// p.Worker and claimed_at = now in the same statement or transaction as the choice,
	// so no two concurrent ClaimDue calls (goroutines or processes) ever return the same
	// alarm for one lease. Returned alarms carry the new lease; Claimed.Now is the "now"
	// the claim used. Returns an empty slice, not an error, when nothing is due.
	// With p.Fair set the claim shares the batch between owners by lane (FairClaim);
	// without, it is a plain claim (ClaimParams.Fair says what it takes).
	ClaimDue(ctx context.Context, p ClaimParams) (Claimed, error)

	// Apply writes a batch of transitions in one round trip (one transaction), each
	// fenced on its Fence: "WHERE id = t.AlarmID AND claimed_by = Fence.Worker AND
	// claimed_at = Fence.ClaimedAt" (a zero Fence is unfenced). A transition whose fence
	// no longer matches is stale: it changes nothing, its events are not written, and its
	// alarm id is reported in ApplyResult.Stale. The events of applied transitions are
	// appended in the same transaction. Ids in one batch are distinct.
	// An applied transition's Notice is inserted in the same transaction, exactly as
	// AlarmStore.CreateBatch would insert it; a stale one's is not.
	// A notice whose id already exists fails the batch with ErrConflict (its id derives
	// from its alarm's and the time, so this does not happen). A batch without notices
	// must cost nothing more for their sake: it is the dispatcher's hot path.
	// An error means nothing in the batch was applied.
	Apply(ctx context.Context, ts []domain.Transition) (ApplyResult, error)

	// ExtendLease keeps a claimed alarm leased for longer: it sets claimed_at so that
	// the lease expires p.For from the store's now (claimed_at = now + For - Lease,
	// which may lie in the future), and returns the new fence. It is fenced like Apply:
	// when the row no longer carries p.Fence (the lease expired and another worker took
	// it, an owner or admin action released it, or the alarm is gone) nothing changes
	// and the error is ErrLeaseLost. From then on the caller presents the new fence;
	// the old one is stale. The new ClaimedAt is returned exactly as stored (at the
	// store's precision), since it is the fence. An in-process handler's
	// chronos.ExtendLease calls it.
	ExtendLease(ctx context.Context, p ExtendLease) (domain.Fence, error)

	// NextDue returns the earliest next_fire_at among active alarms that no worker has
	// claimed (claimed_by NULL), and false when there is none. Dispatchers use it to
	// sleep precisely. Leased rows are left out on purpose: they are in flight, and an
	// expired lease is found by the dispatcher's regular tick; counting them would make
	// idle dispatchers spin while other workers deliver.
	NextDue(ctx context.Context) (time.Time, bool, error)

	// DuePauses returns the ids of at most limit paused alarms whose paused_until is at
	// or before the store's now, earliest paused_until first; none is an empty slice. It
	// reads, never writes: dispatchers resume each through AlarmStore.Mutate (AnyOwner)
	// with domain.ResumeDue, which checks again under the row lock, so two nodes finding the
	// same alarm resume it once. Its cost must not grow with alarms paused without an
	// end, nor with any other alarm (an index on paused_until of only the rows that have
	// one, where the database has partial indexes).
	DuePauses(ctx context.Context, limit int) ([]string, error)
}

// ExtendLease says which lease to extend, and to when.
type ExtendLease struct {
	AlarmID string
	Fence   domain.Fence  // the lease held now
	Lease   time.Duration // the dispatcher's lease length (claimable once claimed_at < now - Lease)
	For     time.Duration // the lease runs until now + For
}

// ClaimParams says who claims, for how long, and how many.
type ClaimParams struct {
	Worker string
	Lease  time.Duration
	Batch  int
	// Fair, when set, shares the batch between owners (see FairClaim). Nil is a plain
	// claim: it takes Batch alarms whenever that many are claimable (fewer only when
	// concurrent claimers hold some), and of each owner its oldest claimable ones.
	// Across owners it takes either the oldest due first, whoever owns them, or an even
	// share of the batch for every lane with claimable alarms, the share of a lane with
	// fewer going to the lanes that have more (MySQL: it cannot merge the 64 lanes'
	// due order part way, docs/mysql.md). Either way no owner's backlog can take a
	// plain claim whole while another owner's alarms are due and older, and every store
	// reads its due index as far as the batch, never a backlog. The dispatcher makes
	// plain claims while they keep up with what falls due, so the difference shows
	// only in the claim that finds a backlog, after which its claims are fair.
	Fair *FairClaim
}

// Lanes is how many claim lanes a store spreads owners over. Every alarm of one owner
// is in the same lane, a hash of its owner that the store fixes (each store its own,
// e.g. a generated column; the dispatcher never computes it). Owners that share a lane
// are served first come first served between themselves; owners in different lanes
// take turns.
const Lanes = 64

// FairClaim is a claim that serves owners in turn, so that one owner's backlog cannot
// hold back another owner's due alarms.
//
// The store visits lanes Start, Start+1, ... (mod Lanes), each at most once, and takes
// from each at most PerLane of its claimable alarms, oldest due first, until Batch are
// taken. Claimable means exactly what it means for ClaimDue, with the same locking:
// rows another claimer holds are skipped, never waited for. Taking from a lane is one
// indexed probe that reads the lane's due alarms in due order and stops after the rows
// it takes (and the leased rows it skips): never a scan of a lane's backlog, nor of the
// alarms not yet due. The returned alarms are oldest due first, as ClaimDue's.
//
// Claimed.Next and Claimed.Capped tell the caller where to start the next fair claim
// and how many lanes may still have due alarms.
type FairClaim struct {
	Start   int // 0 ≤ Start < Lanes
	PerLane int // ≥ 1
}

// Claimed is the result of one ClaimDue.
type Claimed struct {
	Alarms []domain.Alarm
	Now    time.Time // the store's now at the claim
	// Fair claims only. Next is the lane to start the next fair claim at: the one after
	// the lane in which the batch filled up, or Start+1 (mod Lanes) when it did not fill
	// (every lane was visited). Capped is how many lanes may have claimable alarms left:
	// those that gave PerLane, and the one the batch filled up in.
	Next, Capped int
}

// ApplyResult says what Apply did.
type ApplyResult struct {
	Applied int
	Stale   []string // alarm ids whose fence no longer matched
}

// TokenStore keeps API tokens. Only hashes are stored.
type TokenStore interface {
	// CreateToken stores t. ErrConflict when the id or hash exists.
	CreateToken(ctx context.Context, t domain.Token) error
	// TokenByHash finds a token, revoked or not. ErrNotFound when none has this hash.
	TokenByHash(ctx context.Context, hash string) (domain.Token, error)
	// ListTokens returns the owner's tokens, revoked ones included, or every token when
	// owner is ""; oldest first (created_at, then id). The table holds operators' and
	// services' credentials, so the list is not paged.
	ListTokens(ctx context.Context, owner string) ([]domain.Token, error)
	// RevokeToken marks a token revoked at the store's now. Revoking a revoked token
	// changes nothing. ErrNotFound when the id is unknown.
	RevokeToken(ctx context.Context, id string) error
	// TouchToken records that the token id was used at at: LastUsedAt becomes at when it
	// is zero or before staleBefore, and is left as it is otherwise, so nodes that see
	// the same stale stamp write it once, and a stamp never moves back (staleBefore is
	// at most at). Called in the background, at most once per TokenUseResolution per
	// token and node; an unknown id changes nothing and is not an error.
	TouchToken(ctx context.Context, id string, at, staleBefore time.Time) error
}

// WorkerStore registers dispatcher processes and their heartbeats.
type WorkerStore interface {
	// RegisterWorker inserts or replaces the worker row (w's id, host, pid, version
	// and stats), stamping started_at and heartbeat_at with the store's now.
	RegisterWorker(ctx context.Context, w domain.Worker) error
	// Heartbeat sets heartbeat_at to the store's now and replaces the worker's stats.
	// ErrNotFound when not registered.
	Heartbeat(ctx context.Context, workerID string, stats domain.WorkerStats) error
	// DeregisterWorker removes the row; removing an unknown worker is not an error.
	DeregisterWorker(ctx context.Context, workerID string) error
	// ListWorkers returns registered workers with their stats, oldest first.
	ListWorkers(ctx context.Context) ([]domain.Worker, error)
}

// HintStore carries "an alarm is due soon" between processes so idle dispatchers wake
// at once instead of at their next tick. Optional: see Capabilities.WakeHints.
type HintStore interface {
	// PublishHint tells every subscribed process that an alarm is due at `at`.
	// ErrUnsupported when the store does not declare WakeHints.
	PublishHint(ctx context.Context, at time.Time) error
	// SubscribeHints delivers hints until ctx is done, then closes the channel. The
	// channel is buffered and lossy: a slow reader misses hints, never blocks the store.
	// The subscription reconnects by itself after connection loss. ErrUnsupported when
	// the store does not declare WakeHints.
	SubscribeHints(ctx context.Context) (<-chan time.Time, error)
}
