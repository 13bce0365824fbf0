//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

// TestSQLiteBackupRestore backs a serving SQLite node up mid-load, twice (chronos backup
// on its file, and POST /admin/v1/store/backup), loses the node, restores the copy into
// a new node, and checks the copy's promise (docs/operations.md, "Restoring"): every
// alarm created before the backup began is in it; on the restored node every alarm of
// the copy is there, every once alarm the copy held active fires (those in flight at the
// backup once their lease expires), every series fires, and nothing the copy held as
// fired is sent again (an at-most-once wake mid-delivery at the backup included).
func TestSQLiteBackupRestore(t *testing.T) {
	store := newStoreURL(t, onSQLite)
	backupDir := t.TempDir()
	recv := NewReceiver(t, e2eSecret)
	recv.Think(200 * time.Millisecond) // wakes in flight when the copy is taken
	token := CreateToken(t, store, "e2e")
	ops := CreateToken(t, store, "ops", "--admin")
	a := StartNode(t, "a", NodeConfig{Store: store, WakeURL: recv.URL + "/a", Secret: e2eSecret,
		Extra: faultFlags("--backup-dir", backupDir)})
	c := NewClient(t, token)

	// The load: 1,200 once alarms falling due over 16 s, half at-most-once, 20 series
	// every 2 s; more once alarms created all along, so the backup runs among creates,
	// claims, deliveries and outcomes.
	window := 16 * time.Second
	start := time.Now().Add(4 * time.Second)
	created := CreateAll(t, c, []*Node{a}, MixedSpecs(1200, 20, start, window, 2*time.Second))
	var (
		mu      sync.Mutex
		trickle []trickled
	)
	stopTrickle := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stopTrickle:
				return
			case <-time.After(20 * time.Millisecond):
			}
			spec := Spec{Kind: "once", Delivery: []string{atLeastOnce, atMostOnce}[i%2], Delay: 2 * time.Second}
			al, err := c.TryCreate(a, spec.body(fmt.Sprintf("trickle-%d", i)))
			if err != nil {
				t.Errorf("a create during the load: %v", err)
				return
			}
			mu.Lock()
			trickle = append(trickle, trickled{al.ID, time.Now()})
			mu.Unlock()
		}
	})

	time.Sleep(time.Until(start.Add(window / 3)))
	began := time.Now()
	cliCopy := filepath.Join(t.TempDir(), "chronos-backup.db")
	var apiFile string
	var bg sync.WaitGroup
	bg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, binary, "backup", "--store", store, "--to", cliCopy).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "integrity_check ok") {
			t.Errorf("chronos backup while serve runs: %v\n%s", err, out)
		}
		t.Logf("chronos backup: %s", strings.TrimSpace(string(out)))
	})
	bg.Go(func() { apiFile = adminBackup(t, a, ops) })
	bg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	time.Sleep(time.Second)
	close(stopTrickle)
	wg.Wait()
	time.Sleep(time.Second)
	a.Kill() // the node and its disk are lost; the copies are what is left

	// Before the backup began: every alarm CreateAll made, and the trickle's early ones.
	var before []string
	for _, al := range created {
		before = append(before, al.ID)
	}
	for _, tr := range trickle {
		if tr.created.Before(began) {
			before = append(before, tr.id)
		}
	}

	// Each copy holds them all. The copy is one file: copying it is restoring it.
	restoredPath := filepath.Join(t.TempDir(), "chronos.db")
	copyFile(t, cliCopy, restoredPath)
	inspectPath := filepath.Join(t.TempDir(), "inspect.db")
	copyFile(t, cliCopy, inspectPath)
	apiInspect := filepath.Join(t.TempDir(), "api.db")
	copyFile(t, filepath.Join(backupDir, apiFile), apiInspect)
	held := map[string]domain.Alarm{}
	for _, al := range OpenInspector(t, onSQLite, "sqlite://"+inspectPath, "e2e").Alarms("") {
		held[al.ID] = al
	}
	apiHeld := map[string]bool{}
	for _, al := range OpenInspector(t, onSQLite, "sqlite://"+apiInspect, "e2e").Alarms("") {
		apiHeld[al.ID] = true
	}
	for _, id := range before {
		if _, ok := held[id]; !ok {
			t.Errorf("alarm %s, created before the backup began, is not in chronos backup's copy", id)
		}
		if !apiHeld[id] {
			t.Errorf("alarm %s, created before the backup began, is not in the admin API's copy", id)
		}
	}
	var activeOnce, inFlight, series, unknown, firedInCopy int
	for _, al := range held {
		switch {
		case al.Kind == domain.KindCron && al.Status == domain.StatusActive:
			series++
		case al.Kind == domain.KindOnce && al.Status == domain.StatusActive:
			activeOnce++
			if al.ClaimedBy != "" {
				inFlight++
			}
		case al.Kind == domain.KindOnce && al.Status == domain.StatusFired:
			firedInCopy++
			if strings.HasPrefix(al.LastError, "outcome unknown:") {
				unknown++
			}
		}
	}
	t.Logf("the copy: %d alarms (%d created before it began); once alarms: %d active (%d of them claimed), %d fired (%d at-most-once mid-delivery); %d series",
		len(held), len(before), activeOnce, inFlight, firedInCopy, unknown, series)
	if activeOnce == 0 || inFlight == 0 {
		t.Fatalf("the copy was not taken mid-load: %d active once alarms, %d in flight", activeOnce, inFlight)
	}

	// Restore: a new node on the copy, delivering to its own path.
	restoredURL := "sqlite://" + restoredPath
	b := StartNode(t, "b", NodeConfig{Store: restoredURL, WakeURL: recv.URL + "/b", Secret: e2eSecret, Extra: faultFlags()})
	in := OpenInspector(t, onSQLite, restoredURL, "e2e")
	WaitOnceAlarmsFinished(t, in, time.Until(start.Add(window))+faultLease+faultGrace+30*time.Second)
	time.Sleep(3 * time.Second) // every series fires at least once more on b
	b.Stop()

	byB := map[string]int{}
	for _, d := range recv.Deliveries() {
		if d.Via == "b" && d.Status == http.StatusOK {
			byB[d.AlarmID]++
		}
	}
	restored := map[string]domain.Alarm{}
	for _, al := range in.Alarms("") {
		restored[al.ID] = al
	}
	for id, was := range held {
		now, ok := restored[id]
		switch {
		case !ok:
			t.Errorf("alarm %s of the copy is missing on the restored node", id)
		case was.Kind == domain.KindOnce && was.Status == domain.StatusActive:
			if now.Status != domain.StatusFired || byB[id] == 0 {
				t.Errorf("once alarm %s (%s, claimed by %q in the copy) is %s on the restored node with %d deliveries from it; want fired and delivered",
					id, was.Delivery, was.ClaimedBy, now.Status, byB[id])
			}
			if was.Delivery == domain.AtMostOnce && byB[id] > 1 {
				t.Errorf("at-most-once alarm %s was sent %d times by the restored node", id, byB[id])
			}
		case was.Kind == domain.KindOnce && was.Status == domain.StatusFired:
			if byB[id] > 0 {
				t.Errorf("once alarm %s, fired in the copy (last_error %q), was sent again by the restored node", id, was.LastError)
			}
		case was.Kind == domain.KindCron && was.Status == domain.StatusActive:
			if byB[id] == 0 {
				t.Errorf("series %s did not fire on the restored node", id)
			}
		}
	}
}

type trickled struct {
	id      string
	created time.Time // when its create was answered
}

// adminBackup asks node for a backup through the admin API and returns the file's name.
func adminBackup(t *testing.T, n *Node, token string) string {
	req, _ := http.NewRequest(http.MethodPost, "http://"+n.Addr+"/admin/v1/store/backup", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Errorf("POST /admin/v1/store/backup: %v", err)
		return ""
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var body struct {
		Backup struct {
			File   string `json:"file"`
			Bytes  int64  `json:"bytes"`
			TookMS int64  `json:"took_ms"`
		} `json:"backup"`
	}
	if res.StatusCode != http.StatusCreated || json.Unmarshal(raw, &body) != nil || body.Backup.File == "" {
		t.Errorf("POST /admin/v1/store/backup: %d %s", res.StatusCode, raw)
		return ""
	}
	t.Logf("admin API backup: %s, %d bytes in %d ms", body.Backup.File, body.Backup.Bytes, body.Backup.TookMS)
	return body.Backup.File
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
