package contract

// The suite, area by area. Each area is a file; each case opens its own store on its
// own database (newHarness(t).NewStore(t, clock)) with its own ManualClock, so cases
// run in parallel and never see each other's rows.
//
//   Capabilities  capabilities.go  declared values are sane; what is declared false
//                                  returns ports.ErrUnsupported; Ping
//   Clock         clock.go         the injected clock is "now": Now, due-ness, leases,
//                                  retry backoff
//   Context       context.go       cancelled contexts come back as context.Canceled
//   Create        create.go        a create (CreateBatch of one): every field round-trips
//                                  (payload byte for byte), duplicate ids, idempotency
//                                  keys (also concurrent)
//   Owner         owner.go         owner scoping of Get/List/Mutate/Events; unknown ids;
//                                  an empty Scope reaches nothing; an owner's list filters
//   List          list.go          newest first, cursor paging, status filter, default
//                                  and maximum page size, bad cursors
//   Mutate        mutate.go        owner actions: what fn sees, no-ops, errors,
//                                  serialisation of concurrent Mutates
//   Events        events.go        the history: created, one per transition event,
//                                  order, fields, limit
//   Attempts      attempts.go      the attempt log: receipts round-trip (bodies byte for
//                                  byte), newest first with a cursor, owner scope, only
//                                  events with a receipt, gone with their events
//   Claim         claim.go         what is claimable, order, batch, the lease stamp,
//                                  lease expiry, NextDue; a plain claim fills its
//                                  batch and takes each owner's oldest
//   FairClaim     fair_claim.go    claims by lane: owners spread over lanes, a burst
//                                  held to PerLane, an owner alone takes the batch,
//                                  rotation from Next, Capped, the plain claim's
//                                  claimable rules and exactly-once, validation
//   Apply         apply.go         fencing: stale transitions change nothing; every
//                                  transition kind round-trips; unfenced transitions
//   Concurrency   concurrency.go   N claimers over many rows: each claimed exactly once;
//                                  claimers racing owner cancels; two Stores (Reopener)
//   Tokens        tokens.go        API token storage
//   Workers       workers.go       worker registration and heartbeats
//   Hints         hints.go         wake hints, for stores that declare WakeHints
//   BatchCreate   batch_create.go  CreateBatch: order, per-item idempotency (in the batch,
//                                  stored, concurrent), an id conflict fails its item only
//   Retention     retention.go     expired terminal alarms deleted with their events and
//                                  nothing else; events by age and per-alarm cap; the
//                                  sweep cursor; cluster leases
//   ExtendLease   extend_lease.go  a claimed alarm's lease kept longer, fenced: a new fence
//                                  replaces the old; a lost lease is ErrLeaseLost
//   Admin         admin.go         any owner's alarm by id; the cross-owner list and its
//                                  filters (label prefix taken literally); retry and
//                                  cancel releasing leases; delete with events; counts
//                                  and the due backlog
//   State         state.go         named cluster values: absent, exact, replaced, stamped
//   Sessions      sessions.go      dashboard sessions by hash: round trip, conflict,
//                                  sign-out, the sweep of expired ones (earliest first,
//                                  bounded, the boundary included)
//   Series        series.go        a cron series' options and state round-trip through
//                                  every read and write (Apply, fenced or stale, Mutate,
//                                  Mutate of any owner); DuePauses: which, in what order, how many
//   Endpoints     endpoints.go     an owner's endpoints: every field round-trips (secrets
//                                  and rate exactly), list order, duplicates, update keeps
//                                  CreatedAt, delete; an alarm's endpoint through every
//                                  create and read, and the claim
//   Trace         trace.go         an alarm's W3C trace context through create, batch
//                                  and bulk create, Get, List, the claim and a notice
//   Quota         quota.go         CountActive: the owner's active and paused alarms only,
//                                  through every change of status; at most atMost
//   BulkCreate    bulk.go          the optional ports.BulkCreator: round trip, created
//                                  events, claimable, all-or-nothing conflicts (each
//                                  case skipped, saying so, on a store without it)
//   Export        export.go        the optional ports.Exporter and ports.Importer: every
//                                  field of every state and history kept, paging, order,
//                                  conflicts, and a round trip into a second store
//   Debounce      debounce.go      creates that replace their key's alarm: fire time,
//                                  payload, max wait; a fired, cancelled or leased alarm
//                                  gives its key to the next; batches; racing creates

import "testing"

// testCase is one conformance case. It receives a fresh store.
type testCase struct {
	name string
	run  func(t *testing.T, e *env)
}

// area groups the cases of one behaviour area (one file).
type area struct {
	name  string
	cases []testCase
}

func areas() []area {
	return []area{
		{"Capabilities", capabilityCases},
		{"Clock", clockCases},
		{"Context", contextCases},
		{"Create", createCases},
		{"Owner", ownerCases},
		{"List", listCases},
		{"Mutate", mutateCases},
		{"Events", eventCases},
		{"Attempts", attemptCases},
		{"Claim", claimCases},
		{"FairClaim", fairClaimCases},
		{"Apply", applyCases()},
		{"Concurrency", concurrencyCases},
		{"Tokens", tokenCases},
		{"Workers", workerCases},
		{"Hints", hintCases},
		{"BulkCreate", bulkCases},
		{"Retention", retentionCases},
		{"BatchCreate", batchCreateCases},
		{"ExtendLease", extendLeaseCases},
		{"Admin", adminCases},
		{"State", stateCases},
		{"Sessions", sessionCases},
		{"Series", seriesCases},
		{"Endpoints", endpointCases},
		{"Trace", traceCases},
		{"Calendars", calendarCases},
		{"Quota", quotaCases},
		{"Export", exportCases},
		{"Tags", tagCases},
		{"Debounce", debounceCases},
	}
}

// Run runs the whole conformance suite against the stores newHarness makes. Call it
// from an ordinary test in the adapter's package:
//
//	func TestContract(t *testing.T) { contract.Run(t, newHarness) }
//
// Narrow it as usual with -run, for example -run 'TestContract/Claim/'.
func Run(t *testing.T, newHarness NewHarness) {
	t.Helper()
	if newHarness == nil {
		t.Fatal("contract.Run: newHarness is nil")
	}
	for _, a := range areas() {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range a.cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.run(t, newEnv(t, newHarness))
				})
			}
		})
	}
}
