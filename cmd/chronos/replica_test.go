package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/client"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/pgtest"
)

// replicaNode is a node over a store and a read replica, serving its API.
type replicaNode struct {
	admin, owner *client.Client
	node         *chronos.Node
	logs         *observer.ObservedLogs
}

func startReplicaNode(t *testing.T, storeURL, replicaURL string) replicaNode {
	t.Helper()
	ctx := context.Background()
	store, err := openStoreWith(ctx, storeURL, openOptions{migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	replica, err := openReplica(ctx, replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(replica.close)
	core, logs := observer.New(zap.InfoLevel)
	node, err := chronos.New(store, chronos.Config{
		Handler:     chronos.HandlerFunc(func(context.Context, domain.Wake) error { return nil }),
		Logger:      zap.New(core),
		ReadReplica: replica.store,
		Without:     chronos.Without{Dispatcher: true, Background: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Stop(context.Background()) })
	srv := httptest.NewServer(node.Handler())
	t.Cleanup(srv.Close)
	n := replicaNode{node: node, logs: logs}
	for _, c := range []struct {
		to    **client.Client
		owner string
		scope domain.Scope
	}{{&n.admin, "ops", domain.ScopeAdmin}, {&n.owner, "team", domain.ScopeOwner}} {
		plain, _, err := node.Tokens().Create(ctx, c.owner, c.scope)
		if err != nil {
			t.Fatal(err)
		}
		if *c.to, err = client.New(srv.URL, plain); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func (n replicaNode) create(t *testing.T, label string) client.Alarm {
	t.Helper()
	a, _, err := n.owner.CreateAlarm(context.Background(), client.CreateAlarm{Label: label, Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// listed is the ids the admin list shows.
func (n replicaNode) listed(t *testing.T) []string {
	t.Helper()
	page, err := n.admin.Admin().Alarms(context.Background(), client.AdminListAlarms{Owner: "team"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range page.Alarms {
		ids = append(ids, a.ID)
	}
	return ids
}

// waitListed waits until the admin list shows id: the standby has replayed its create.
func (n replicaNode) waitListed(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(n.listed(t), id) {
		if time.Now().After(deadline) {
			t.Fatalf("alarm %s is not in the admin list 10 s after its create", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func execSQL(t *testing.T, url, query string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// The admin's lists, counts and histories are read from the standby of --store-replica:
// with its replay paused, an alarm created since is missing from the admin list while
// the owner API (on the primary) has it, and appears once replay resumes. Bulk actions
// select on the primary, the replica's sessions refuse writes, and the overview shows
// the replica's lag.
func TestReadReplicaServesAdminReads(t *testing.T) {
	ctx := context.Background()
	cluster := pgtest.NewCluster(t, true)
	standby := cluster.Standby.DirectURL("postgres")
	n := startReplicaNode(t, cluster.Primary.DirectURL("postgres")+"?application_name=chronos-primary",
		standby+"?application_name=chronos-replica")

	first := n.create(t, "first")
	n.waitListed(t, first.ID)
	execSQL(t, standby, `SELECT pg_wal_replay_pause()`)
	second := n.create(t, "second")
	if _, err := n.owner.GetAlarm(ctx, second.ID); err != nil {
		t.Fatalf("the owner reads an alarm it just created from the primary: %v", err)
	}
	if ids := n.listed(t); !slices.Contains(ids, first.ID) || slices.Contains(ids, second.ID) {
		t.Fatalf("admin list with the standby's replay paused = %v; want %s (replayed) and not %s (created since)", ids, first.ID, second.ID)
	}
	if _, err := n.admin.Admin().Alarm(ctx, second.ID); err != nil {
		t.Errorf("the admin alarm page of an alarm the standby has not replayed yet (read from the primary instead): %v", err)
	}
	dry, err := n.admin.Admin().BulkCancel(ctx, client.BulkFilter{Owner: "team", DryRun: true})
	if err != nil || dry.Matched != 2 {
		t.Errorf("a bulk cancel selects on the primary: matched %d (%v), want both alarms", dry.Matched, err)
	}
	o, err := n.admin.Admin().Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Replica == nil || !o.Replica.Available || o.Total != 1 {
		t.Errorf("overview with the replay paused: replica %+v, total %d; want the replica available and 1 alarm counted on it", o.Replica, o.Total)
	}
	time.Sleep(10 * time.Millisecond) // the replica's lag, the age of its last replayed commit, grows
	if o, err = n.admin.Admin().Overview(ctx); err != nil || o.Replica == nil || o.Replica.Lag <= 0 {
		t.Errorf("overview with the replay paused and WAL waiting: replica %+v (%v); want a lag above 0", o.Replica, err)
	}

	execSQL(t, standby, `SELECT pg_wal_replay_resume()`)
	n.waitListed(t, second.ID)
	events, err := n.admin.Admin().Events(ctx, second.ID, 0)
	if err != nil || len(events) == 0 {
		t.Errorf("the admin history of a replayed alarm: %d events, %v", len(events), err)
	}

	replica, err := openReplica(ctx, standby)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.close()
	if err := replica.store.PutState(ctx, "replica-test", "{}"); err == nil {
		t.Error("a write through the replica store succeeded; want it refused")
	}
	// The same on a server that accepts writes: the replica's own sessions refuse them.
	onPrimary, err := openReplica(ctx, cluster.Primary.DirectURL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer onPrimary.close()
	if err := onPrimary.store.PutState(ctx, "replica-test", "{}"); err == nil || !strings.Contains(err.Error(), "read-only transaction") {
		t.Errorf("a write through a replica store opened on the primary: %v; want a read-only transaction refusing it", err)
	}
	if lag, err := onPrimary.store.ReplicationLag(ctx); err != nil || lag != 0 {
		t.Errorf("the lag of a server that is no standby = %s (%v), want 0", lag, err)
	}

	// Every read sent to the replica answered (a failed one would have gone to the
	// primary, with a warning): none was a write, which the standby refuses.
	if failed := n.logs.FilterMessageSnippet("read replica failed").All(); len(failed) > 0 {
		t.Errorf("a read failed on the replica: %v", failed[0].ContextMap())
	}
	var onStandby int
	conn, err := pgx.Connect(ctx, standby)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'chronos-replica'`).Scan(&onStandby); err != nil || onStandby == 0 {
		t.Errorf("sessions of the replica on the standby: %d (%v); want some", onStandby, err)
	}
}

// A replica that does not answer fails no admin read: they go to the primary, the log
// says so once, and the overview says the replica is unavailable.
func TestReadReplicaDownFallsBackToPrimary(t *testing.T) {
	db := newPostgresDatabase(t)
	n := startReplicaNode(t, db, "postgres://root@127.0.0.1:1/postgres?connect_timeout=2")
	a := n.create(t, "while the replica is down")
	if ids := n.listed(t); !slices.Contains(ids, a.ID) {
		t.Fatalf("admin list with the replica down = %v; want %s from the primary", ids, a.ID)
	}
	o, err := n.admin.Admin().Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Replica == nil || o.Replica.Available || o.Replica.Error == "" || o.Total != 1 {
		t.Errorf("overview with the replica down: replica %+v, total %d; want it unavailable with why, and the primary's count", o.Replica, o.Total)
	}
	if warned := len(n.logs.FilterMessageSnippet("read replica failed").All()); warned != 1 {
		t.Errorf("the replica going down was logged %d times; want one warning", warned)
	}
}

// serve --store-replica wires the replica into the node and the metrics: the overview
// says it answers, /metrics has its lag, and the log says it opened. (A replica store on
// the primary's own database: read-only sessions, no lag.)
func TestServeWithStoreReplica(t *testing.T) {
	db := newPostgresDatabase(t)
	var out bytes.Buffer
	if err := run(t.Context(), []string{"migrate", "--store", db}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"token", "create", "--owner", "ops", "--admin", "--store", db}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	token := lines[len(lines)-1]

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	replica := db + "?application_name=chronos-replica"
	if strings.Contains(db, "?") {
		replica = db + "&application_name=chronos-replica"
	}
	ctx, stop := context.WithCancel(t.Context())
	var stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- execute(ctx, []string{"serve", "--dev", "--listen", addr, "--store", db, "--store-replica", replica}, io.Discard, &stderr)
	}()
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d:\n%s", code, stderr.String())
		}
	}()

	c, err := client.New("http://"+addr, token)
	if err != nil {
		t.Fatal(err)
	}
	var o client.Overview
	deadline := time.Now().Add(20 * time.Second)
	for o, err = c.Admin().Overview(ctx); err != nil; o, err = c.Admin().Overview(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("serve does not answer the overview: %v\n%s", err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if o.Replica == nil || !o.Replica.Available || o.Replica.Lag != 0 {
		t.Errorf("overview's replica: %+v; want it available, no lag", o.Replica)
	}
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "\nchronos_store_replica_lag_seconds 0\n") {
		t.Errorf("/metrics has no chronos_store_replica_lag_seconds 0:\n%.600s", body)
	}
	if !strings.Contains(stderr.String(), "read replica open") {
		t.Errorf("serve's log does not say the read replica opened:\n%s", stderr.String())
	}
}

// syncBuffer is a bytes.Buffer that serve's logger and the test may use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
