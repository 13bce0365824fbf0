// Package contract is the store conformance suite: the executable form of the promises
// in package ports. An adapter is correct when Run passes against it.
//
// It imports only domain, ports and the standard library, so an adapter written outside
// this repository can run it without pulling in any database driver. It keeps no store
// of its own: its self-test is adapters/memory's TestContract, the reference store that
// must pass every case, so a failure there that no real store explains is a bug in the
// suite. docs/writing-an-adapter.md walks through writing a store and its harness.
//
// # Writing a harness
//
// A harness makes stores. Run calls newHarness once per subtest and then
// Harness.NewStore, which must open the adapter on a fresh, empty, migrated database (or
// schema) that no other subtest shares, wired to the given clock, and register
// t.Cleanup to close the store and drop what it created. Every subtest gets its own
// database, so the suite runs them in parallel.
//
//	type harness struct{}
//
//	func (harness) NewStore(t *testing.T, clock ports.Clock) ports.Store {
//		dsn := "file:" + filepath.Join(t.TempDir(), "chronos.db")
//		s, err := mystore.Open(dsn, mystore.Options{Clock: clock})
//		if err != nil {
//			t.Fatalf("open: %v", err)
//		}
//		t.Cleanup(func() { _ = s.Close() })
//		return s
//	}
//
//	func TestContract(t *testing.T) {
//		contract.Run(t, func(t *testing.T) contract.Harness { return harness{} })
//	}
//
// A store that needs a server (PostgreSQL, MySQL) creates a uniquely named database or
// schema in NewStore and drops it in the cleanup. When the server is unreachable the
// harness decides: t.Skip on a developer machine, t.Fatal in CI.
//
// The clock passed to NewStore is a *ManualClock. The store must take every "now" from
// it — due-ness, leases, stamps, Now — even when it declares DatabaseClock, so the
// suite can make alarms due and leases expire without sleeping.
//
// A harness that can open a second Store on the database its last NewStore created
// (as a second process would) implements Reopener; stores that declare MultiProcess are
// then also tested with claimers spread over two Store values.
//
// # What the suite assumes, and what it does not
//
//   - Stores keep times to Capabilities().TimePrecision; the suite compares every time
//     within that tolerance, and the zero time must come back zero.
//   - Errors are checked with errors.Is against the ports sentinels (ErrNotFound,
//     ErrConflict, ErrUnsupported), errors.As for *domain.ValidationError, and context
//     errors must pass through untouched. Message text is never matched.
//   - The suite skips only on a declared capability, and checks that every operation of
//     a capability declared false really returns ports.ErrUnsupported.
//   - It never branches on which database is behind the store.
package contract
