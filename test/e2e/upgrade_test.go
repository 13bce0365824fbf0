//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// upgradeLaterAt is when, after the upgrade began, the once alarms meant for the
// current release fall due: well after the old node has been stopped (that takes about
// 10 s on a loaded machine), so the current binary is the one that fires them.
const upgradeLaterAt = 25 * time.Second

// upgradeLease is every node's --lease: the old node's leases of wakes in flight when
// it stops hold the current nodes off for that long. The delivery timeout under it is
// long enough for those wakes to be still in flight when the old node stops (about 5 s
// after they fell due), rather than failed by their timeout.
const (
	upgradeLease           = 16 * time.Second
	upgradeDeliveryTimeout = 12 * time.Second
)

// upgradeNewColumns are the columns the migrations since previousRelease add to a
// table, with the value a row written before them must have (cellText's form).
var upgradeNewColumns = map[string]map[string]NewColumn{
	"alarms": { // 00006 (series), 00007 (endpoints); the claim lane: MySQL's 00008 is a generated column, SQLite's 00016 a column it fills, PostgreSQL's an index expression
		"series": Default("NULL"), "fire_count": Default("0"), "skip_streak": Default("0"), "paused_reason": Default(""),
		"paused_until": Default("NULL"), "endpoint": Default(""), "lane": AnyLane,
		// 00015 (issue 29): the trace context its create carried; none before.
		"trace_parent": Default("NULL"), "trace_state": Default("NULL"),
	},
	"alarm_events": { // 00014 (issue 29): the attempt log's receipt; none before
		"duration_us": Default("NULL"), "http_status": Default("NULL"), "response_type": Default("NULL"),
		"response_body": Default("NULL"), "response_truncated": Default("NULL"),
	},
	"api_tokens": { // 00009 on SQLite and MySQL, 00010 on PostgreSQL (issue 25: tokens over the API)
		"note": Default(""), "last_used_at": NullOrSet,
	},
}

// TestUpgradeFromPreviousRelease builds the previous release (previousRelease), lets it
// create its schema and serve, and fills the store through its API with alarms in
// every state: active once and cron (with timezones, payloads, conversation ids,
// idempotency keys), paused, resumed, triggered, fired, cancelled, failed (at once and
// after retries, both delivery modes), a series that skipped, wakes in flight (their
// leases in the rows) and series firing every 2 s; plus owner, admin and revoked
// tokens. With the old node still running, `chronos migrate` of this build upgrades the
// schema. The old node then records the outcomes of wakes it had in flight on the new
// schema and stops; two current nodes take over.
//
// It checks, on the rows themselves (read with the database's driver) and through the
// API: every alarm, event and token row of before is there, unchanged, and the
// columns the migrations added hold their defaults; the leases of wakes in flight
// survive the migration, and the current nodes deliver those wakes once the leases
// expire; alarms due after the upgrade and the running series fire, from the current
// nodes; the API shows every settled alarm and its history as the old release did;
// tokens work (a revoked one does not) and an idempotency key still dedupes.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	prev := buildPrevious(t)
	for _, kind := range []storeKind{onSQLite, onPostgres, onMySQL} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			runUpgrade(t, kind, prev)
		})
	}
}

// upgradeAlarm is one alarm the old release creates, and the state it must settle in
// before the upgrade ("" for live alarms, which keep changing).
type upgradeAlarm struct {
	name   string
	body   string
	action string // "", "pause", "pause+resume", "trigger", "cancel"
	settle func(a Alarm, evs []Event) bool
	Alarm
}

func sawEvent(typ string) func(Alarm, []Event) bool {
	return func(_ Alarm, evs []Event) bool { return hasEvent(evs, typ, "") }
}

func hasStatus(st string) func(Alarm, []Event) bool {
	return func(a Alarm, _ []Event) bool { return a.Status == st }
}

func both(f, g func(Alarm, []Event) bool) func(Alarm, []Event) bool {
	return func(a Alarm, evs []Event) bool { return f(a, evs) && g(a, evs) }
}

// settledAlarms are created by the old release and left, before the upgrade, in a
// state nothing changes any more.
func settledAlarms() []*upgradeAlarm {
	far := time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339Nano)
	return []*upgradeAlarm{
		{name: "once, every field", body: `{"kind": "once", "fire_at": "` + far + `", "label": "every field ✓",
			"conversation_id": "conv-1", "wake_message": "wake up, ü", "payload": {"a": [1, 2.5, "ß"], "n": null},
			"idempotency_key": "idem-1", "max_failures": 7}`, settle: hasStatus("active")},
		{name: "once at-most-once", body: `{"kind": "once", "delay_seconds": 7200, "delivery": "at_most_once", "payload": "plain"}`, settle: hasStatus("active")},
		{name: "cron with a timezone", body: `{"kind": "cron", "cron_expr": "0 0 1 1 *", "timezone": "America/New_York", "payload": {"y": 1}}`, settle: hasStatus("active")},
		{name: "cron triggered", body: `{"kind": "cron", "cron_expr": "@every 1h", "label": "triggered"}`, action: "trigger",
			settle: both(hasStatus("active"), sawEvent("fired"))},
		{name: "cron paused", body: `{"kind": "cron", "cron_expr": "30 2 * * *", "timezone": "Europe/Berlin"}`, action: "pause", settle: hasStatus("paused")},
		{name: "cron paused and resumed", body: `{"kind": "cron", "cron_expr": "@every 1h", "delivery": "at_most_once"}`, action: "pause+resume",
			settle: both(hasStatus("active"), sawEvent("resumed"))},
		{name: "once fired", body: `{"kind": "once", "delay_seconds": 0.5, "payload": {"k": "fired"}}`, settle: hasStatus("fired")},
		{name: "once fired at-most-once", body: `{"kind": "once", "delay_seconds": 0.5, "delivery": "at_most_once"}`,
			settle: both(hasStatus("fired"), sawEvent("attempt_delivered"))},
		{name: "once cancelled", body: `{"kind": "once", "delay_seconds": 7200, "idempotency_key": "idem-cancelled"}`, action: "cancel", settle: hasStatus("cancelled")},
		{name: "cron cancelled", body: `{"kind": "cron", "cron_expr": "*/5 * * * *"}`, action: "cancel", settle: hasStatus("cancelled")},
		{name: "once failed", body: `{"kind": "once", "delay_seconds": 0.5, "max_failures": 1, "payload": {"fail": true}}`, settle: hasStatus("failed")},
		{name: "once failed at-most-once", body: `{"kind": "once", "delay_seconds": 0.5, "delivery": "at_most_once", "payload": {"fail": true}}`,
			settle: both(hasStatus("failed"), sawEvent("attempt_failed"))},
		{name: "once failed after a retry", body: `{"kind": "once", "delay_seconds": 0.5, "max_failures": 2, "payload": {"fail": true}}`,
			settle: both(hasStatus("failed"), sawEvent("retry_scheduled"))},
		{name: "cron skipped", body: `{"kind": "cron", "cron_expr": "@every 1h", "max_failures": 1, "payload": {"fail": true}}`, action: "trigger",
			settle: both(hasStatus("active"), sawEvent("skipped"))},
	}
}

func runUpgrade(t *testing.T, kind storeKind, prev string) {
	store := newStoreURL(t, kind)
	recv := NewReceiver(t, e2eSecret)
	gates := NewGates(t, recv)
	flags := []string{"--lease", upgradeLease.String(), "--delivery-timeout", upgradeDeliveryTimeout.String(), "--tick", "200ms", "--drain-timeout", "1s",
		"--backoff-base", "500ms", "--backoff-cap", "2s"}

	// The previous release creates the schema (token create migrates) and serves.
	token := CreateTokenWith(t, prev, store, "e2e")
	adminToken := CreateTokenWith(t, prev, store, "ops", "--admin")
	revokedToken := CreateTokenWith(t, prev, store, "gone")
	revokedID := tokenID(t, runChronos(t, prev, time.Minute, "token", "list", "--store", store), "gone")
	runChronos(t, prev, time.Minute, "token", "revoke", "--id", revokedID, "--store", store)
	old := StartNode(t, "old", NodeConfig{Binary: prev, Store: store, WakeURL: gates.URL + "/old", Secret: e2eSecret, Extra: flags})
	c := NewClient(t, token)

	// Settled alarms: created, acted on, and waited for.
	settled := settledAlarms()
	for _, u := range settled {
		u.Alarm = c.Create(old, u.body)
		for _, act := range strings.Split(u.action, "+") {
			if act == "" {
				continue
			}
			method, path := http.MethodPost, "/v1/alarms/"+u.ID+"/"+act
			if act == "cancel" {
				method, path = http.MethodDelete, "/v1/alarms/"+u.ID
			}
			if status, raw := c.do(old, method, path, "", nil); status != http.StatusOK {
				t.Fatalf("%s %s (%s) on the previous release: HTTP %d: %s", method, path, u.name, status, raw)
			}
		}
	}
	// Series firing every 2 s through the upgrade.
	live := []Alarm{
		c.Create(old, `{"kind": "cron", "cron_expr": "@every 2s", "label": "live", "payload": {"series": 1}}`),
		c.Create(old, `{"kind": "cron", "cron_expr": "@every 2s", "label": "live", "delivery": "at_most_once"}`),
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, u := range settled {
		for {
			a, evs := c.Get(old, u.ID), c.Events(old, u.ID)
			if u.settle(a, evs) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not settle on the previous release: %+v, events %+v", u.name, a, evs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Alarms for the current release, and wakes in flight across the upgrade: g1's
	// outcomes are recorded by the old node after the migration, g2's wakes are still
	// in flight when it stops, so their leases outlive it.
	began := time.Now()
	laterAt := began.Add(upgradeLaterAt).UTC().Format(time.RFC3339Nano)
	later := []Alarm{
		c.Create(old, `{"kind": "once", "fire_at": "`+laterAt+`", "label": "later", "payload": {"later": 1}}`),
		c.Create(old, `{"kind": "once", "fire_at": "`+laterAt+`", "label": "later", "delivery": "at_most_once"}`),
	}
	gates.Hold("g1")
	gates.Hold("g2")
	// One group after the other, so they are claimed in different batches: a batch's
	// outcomes are applied together, after its last wake.
	var g1, g2 []Alarm
	for i := range 3 {
		delivery := atLeastOnce
		if i == 2 {
			delivery = atMostOnce
		}
		g1 = append(g1, c.Create(old, fmt.Sprintf(`{"kind": "once", "delay_seconds": 0.5, "delivery": %q, "payload": {"gate": "g1"}}`, delivery)))
	}
	gates.WaitFor(t, "g1", len(g1), 15*time.Second)
	for range 3 {
		// At-least-once only: an at-most-once wake cut off by a stopping node is never
		// sent again, by design (docs/reliability.md).
		g2 = append(g2, c.Create(old, `{"kind": "once", "delay_seconds": 0.5, "payload": {"gate": "g2"}}`))
	}
	gates.WaitFor(t, "g2", len(g2), 15*time.Second)

	var settledIDs, inFlightIDs, allIDs []string
	for _, u := range settled {
		settledIDs = append(settledIDs, u.ID)
	}
	for _, a := range slices.Concat(g1, g2) {
		inFlightIDs = append(inFlightIDs, a.ID)
	}
	allIDs = slices.Concat(settledIDs, inFlightIDs, alarmIDs(live), alarmIDs(later))
	views := map[string]json.RawMessage{}
	history := map[string]json.RawMessage{}
	for _, id := range settledIDs {
		views[id] = rawGet(t, c, old, "/v1/alarms/"+id)
		history[id] = rawGet(t, c, old, "/v1/alarms/"+id+"/events")
	}
	before := snapshot(t, kind, store)
	for _, a := range slices.Concat(g1, g2) {
		if r := before["alarms"][a.ID]; r["claimed_by"] == "NULL" {
			t.Fatalf("in-flight alarm %s has no lease before the upgrade: %v", a.ID, r)
		}
	}

	// The upgrade, while the old node runs.
	migrateStart := time.Now()
	runChronos(t, binary, 2*time.Minute, "migrate", "--store", store)
	migrateTook := time.Since(migrateStart)
	migrated := snapshot(t, kind, store)
	checkRows(t, "after the migration", before, migrated, map[string][]string{
		"alarms":     slices.Concat(settledIDs, inFlightIDs),
		"api_tokens": mapKeys(before["api_tokens"]),
	})
	checkEventsKept(t, "after the migration", before, migrated, settledIDs)

	// The old node goes on for a moment on the new schema: it records g1's outcomes
	// and creates an alarm.
	gates.Open("g1")
	for _, a := range g1 {
		if got := waitStatus(c, old, a.ID, "fired", 10*time.Second); got.Status != "fired" {
			t.Errorf("in-flight alarm %s: the previous release left it %q on the new schema, want fired", a.ID, got.Status)
		}
	}
	later = append(later, c.Create(old, `{"kind": "once", "fire_at": "`+laterAt+`", "label": "created by the old node on the new schema"}`))
	allIDs = append(allIDs, later[len(later)-1].ID)
	old.Stop() // its drain gives up on g2's wakes after 1 s: their leases stay
	if !strings.Contains(old.Logs(), "abandoning in-flight wakes") {
		t.Errorf("the old node stopped without abandoning g2's wakes: they were not in flight")
	}
	gates.Open("g2")
	if time.Now().After(began.Add(upgradeLaterAt - 2*time.Second)) {
		t.Fatalf("the upgrade took %s; the alarms meant for the current release fall due %s after it began: raise upgradeLaterAt",
			time.Since(began).Round(time.Millisecond), upgradeLaterAt)
	}
	stoppedAt := time.Now()

	// The current release takes over: two nodes, through the gates like the old one.
	var nodes []*Node
	for _, name := range []string{"new-a", "new-b"} {
		nodes = append(nodes, StartNode(t, name, NodeConfig{Store: store, WakeURL: gates.URL + "/" + name, Secret: e2eSecret, Extra: flags}))
	}
	newNode := nodes[0]

	for _, a := range slices.Concat(later, g2) {
		d := waitAcked(t, recv, a.ID, upgradeLaterAt+20*time.Second)
		if !strings.HasPrefix(d.Via, "new-") {
			t.Errorf("alarm %s was delivered by %q; want a current node", a.ID, d.Via)
		}
		if got := waitStatus(c, newNode, a.ID, "fired", 5*time.Second); got.Status != "fired" {
			t.Errorf("alarm %s: status %q after the upgrade, want fired", a.ID, got.Status)
		}
	}
	var redelivered time.Duration
	for _, a := range g2 {
		// The old node's lease, kept by the migration, held the current nodes off
		// until it expired: it was taken no earlier than the alarm fell due.
		d := recv.Acked(a.ID)
		if len(d) == 0 {
			continue // waitAcked said so
		}
		after := d[0].Arrived.Sub(a.FireAt)
		redelivered = max(redelivered, after)
		if after < upgradeLease-100*time.Millisecond {
			t.Errorf("in-flight alarm %s was delivered again %s after it fell due, before the old node's lease of %s ran out",
				a.ID, after.Round(time.Millisecond), upgradeLease)
		}
	}
	for _, a := range live {
		waitDeliveredAfter(t, recv, a.ID, stoppedAt, 15*time.Second)
	}
	time.Sleep(time.Second) // a duplicate would arrive now
	for _, a := range slices.Concat(g1, g2, later) {
		if n := len(recv.Acked(a.ID)); n != 1 {
			t.Errorf("alarm %s acknowledged %d times, want once", a.ID, n)
		}
	}

	// The API of the current release shows what the old one showed.
	for _, u := range settled {
		if diffs := sameJSON(views[u.ID], rawGet(t, c, newNode, "/v1/alarms/"+u.ID)); len(diffs) > 0 {
			t.Errorf("%s: the current release shows it differently: %s", u.name, strings.Join(diffs, "; "))
		}
		if diffs := sameJSON(history[u.ID], rawGet(t, c, newNode, "/v1/alarms/"+u.ID+"/events")); len(diffs) > 0 {
			t.Errorf("%s: the current release shows its history differently: %s", u.name, strings.Join(diffs, "; "))
		}
	}
	var dedupe struct {
		Alarm   Alarm `json:"alarm"`
		Deduped bool  `json:"deduped"`
	}
	if status, raw := c.do(newNode, http.MethodPost, "/v1/alarms", settled[0].body, &dedupe); status != http.StatusOK || !dedupe.Deduped || dedupe.Alarm.ID != settled[0].ID {
		t.Errorf("re-posting idempotency key idem-1: HTTP %d %s; want 200, deduped, alarm %s", status, raw, settled[0].ID)
	}
	if status, raw := NewClient(t, adminToken).do(newNode, http.MethodGet, "/admin/v1/overview", "", nil); status != http.StatusOK {
		t.Errorf("the previous release's admin token: HTTP %d %s; want 200", status, raw)
	}
	if status, _ := NewClient(t, revokedToken).do(newNode, http.MethodGet, "/v1/alarms", "", nil); status != http.StatusUnauthorized {
		t.Errorf("the previous release's revoked token: HTTP %d; want 401", status)
	}
	fresh := c.Create(newNode, `{"kind": "once", "delay_seconds": 0.5, "label": "after the upgrade"}`)
	waitAcked(t, recv, fresh.ID, 10*time.Second)

	for _, n := range nodes {
		n.Stop()
	}
	final := snapshot(t, kind, store)
	checkRows(t, "after the current release ran", before, final, map[string][]string{
		"alarms":     settledIDs,
		"api_tokens": mapKeys(before["api_tokens"]),
	})
	checkEventsKept(t, "after the current release ran", before, final, settledIDs)
	for _, id := range allIDs {
		if _, ok := final["alarms"][id]; !ok {
			t.Errorf("alarm %s is gone after the upgrade", id)
		}
	}
	t.Logf("figures: scenario=upgrade store=%s from=%.7s alarms=%d settled=%d in_flight=%d live=%d events=%d tokens=%d migrate=%s old_node_stopped_after=%s in_flight_sent_again_after=%s lost=0 changed=0",
		kind, previousRelease, len(allIDs), len(settledIDs), len(inFlightIDs), len(live)+len(later),
		len(before["alarm_events"]), len(before["api_tokens"]), migrateTook.Round(time.Millisecond), stoppedAt.Sub(began).Round(time.Millisecond),
		redelivered.Round(time.Millisecond))
}

// snapshot reads the tables an upgrade must keep.
func snapshot(t *testing.T, kind storeKind, store string) map[string]map[string]Row {
	t.Helper()
	return map[string]map[string]Row{
		"alarms":       TableRows(t, kind, store, "alarms", "id"),
		"alarm_events": TableRows(t, kind, store, "alarm_events", "id"),
		"api_tokens":   TableRows(t, kind, store, "api_tokens", "id"),
	}
}

// checkRows fails the test for every row of ids (by table) that changed between
// before and after, or whose new columns are not at their defaults.
func checkRows(t *testing.T, when string, before, after map[string]map[string]Row, ids map[string][]string) {
	t.Helper()
	for table, tableIDs := range ids {
		for _, d := range SameRows(before[table], after[table], tableIDs, upgradeNewColumns[table]) {
			t.Errorf("%s, %s row %s", when, table, d)
		}
	}
}

// checkEventsKept fails the test for every event of before that is gone or changed
// after, and for any new event of a settled alarm.
func checkEventsKept(t *testing.T, when string, before, after map[string]map[string]Row, settledIDs []string) {
	t.Helper()
	for _, d := range SameRows(before["alarm_events"], after["alarm_events"], mapKeys(before["alarm_events"]), upgradeNewColumns["alarm_events"]) {
		t.Errorf("%s, alarm_events row %s", when, d)
	}
	for id, r := range after["alarm_events"] {
		if _, old := before["alarm_events"][id]; !old && slices.Contains(settledIDs, r["alarm_id"]) {
			t.Errorf("%s, a new event for settled alarm %s: %v", when, r["alarm_id"], r)
		}
	}
}

// sameJSON compares an answer of the previous release with the current one's: every
// member the old answer has is there with the same value (recursively); members only
// the current release has are new fields, which its own tests cover.
func sameJSON(oldRaw, newRaw json.RawMessage) []string {
	var o, n any
	if err := json.Unmarshal(oldRaw, &o); err != nil {
		return []string{fmt.Sprintf("old answer %s: %v", oldRaw, err)}
	}
	if err := json.Unmarshal(newRaw, &n); err != nil {
		return []string{fmt.Sprintf("new answer %s: %v", newRaw, err)}
	}
	var diffs []string
	var walk func(path string, o, n any)
	walk = func(path string, o, n any) {
		switch ov := o.(type) {
		case map[string]any:
			nv, ok := n.(map[string]any)
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s: %v, was %v", path, n, o))
				return
			}
			for k, v := range ov {
				if _, ok := nv[k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s.%s: gone (was %v)", path, k, v))
					continue
				}
				walk(path+"."+k, v, nv[k])
			}
		case []any:
			nv, ok := n.([]any)
			if !ok || len(nv) != len(ov) {
				diffs = append(diffs, fmt.Sprintf("%s: %v, was %v", path, n, o))
				return
			}
			for i := range ov {
				walk(fmt.Sprintf("%s[%d]", path, i), ov[i], nv[i])
			}
		default:
			if !reflect.DeepEqual(o, n) {
				diffs = append(diffs, fmt.Sprintf("%s: %v, was %v", path, n, o))
			}
		}
	}
	walk("", o, n)
	return diffs
}

// rawGet reads an API answer that must be 200.
func rawGet(t *testing.T, c *Client, n *Node, path string) json.RawMessage {
	t.Helper()
	status, raw := c.do(n, http.MethodGet, path, "", nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s on %s: HTTP %d: %s", path, n.Name, status, raw)
	}
	return raw
}

// waitDeliveredAfter waits for an acknowledged delivery of an alarm that arrived after
// since.
func waitDeliveredAfter(t *testing.T, r *Receiver, alarmID string, since time.Time, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, d := range r.Acked(alarmID) {
			if d.Arrived.After(since) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("series %s: no wake delivered within %s after the old node stopped", alarmID, timeout)
}

// tokenID finds the id of owner's token in the output of `chronos token list`.
func tokenID(t *testing.T, list, owner string) string {
	t.Helper()
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[1] == owner {
			return f[0]
		}
	}
	t.Fatalf("no token of %q in:\n%s", owner, list)
	return ""
}

func alarmIDs(as []Alarm) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
