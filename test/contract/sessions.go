package contract

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chronoshq/chronos/ports"
)

var sessionCases = []testCase{
	{"RoundTripAndConflict", testSessionRoundTrip},
	{"DeleteIsASignOut", testSessionDelete},
	{"DeleteExpired", testSessionDeleteExpired},
}

func (e *env) createSession(hash string, expires time.Time) ports.Session {
	e.t.Helper()
	s := ports.Session{Hash: hash, TokenHash: "tokhash-" + hash, CreatedAt: e.now(), ExpiresAt: expires}
	if err := e.store.CreateSession(e.ctx, s); err != nil {
		e.t.Fatalf("CreateSession(%s): %v", hash, err)
	}
	return s
}

func (e *env) hasSession(hash string) bool {
	e.t.Helper()
	_, err := e.store.SessionByHash(e.ctx, hash)
	if err != nil && !errors.Is(err, ports.ErrNotFound) {
		e.t.Fatalf("SessionByHash(%s): %v", hash, err)
	}
	return err == nil
}

// A session reads back exactly, expired or not (the caller judges expiry); a second
// session with the same hash is a conflict; an unknown hash is ErrNotFound.
func testSessionRoundTrip(t *testing.T, e *env) {
	want := e.createSession("aa01", e.now().Add(12*time.Hour))
	got, err := e.store.SessionByHash(e.ctx, "aa01")
	if err != nil || got.Hash != want.Hash || got.TokenHash != want.TokenHash ||
		!e.sameTime(got.CreatedAt, want.CreatedAt) || !e.sameTime(got.ExpiresAt, want.ExpiresAt) {
		t.Errorf("SessionByHash = %+v, %v; want %+v", got, err, want)
	}
	past := e.createSession("aa02", e.now().Add(-time.Second))
	if got, err := e.store.SessionByHash(e.ctx, "aa02"); err != nil || !e.sameTime(got.ExpiresAt, past.ExpiresAt) {
		t.Errorf("an expired session = %+v, %v; want it read back as stored", got, err)
	}
	dup := ports.Session{Hash: "aa01", TokenHash: "other", CreatedAt: e.now(), ExpiresAt: e.now().Add(time.Hour)}
	if err := e.store.CreateSession(e.ctx, dup); !errors.Is(err, ports.ErrConflict) {
		t.Errorf("CreateSession with a stored hash = %v, want ErrConflict", err)
	}
	if _, err := e.store.SessionByHash(e.ctx, "nope"); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("SessionByHash of an unknown hash = %v, want ErrNotFound", err)
	}
}

// DeleteSession removes that session only; deleting it again, or an unknown one, is
// not an error.
func testSessionDelete(t *testing.T, e *env) {
	e.createSession("bb01", e.now().Add(time.Hour))
	e.createSession("bb02", e.now().Add(time.Hour))
	for range 2 {
		if err := e.store.DeleteSession(e.ctx, "bb01"); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
	}
	if e.hasSession("bb01") || !e.hasSession("bb02") {
		t.Errorf("after deleting bb01: bb01 present %t, bb02 present %t; want false, true", e.hasSession("bb01"), e.hasSession("bb02"))
	}
}

// DeleteExpiredSessions removes sessions expired at `before` (the boundary included),
// earliest first, at most limit, and never a live one.
func testSessionDeleteExpired(t *testing.T, e *env) {
	before := e.now()
	for i := range 5 {
		e.createSession(fmt.Sprintf("cc%02d", i), before.Add(-time.Duration(5-i)*time.Minute)) // cc00 earliest
	}
	e.createSession("cc-boundary", before)
	e.createSession("cc-live", before.Add(time.Millisecond*10))
	n, err := e.store.DeleteExpiredSessions(e.ctx, before, 2)
	if err != nil || n != 2 {
		t.Fatalf("DeleteExpiredSessions(limit 2) = %d, %v; want 2", n, err)
	}
	if e.hasSession("cc00") || e.hasSession("cc01") || !e.hasSession("cc02") {
		t.Errorf("the first batch did not take the earliest two")
	}
	n, err = e.store.DeleteExpiredSessions(e.ctx, before, 100)
	if err != nil || n != 4 {
		t.Fatalf("DeleteExpiredSessions(limit 100) = %d, %v; want the 4 left expired", n, err)
	}
	if e.hasSession("cc-boundary") || !e.hasSession("cc-live") {
		t.Errorf("boundary present %t, live present %t; want false, true", e.hasSession("cc-boundary"), e.hasSession("cc-live"))
	}
	if n, err := e.store.DeleteExpiredSessions(e.ctx, before, 100); err != nil || n != 0 {
		t.Errorf("a third sweep = %d, %v; want 0", n, err)
	}
}
