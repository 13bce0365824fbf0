package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// storeSecret is the password the store URLs of these tests carry.
const storeSecret = "query-s3cret-5bd1"

// A password in a store URL, in its userinfo or its query string (?password=,
// ?sslpassword=), is never printed: not in the commands' errors, whether the server is
// unreachable or the driver refuses the URL, and the store is still named (masked).
func TestStoreURLSecretsAreNeverPrinted(t *testing.T) {
	dir := t.TempDir()
	// An export of an empty store, for import to get as far as opening its store.
	file := filepath.Join(dir, "empty.jsonl")
	empty := "sqlite://" + filepath.Join(dir, "empty.db")
	for _, args := range [][]string{{"migrate", "--store", empty}, {"export", "--store", empty, "--to", file}} {
		if code, _, stderr := runChronos(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	stores := []string{
		"postgres://root:" + storeSecret + "@127.0.0.1:1/x",
		"postgres://root@127.0.0.1:1/x?password=" + storeSecret,
		"postgres://root@127.0.0.1:1/x?sslmode=bogus&password=" + storeSecret,
		"postgres://root@127.0.0.1:1/x?sslpassword=" + storeSecret + "&sslmode=require",
		"mysql://root@127.0.0.1:1/x?password=" + storeSecret,
		"mysql://root@127.0.0.1:1/x?tls=bogus&password=" + storeSecret,
	}
	for i, store := range stores {
		for _, args := range [][]string{
			{"migrate"},
			{"export", "--to", filepath.Join(dir, "out"+string(rune('a'+i))+".jsonl")},
			{"import", "--from", file},
			{"token", "list"},
			{"backup", "--to", filepath.Join(dir, "copy.db")},
			{"serve", "--dev", "--listen", "127.0.0.1:0"},
		} {
			code, stdout, stderr := runChronos(t, append(args, "--store", store)...)
			if code == 0 {
				t.Errorf("%s --store %s: exit 0, want a failure", args[0], store)
			}
			if strings.Contains(stdout+stderr, storeSecret) {
				t.Errorf("%s --store %s prints the password:\n%s%s", args[0], store, stdout, stderr)
			}
			if !strings.Contains(stderr, "xxxxx") {
				t.Errorf("%s --store %s does not name the store, masked:\n%s", args[0], store, stderr)
			}
		}
	}
}

// serve logs the store it opened at start with the password of its query string
// masked. PostgreSQL's test server trusts local connections, so the URL's password is
// sent nowhere and the store opens.
func TestServeLogsTheStoreMasked(t *testing.T) {
	db := newPostgresDatabase(t)
	sep := "?"
	if strings.Contains(db, "?") {
		sep = "&"
	}
	store := db + sep + "password=" + storeSecret
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx, stop := context.WithCancel(t.Context())
	var stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- execute(ctx, []string{"serve", "--dev", "--listen", addr, "--store", store, "--log-format", "json"}, io.Discard, &stderr)
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get("http://" + addr + "/readyz"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			<-done
			t.Fatalf("serve does not answer:\n%s", stderr.String())
		}
	}
	stop()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d:\n%s", code, stderr.String())
	}
	logs := stderr.String()
	if !strings.Contains(logs, `"msg":"store open"`) || !strings.Contains(logs, "password=xxxxx") {
		t.Errorf("serve's log does not name the store it opened, masked:\n%s", logs)
	}
	if strings.Contains(logs, storeSecret) {
		t.Errorf("serve logs the store's password:\n%s", logs)
	}
}
