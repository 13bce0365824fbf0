package upgradetest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/sqlrow"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// KeepsRows writes as (the columns cols, the first n values of each row) and their
// events into d at version from, opens it migrating to the latest, and checks that
// everything reads back as written, and then check; then it migrates down to from and
// opens it again, and checks the same. Stores are opened on clock.
func KeepsRows[S ports.Store](t *testing.T, d Database[S], from int64, cols string, n int, as []domain.Alarm,
	clock ports.Clock, check func(s S, when string)) {
	t.Helper()
	ctx := t.Context()
	d.At(t, from)
	evs := Events(as)
	for _, a := range as {
		// A row of the current columns begins with the older ones.
		d.Exec(t, `INSERT INTO alarms (`+cols+`) VALUES (`+d.Placeholders(n)+`)`, d.AlarmArgs(a)[:n]...)
	}
	for _, e := range evs {
		d.Exec(t, `INSERT INTO alarm_events (`+sqlrow.EventColumns+`) VALUES (`+d.Placeholders(sqlrow.EventParams)+`)`,
			sqlrow.AppendEvent(nil, e, d.Time)...)
	}
	if d.Written != nil {
		d.Written(t, from)
	}
	for _, when := range []string{"upgraded", "down and up again"} {
		s := d.Store(t, clock)
		CheckAlarms(t, func(owner, id string) (domain.Alarm, error) { return s.Get(ctx, ports.OwnedBy(owner), id) }, as)
		CheckEvents(t, func(owner, id string) ([]domain.Event, error) { return s.Events(ctx, ports.OwnedBy(owner), id, 0) }, as, evs)
		check(s, when)
		closeStore(t, s) // before the schema changes under its cached statements
		if when == "upgraded" {
			d.DownTo(t, from)
		}
	}
}

// seriesKeepsRows is migration 00006 on a database the previous release wrote (at
// from): every alarm (once and cron, in every status, one leased) and every event reads
// back exactly as it was, with no series options and no series state, and no pause is
// due. Rolled back to from and applied again, the same.
func seriesKeepsRows[S ports.Store](t *testing.T, d Database[S], from int64) {
	KeepsRows(t, d, from, AlarmColumnsV5, V5Params, Alarms(t), nil, func(s S, when string) {
		if ids, err := s.DuePauses(t.Context(), 10); err != nil || len(ids) != 0 {
			t.Errorf("%s: DuePauses = %v, %v; want none", when, ids, err)
		}
	})
}

// endpointsKeepsRows is migration 00007 on a database at from: every alarm (series
// with their options and state among them) and every event reads back exactly as it
// was, naming no endpoint, and there is no endpoint. Rolled back to from and applied
// again, the same.
func endpointsKeepsRows[S ports.Store](t *testing.T, d Database[S], from int64) {
	KeepsRows(t, d, from, AlarmColumnsV6, V6Params, AlarmsV6(t), nil, func(s S, when string) {
		if es, err := s.ListEndpoints(t.Context(), ""); err != nil || len(es) != 0 {
			t.Errorf("%s: ListEndpoints = %v, %v; want none", when, es, err)
		}
	})
}

// laneOnlyDueKeepsRows is migration 00010 on a database at from: every alarm and event
// reads back as it was, alarms_due is gone, NextDue finds the earliest unleased active
// alarm through the lanes, and, once every alarm is due, a plain claim and then a fair
// one take every active alarm (the leased one's lease has run out), each once. Rolled
// back to from and applied again, the same.
func laneOnlyDueKeepsRows[S ports.Store](t *testing.T, d Database[S], from int64) {
	as := AlarmsV6(t)
	var active []string
	var first time.Time
	for _, a := range as {
		if a.Status != domain.StatusActive {
			continue
		}
		active = append(active, a.ID)
		if a.ClaimedBy == "" && (first.IsZero() || a.NextFireAt.Before(first)) {
			first = a.NextFireAt
		}
	}
	if len(active) < 2 {
		t.Fatalf("%d active alarms in AlarmsV6, want two or more", len(active))
	}
	slices.Sort(active)
	// A year on, every alarm is due and every lease has run out.
	later := fixedClock(Now.Add(365 * 24 * time.Hour))
	KeepsRows(t, d, from, AlarmColumnsV7, V7Params, as, later, func(s S, when string) {
		ctx := t.Context()
		if d.Indexed(t, "alarms_due") {
			t.Errorf("%s: the index alarms_due is still there", when)
		}
		if at, ok, err := s.NextDue(ctx); err != nil || !ok || !at.Equal(first) {
			t.Errorf("%s: NextDue = %s, %t, %v; want %s", when, at, ok, err, first)
		}
		if when == "upgraded" {
			return // the rows must read back unchanged after the way down and up
		}
		plain, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w1", Lease: time.Minute, Batch: len(active) - 1})
		if err != nil {
			t.Fatal(err)
		}
		fair, err := s.ClaimDue(ctx, ports.ClaimParams{Worker: "w2", Lease: time.Minute, Batch: 10, Fair: &ports.FairClaim{PerLane: 10}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range append(plain.Alarms, fair.Alarms...) {
			got = append(got, a.ID)
		}
		slices.Sort(got)
		if len(plain.Alarms) != len(active)-1 || !slices.Equal(got, active) {
			t.Errorf("%s: plain then fair claim took %v, want the %d active alarms %v (the plain claim all but one)", when, got, len(active), active)
		}
	})
}

// sessionsDropTheCookieKey is migration 00011 on a database at from: the dashboard's
// signing key and the signed-out session ids leave chronos_state, every other named
// value stays. Rolled back and applied again, the same. insertState is the store's
// statement that writes the state named by its one parameter, unless it is there.
func sessionsDropTheCookieKey[S ports.Store](t *testing.T, d Database[S], from int64, insertState string) {
	d.At(t, from)
	for _, when := range []string{"upgraded", "down and up again"} {
		for _, name := range []string{"ui-session-key", "ui-signed-out/0123abcd", "dispatch"} {
			d.Exec(t, insertState, name)
		}
		s := d.Store(t, nil)
		for name, want := range map[string]bool{"ui-session-key": false, "ui-signed-out/0123abcd": false, "dispatch": true} {
			if _, ok, err := s.GetState(t.Context(), name); err != nil || ok != want {
				t.Errorf("%s: state %s present %t (%v), want %t", when, name, ok, err, want)
			}
		}
		closeStore(t, s)
		d.DownTo(t, from)
	}
}

// tokenNoteAndLastUse is the migration after from that gives tokens a note and a last
// use: tokens in use read with no note and never used, and are listed by owner; its
// Down drops the two columns and keeps the rows. insertToken is the store's statement
// that writes token t-old of alice (hash h-old, scope owner) created at its one
// parameter.
func tokenNoteAndLastUse[S ports.Store](t *testing.T, d Database[S], from int64, insertToken string) {
	ctx := t.Context()
	d.At(t, from)
	created := Now
	d.Exec(t, insertToken, d.Time(created))

	s := d.Store(t, nil)
	tok, err := s.TokenByHash(ctx, "h-old")
	if err != nil || tok.ID != "t-old" || tok.Note != "" || !tok.LastUsedAt.IsZero() || !tok.CreatedAt.Equal(created) {
		t.Fatalf("the old token after the upgrade: %+v, %v", tok, err)
	}
	used := created.Add(time.Minute)
	if err := s.TouchToken(ctx, "t-old", used, used.Add(-domain.TokenUseResolution)); err != nil {
		t.Fatal(err)
	}
	if toks, err := s.ListTokens(ctx, "alice"); err != nil || len(toks) != 1 || !toks[0].LastUsedAt.Equal(used) {
		t.Errorf("ListTokens(alice) = %+v, %v; want the old token, used at %s", toks, err, used)
	}
	closeStore(t, s)

	d.DownTo(t, from)
	var owner string
	if err := d.DB.QueryRowContext(ctx, `SELECT owner FROM api_tokens WHERE id = 't-old'`).Scan(&owner); err != nil || owner != "alice" {
		t.Errorf("after Down: token t-old owner %q, %v", owner, err)
	}
	if n := d.Columns(t, "api_tokens", "note", "last_used_at"); n != 0 {
		t.Errorf("after Down: %d of the new columns left", n)
	}
}

// adminScopes is the migration after from that gives tokens scopes, on a database in
// use (its tokens in the table tokens): a token that was admin reads as scope admin and
// the others as owner, a registered worker reads with no version and zero stats and
// takes heartbeats with stats, and new tokens keep the old admin flag in step with
// their scope for older binaries. Its Down leaves the flag on full admin tokens only: a
// read-only admin token must not gain write access by a downgrade, nor come back as
// admin when migrated up again.
func adminScopes[S ports.Store](t *testing.T, d Database[S], from int64, tokens string) {
	ctx := t.Context()
	d.At(t, from)
	insert := `INSERT INTO ` + tokens + ` (id, owner, admin, hash, created_at) VALUES (` + d.Placeholders(5) + `)`
	d.Exec(t, insert, "t-admin", "ops", true, "h-admin", d.Time(Now))
	d.Exec(t, insert, "t-owner", "alice", false, "h-owner", d.Time(Now))
	d.Exec(t, `INSERT INTO workers (id, host, pid, started_at, heartbeat_at) VALUES (`+d.Placeholders(5)+`)`,
		"w-old", "h", 7, d.Time(Now), d.Time(Now))

	s := d.Store(t, nil)
	wantScopes(t, s, "upgraded", map[string]domain.Scope{"h-admin": domain.ScopeAdmin, "h-owner": domain.ScopeOwner})
	ws, err := s.ListWorkers(ctx)
	if err != nil || len(ws) != 1 || ws[0].PID != 7 || ws[0].Version != "" || !reflect.DeepEqual(ws[0].Stats, domain.WorkerStats{}) {
		t.Errorf("workers after the upgrade = %+v, %v; want w-old with no version and zero stats", ws, err)
	}
	stats := domain.WorkerStats{InFlight: 2, Delivered: 9}
	if err := s.Heartbeat(ctx, "w-old", stats); err != nil {
		t.Fatalf("Heartbeat: %v", err)
	}
	if ws, err = s.ListWorkers(ctx); err != nil || len(ws) != 1 || !reflect.DeepEqual(ws[0].Stats, stats) {
		t.Errorf("after a heartbeat: %+v (%v), want stats %+v", ws, err, stats)
	}
	for _, tok := range []domain.Token{
		{ID: "t-read", Owner: "ops", Scope: domain.ScopeAdminRead, Hash: "h-read", CreatedAt: Now},
		{ID: "t-root", Owner: "ops", Scope: domain.ScopeAdmin, Hash: "h-root", CreatedAt: Now},
		{ID: "t-new", Owner: "bob", Scope: domain.ScopeOwner, Hash: "h-new", CreatedAt: Now},
	} {
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatalf("CreateToken(%s): %v", tok.ID, err)
		}
	}
	// What a binary that predates scopes reads.
	wantAdminFlags(t, d, "api_tokens", "at the latest", map[string]bool{"t-admin": true, "t-owner": false, "t-read": true, "t-root": true, "t-new": false})
	closeStore(t, s)

	d.DownTo(t, from)
	wantAdminFlags(t, d, tokens, "after Down", map[string]bool{"t-admin": true, "t-owner": false, "t-read": false, "t-root": true, "t-new": false})
	s = d.Store(t, nil)
	wantScopes(t, s, "down and up again", map[string]domain.Scope{"h-admin": domain.ScopeAdmin, "h-read": domain.ScopeOwner,
		"h-root": domain.ScopeAdmin, "h-new": domain.ScopeOwner})
	closeStore(t, s)
}

// wantScopes checks the scope of the tokens of each hash.
func wantScopes(t *testing.T, s ports.TokenStore, when string, want map[string]domain.Scope) {
	t.Helper()
	for hash, w := range want {
		if tok, err := s.TokenByHash(t.Context(), hash); err != nil || tok.Scope != w {
			t.Errorf("%s: token %s = scope %q, %v; want %q", when, hash, tok.Scope, err, w)
		}
	}
}

// wantAdminFlags checks the old admin flag of the tokens in table.
func wantAdminFlags[S ports.Store](t *testing.T, d Database[S], table, when string, want map[string]bool) {
	t.Helper()
	for id, w := range want {
		var admin bool
		if err := d.DB.QueryRowContext(t.Context(), `SELECT admin FROM `+table+` WHERE id = `+d.Placeholders(1), id).Scan(&admin); err != nil || admin != w {
			t.Errorf("%s: token %s admin = %t, %v; want %t", when, id, admin, err, w)
		}
	}
}

// fixedClock always reads t.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// Upgrades are the versions a store's database is at before each scenario's migration
// (0: the store has no such migration), and the statements of the store's dialect that
// the scenarios take.
type Upgrades struct {
	// adminScopes is before tokens have scopes, in the table OldTokens.
	AdminScopes int64
	OldTokens   string
	// Series, Endpoints and LaneOnlyDue are before 00006, 00007 and 00010.
	Series, Endpoints, LaneOnlyDue int64
	// TokenNote is before tokens have a note; InsertToken as tokenNoteAndLastUse says.
	TokenNote   int64
	InsertToken string
	// Sessions is before 00011; InsertState as sessionsDropTheCookieKey says.
	Sessions    int64
	InsertState string
}

// Run runs every scenario of u, each as a subtest on a database of its own from newDB.
func Run[S ports.Store](t *testing.T, newDB func(*testing.T) Database[S], u Upgrades) {
	for _, c := range []struct {
		name string
		from int64
		run  func(*testing.T, Database[S])
	}{
		{"AdminScopes", u.AdminScopes, func(t *testing.T, d Database[S]) { adminScopes(t, d, u.AdminScopes, u.OldTokens) }},
		{"SeriesKeepsRows", u.Series, func(t *testing.T, d Database[S]) { seriesKeepsRows(t, d, u.Series) }},
		{"EndpointsKeepsRows", u.Endpoints, func(t *testing.T, d Database[S]) { endpointsKeepsRows(t, d, u.Endpoints) }},
		{"TokenNoteAndLastUse", u.TokenNote, func(t *testing.T, d Database[S]) { tokenNoteAndLastUse(t, d, u.TokenNote, u.InsertToken) }},
		{"LaneOnlyDueKeepsRows", u.LaneOnlyDue, func(t *testing.T, d Database[S]) { laneOnlyDueKeepsRows(t, d, u.LaneOnlyDue) }},
		{"SessionsDropTheCookieKey", u.Sessions, func(t *testing.T, d Database[S]) {
			sessionsDropTheCookieKey(t, d, u.Sessions, u.InsertState)
		}},
	} {
		if c.from != 0 {
			t.Run(c.name, func(t *testing.T) { c.run(t, newDB(t)) })
		}
	}
}
