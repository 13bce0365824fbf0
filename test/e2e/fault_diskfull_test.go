//go:build e2e && linux

package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// Disk-full scenario timing: the outcomes of the wakes in flight when the disk fills
// are retried for half a lease, so the disk stays full for diskFullHeld (well inside
// it) after their first failed attempt; then the retry that follows the freeing must
// record them under the lease they were claimed with.
const (
	diskFullLease = 20 * time.Second
	diskFullHeld  = 3 * time.Second
	diskFullHeldN = 12 // wakes in flight when the disk fills: 8 at-least-once, 4 at-most-once
	// diskFullPad pads the alarms created after the filesystem is full: each needs new
	// WAL pages, so the room left in the WAL (a WAL is reused from its start once
	// checkpointed, and rewriting it needs no new blocks) runs out within a few hundred
	// creates.
	diskFullPad = 16 * 1024
)

// TestSQLiteDiskFull fills the filesystem under a running SQLite node (a tmpfs of 16 MiB
// the test mounts) while wakes are in flight. Creates answer 503 saying the disk is
// full, and a refused create leaves no row; the in-flight wakes' outcomes and the
// claims of alarms falling due fail and are retried, and once space is freed the
// outcomes are recorded under the lease they were claimed with: each wake arrived
// once, none again. Every alarm the API accepted is delivered, PRAGMA integrity_check
// says ok while the disk is full and after the node stops, and creates and wakes work
// again.
//
// Twice: on a WAL that has only grown since the node started (every write needs new
// blocks, so the first write after the fill is refused), and on a WAL that SQLite has
// checkpointed and is reusing from its start, as on a node that has run a while
// (writes go on in its room for a while; checkpoints cannot grow the database file).
func TestSQLiteDiskFull(t *testing.T) {
	for _, reused := range []bool{false, true} {
		name := "fresh WAL"
		if reused {
			name = "reused WAL"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runDiskFull(t, reused)
		})
	}
}

func runDiskFull(t *testing.T, reusedWAL bool) {
	dir := mountTmpfs(t, "16m")
	path := filepath.Join(dir, "chronos.db")
	store := "sqlite://" + path
	recv := NewReceiver(t, e2eSecret)
	gates := NewGates(t, recv)
	token := CreateToken(t, store, "e2e")
	node := StartNode(t, "node", NodeConfig{Store: store, WakeURL: gates.URL + "/node", Secret: e2eSecret, Extra: []string{
		"--lease", diskFullLease.String(), "--delivery-timeout", "8s", "--tick", "200ms",
		"--backoff-base", "500ms", "--backoff-cap", "2s",
	}})
	c := NewClient(t, token)
	pad := strings.Repeat("x", diskFullPad)

	// Ballast due in an hour, more than one WAL's worth (SQLite checkpoints at 1,000
	// pages, 4 MiB): the WAL has been checkpointed and is being reused when the disk
	// fills.
	var ballast []Alarm
	if reusedWAL {
		for i := range 300 {
			ballast = append(ballast, c.Create(node, fmt.Sprintf(
				`{"kind": "once", "delay_seconds": 3600, "label": "ballast-%d", "payload": {"pad": %q}}`, i, pad)))
		}
	}

	// Wakes in flight: claimed, leased, held at the gate until the disk is full. Their
	// padded payloads make each outcome rewrite several pages, more than a refused
	// create can leave behind in the WAL, so recording them needs new blocks.
	gates.Hold("held")
	var held []Alarm
	for i := range diskFullHeldN {
		delivery := atLeastOnce
		if i%3 == 2 {
			delivery = atMostOnce
		}
		held = append(held, c.Create(node, fmt.Sprintf(
			`{"kind": "once", "delay_seconds": 1, "delivery": %q, "label": "held-%d", "payload": {"gate": "held", "pad": %q}}`, delivery, i, pad)))
	}
	gates.WaitFor(t, "held", diskFullHeldN, 15*time.Second)

	// Alarms that fall due while the disk is full: claiming them is a write.
	var dueWhileFull []Alarm
	for i := range 10 {
		dueWhileFull = append(dueWhileFull, c.Create(node, fmt.Sprintf(`{"kind": "once", "delay_seconds": 2, "label": "due-%d"}`, i)))
	}

	filler := filepath.Join(dir, "filler")
	filled := fillFilesystem(t, filler)
	t.Logf("filler: %d bytes; the filesystem is full", filled)

	// Creates go on while SQLite still has room in the files it has, then are refused;
	// a refused create may leave WAL pages behind that a smaller one can still use, so
	// padded creates until one is refused, then small ones until one is.
	var accepted []Alarm
	refused := 0
	for _, body := range []string{`"payload": {"pad": "` + pad + `"}`, `"payload": null`} {
		for i := 0; ; i++ {
			if i == 3000 {
				t.Fatalf("3,000 creates accepted on a full filesystem; want a refusal")
			}
			status, hdr, raw := postAlarm(t, c, node, fmt.Sprintf(`{"kind": "once", "delay_seconds": 2, "label": "on-full-%d", %s}`, len(accepted), body))
			if status == http.StatusServiceUnavailable {
				refused++
				checkDiskFullAnswer(t, hdr, raw)
				break
			}
			if status != http.StatusCreated {
				t.Fatalf("create on a full filesystem: HTTP %d: %s; want 201 or 503", status, raw)
			}
			var out struct {
				Alarm Alarm `json:"alarm"`
			}
			if err := json.Unmarshal(raw, &out); err != nil {
				t.Fatalf("create: decoding %s: %v", raw, err)
			}
			accepted = append(accepted, out.Alarm)
		}
	}
	t.Logf("after the filesystem filled: %d creates accepted, then %d refused with 503", len(accepted), refused)
	if res := integrityCheck(t, path); res != "ok" {
		t.Errorf("PRAGMA integrity_check on the full filesystem: %s", res)
	}

	// The held wakes arrive now; their outcomes cannot be written, nor the claims of
	// the alarms falling due.
	gates.Open("held")
	fullSince := time.Now()
	waitLog(t, node, "applying outcomes failed; retrying", "storage full", 10*time.Second)
	waitLog(t, node, "claim failed; retrying", "storage full", 10*time.Second)
	time.Sleep(time.Until(fullSince.Add(diskFullHeld)))
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	t.Logf("space freed %s after the held wakes were answered", time.Since(fullSince).Round(time.Millisecond))

	// Every held wake's outcome is recorded, under its first lease: one delivery each.
	for _, a := range held {
		if got := waitStatus(c, node, a.ID, "fired", 15*time.Second); got.Status != "fired" {
			t.Errorf("held alarm %s: status %q, want fired", a.ID, got.Status)
		}
	}
	// And everything that fell due or was accepted while the disk was full is delivered.
	for _, a := range append(dueWhileFull, accepted...) {
		waitAcked(t, recv, a.ID, 30*time.Second)
		if got := waitStatus(c, node, a.ID, "fired", 5*time.Second); got.Status != "fired" {
			t.Errorf("alarm %s: status %q, want fired", a.ID, got.Status)
		}
	}
	// Creates and wakes work again.
	var later []Alarm
	for i := range 5 {
		later = append(later, c.Create(node, fmt.Sprintf(`{"kind": "once", "delay_seconds": 1, "label": "freed-%d"}`, i)))
	}
	for _, a := range later {
		waitAcked(t, recv, a.ID, 10*time.Second)
	}

	time.Sleep(time.Second) // a duplicate would arrive now
	duplicates, delivered := 0, 0
	for _, group := range [][]Alarm{held, dueWhileFull, accepted, later} {
		for _, a := range group {
			n := len(recv.Acked(a.ID))
			delivered += n
			if n > 1 {
				duplicates++
				t.Errorf("alarm %s delivered %d times; its outcome should have been recorded under its first lease", a.ID, n)
			}
		}
	}
	for _, a := range held {
		evs := c.Events(node, a.ID)
		if fired := countEvents(evs, "fired"); fired != 1 {
			t.Errorf("held alarm %s: %d fired events, want 1: %+v", a.ID, fired, evs)
		}
		if a.Delivery == atMostOnce && countEvents(evs, "attempt_delivered") != 1 {
			t.Errorf("held at-most-once alarm %s: its delivery is not recorded: %+v", a.ID, evs)
		}
	}
	retries := strings.Count(node.Logs(), "applying outcomes failed; retrying")
	claimFailures := strings.Count(node.Logs(), "claim failed; retrying")
	node.Stop()

	// Nothing a refused create sent was stored, and nothing is missing.
	in := OpenInspector(t, onSQLite, store, "e2e")
	if got, want := len(in.Alarms("")), len(ballast)+len(held)+len(dueWhileFull)+len(accepted)+len(later); got != want {
		t.Errorf("the store holds %d alarms; want %d (no refused create)", got, want)
	}
	if got := len(in.Alarms(domain.StatusActive)); got != len(ballast) {
		t.Errorf("%d alarms are active; want %d (the ballast, due in an hour)", got, len(ballast))
	}
	if res := integrityCheck(t, path); res != "ok" {
		t.Errorf("PRAGMA integrity_check after the node stopped: %s", res)
	}
	wal := "fresh"
	if reusedWAL {
		wal = "reused"
	}
	t.Logf("figures: scenario=disk-full store=sqlite wal=%s ballast=%d held=%d due_while_full=%d accepted_on_full=%d refused=%d apply_retries=%d claim_failures=%d delivered=%d lost=0 duplicates=%d",
		wal, len(ballast), len(held), len(dueWhileFull), len(accepted), refused, retries, claimFailures, delivered, duplicates)
}

// mountTmpfs mounts a tmpfs of size (such as "8m") on a new temporary directory and
// unmounts it when the test ends, after the nodes using it have stopped. Mounting
// needs root (CAP_SYS_ADMIN): elsewhere the test is skipped, saying so, and with
// CI=true that is a failure.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		msg := fmt.Sprintf("cannot mount a %s tmpfs to fill (needs root or CAP_SYS_ADMIN): %v", size, err)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI=true requires this test to run", msg)
		}
		t.Skip(msg + "; skipping")
	}
	t.Cleanup(func() {
		// The nodes were registered later, so they are stopped by now; a process that
		// still holds a file open makes the mount busy for a moment.
		for i := 0; ; i++ {
			err := syscall.Unmount(dir, 0)
			if err == nil {
				return
			}
			if !errors.Is(err, syscall.EBUSY) || i == 50 {
				t.Errorf("unmounting %s: %v; detaching it", dir, err)
				_ = syscall.Unmount(dir, syscall.MNT_DETACH)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return dir
}

// fillFilesystem writes path until the filesystem it is on has no block left, and
// returns how many bytes it wrote.
func fillFilesystem(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total int64
	for _, size := range []int{1 << 20, 4 << 10, 1} { // big steps, then the last pages
		buf := make([]byte, size)
		for {
			n, err := f.Write(buf)
			total += int64(n)
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			if err != nil {
				t.Fatalf("filling %s: %v", path, err)
			}
		}
	}
	return total
}

// postAlarm posts a create and returns its status, headers and body.
func postAlarm(t *testing.T, c *Client, n *Node, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+n.Addr+"/v1/alarms", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("create on %s: %v", n.Name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, raw
}

// checkDiskFullAnswer checks a 503 is the error envelope, says the disk is full and
// tells the client to retry in 30 s, not at once (space is the operator's to free).
func checkDiskFullAnswer(t *testing.T, hdr http.Header, raw []byte) {
	t.Helper()
	var out struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("503 body %s: %v", raw, err)
	}
	if out.Error.Code != "unavailable" || !strings.Contains(out.Error.Message, "disk is full") {
		t.Errorf("503 answer %s; want code unavailable and a message saying the disk is full", raw)
	}
	if got := hdr.Get("Retry-After"); got != "30" {
		t.Errorf("503 answer with Retry-After %q, want 30", got)
	}
}

// integrityCheck runs PRAGMA integrity_check on the SQLite file at path through a
// connection of its own, read-only, and returns its verdict ("ok" when sound).
func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=query_only(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		t.Fatalf("PRAGMA integrity_check: %v", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("PRAGMA integrity_check: %v", err)
	}
	return strings.Join(lines, "; ")
}

// waitLog waits until a line of the node's log has both msg and detail in it.
func waitLog(t *testing.T, n *Node, msg, detail string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, line := range strings.Split(n.Logs(), "\n") {
			if strings.Contains(line, msg) && strings.Contains(line, detail) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q saying %q in %s's log within %s", msg, detail, n.Name, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
