package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/crc64"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/chronoshq/chronos/ports"
)

// Wake hints travel over LISTEN/NOTIFY. The payload is the due time in Unix
// milliseconds: hints are advisory (a dispatcher only wakes up and claims), so
// millisecond precision is plenty and the text stays short.
//
// The channel is chronos_wake for an installation in the public schema. NOTIFY reaches
// every session of the database, so an installation in another schema (see Options)
// gets a channel of its own, chronos_wake_<schema>, and is not woken by its neighbours.
const hintChannel = "chronos_wake"

// hintChannelFor names the channel of the installation in schema.
func hintChannelFor(schema string) string {
	if schema == "public" || schema == "" {
		return hintChannel
	}
	name := hintChannel + "_" + schema
	if len(name) > maxIdentifierLen {
		// PostgreSQL would truncate it, and truncated names of two long schemas
		// could collide; a checksum cannot.
		name = fmt.Sprintf("%s_%016x", hintChannel, crc64.Checksum([]byte(schema), crcTable))
	}
	return name
}

// maxIdentifierLen is PostgreSQL's NAMEDATALEN - 1.
const maxIdentifierLen = 63

const (
	// hintBuffer is how many hints a subscriber may fall behind before hints are
	// dropped. A dispatcher needs one to wake; the rest only say the same.
	hintBuffer = 16
	// Reconnection backoff of a listener whose connection was lost.
	minReconnectDelay = 100 * time.Millisecond
	maxReconnectDelay = 5 * time.Second
	// A listener that has heard nothing for listenerCheck pings its connection and
	// reconnects if no answer comes within listenerPingTimeout. A connection a network
	// fault left hanging (no answer, no reset) never reports an error by itself:
	// without the ping, hints stopped for good and every node fell back to its tick.
	listenerCheck       = 30 * time.Second
	listenerPingTimeout = 5 * time.Second
)

// PublishHint notifies every subscribed process that an alarm is due at at.
func (s *Store) PublishHint(ctx context.Context, at time.Time) error {
	if s.listenConfig == nil {
		return errNoHints
	}
	_, err := s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, s.hintChannel, strconv.FormatInt(at.UnixMilli(), 10))
	return mapError(err)
}

// SubscribeHints listens on a connection of its own, outside the pool: LISTEN belongs
// to a session, and a pooled connection would be handed to other queries. The first
// LISTEN happens before SubscribeHints returns, so a hint published after it returns
// is delivered (barring a connection loss). Afterwards the listener reconnects by
// itself, with backoff, until ctx is done or the store is closed; hints published
// while it is disconnected are lost, as the port allows.
func (s *Store) SubscribeHints(ctx context.Context) (<-chan time.Time, error) {
	if s.closed() {
		return nil, errClosed
	}
	if s.listenConfig == nil {
		return nil, errNoHints
	}
	conn, err := s.listen(ctx)
	if err != nil {
		return nil, err
	}
	// Registering under mu orders this against Close: either Close waits for this
	// listener, or the listener sees the store closed and never starts.
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed() {
		closeConn(conn)
		return nil, errClosed
	}
	ch := make(chan time.Time, hintBuffer)
	s.listeners.Add(1)
	go s.relayHints(ctx, conn, ch)
	return ch, nil
}

// errNoHints: the store declares no wake hints (see Options.ListenURL).
var errNoHints = fmt.Errorf("postgres: wake hints need a direct connection behind a transaction pooler (Options.ListenURL): %w",
	ports.ErrUnsupported)

// listen opens a dedicated connection, with the pool's settings or Options.ListenURL's,
// and LISTENs on it.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.listenConfig.Copy())
	if err != nil {
		return nil, mapError(err)
	}
	listen, cancel := context.WithTimeout(ctx, listenerPingTimeout)
	defer cancel()
	if _, err := conn.Exec(listen, `LISTEN `+pgx.Identifier{s.hintChannel}.Sanitize()); err != nil {
		closeConn(conn)
		return nil, mapError(err)
	}
	if err := s.checkListenDatabase(listen, conn); err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// relayHints forwards notifications from conn to ch until ctx is done or the store
// closes, replacing conn whenever it fails. It closes ch when it returns.
func (s *Store) relayHints(ctx context.Context, conn *pgx.Conn, ch chan<- time.Time) {
	defer s.listeners.Done()
	defer close(ch)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()

	delay := minReconnectDelay
	for {
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			var err error
			if conn, err = s.listen(ctx); err != nil {
				delay = min(2*delay, maxReconnectDelay)
				continue
			}
			delay = minReconnectDelay
		}
		n, err := waitForHint(ctx, conn, s.listenerCheck)
		if err != nil {
			// Cancelled, or the connection is gone (server restart, failover,
			// pg_terminate_backend): either way this connection is done.
			closeConn(conn)
			conn = nil
			if ctx.Err() != nil {
				return
			}
			continue
		}
		ms, err := strconv.ParseInt(n.Payload, 10, 64)
		if err != nil {
			continue // not ours to understand; hints are advisory
		}
		select {
		case ch <- time.UnixMilli(ms).UTC():
		default: // the subscriber is behind; it is already due to wake
		}
	}
}

// waitForHint waits for the next notification on conn. When none comes within check
// (listenerCheck) it pings conn and waits again if it answers; an error means conn is
// done (or ctx is).
func waitForHint(ctx context.Context, conn *pgx.Conn, check time.Duration) (*pgconn.Notification, error) {
	for {
		wait, cancel := context.WithTimeout(ctx, check)
		n, err := conn.WaitForNotification(wait)
		quiet := errors.Is(wait.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil || !quiet || ctx.Err() != nil {
			return n, err
		}
		// A wait that timed out leaves the connection usable (pgconn closes it on any
		// other error): ask it whether it is alive.
		ping, cancel := context.WithTimeout(ctx, listenerPingTimeout)
		err = conn.Ping(ping)
		cancel()
		if err != nil {
			return nil, err
		}
	}
}

// closeConn closes a listener connection without waiting long on a dead server.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
