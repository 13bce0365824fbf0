//go:build e2e

package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestLogsKeepSecrets is issue 17's item 8: a node logging at debug level, through
// everything an operator and an owner do (tokens, an endpoint with secrets and their
// rotation, wakes signed with a --wake-secret to a URL carrying a key, failed
// deliveries and their retries, an endpoint breaker opening, admin views, a retry,
// dashboard sign-ins, refused requests, a graceful stop), never writes a token, a
// secret, a session cookie, a payload or a wake message to its stdout or stderr.
func TestLogsKeepSecrets(t *testing.T) {
	for _, tt := range []struct {
		kind   storeKind
		format string
	}{{onSQLite, "console"}, {onPostgres, "json"}} {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			logsKeepSecrets(t, tt.kind, tt.format)
		})
	}
}

// marker is a recognisable string of its own for one secret.
func marker(what string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return what + "-" + hex.EncodeToString(b[:])
}

func logsKeepSecrets(t *testing.T, kind storeKind, format string) {
	secrets := map[string]string{
		"wake secret":           marker("wake-secret"),
		"wake URL key":          marker("url-key"),
		"endpoint secret":       marker("endpoint-secret"),
		"rotated-in secret":     marker("endpoint-secret-next"),
		"endpoint URL key":      marker("endpoint-url-key"),
		"payload":               marker("payload"),
		"wake message":          marker("wake-message"),
		"conversation id":       marker("conversation"),
		"refused token":         "chr_" + marker("refused"),
		"refused create's body": marker("refused-payload"),
	}
	store := newStoreURL(t, kind)
	if kind == onPostgres {
		// The server trusts local connections and ignores a password, so the store URL
		// can carry one that must not reach the log.
		secrets["database password"] = marker("db-password")
		u, err := url.Parse(store)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(u.User.Username(), secrets["database password"])
		store = u.String()
	}
	owner := CreateToken(t, store, "keeper")
	admin := CreateToken(t, store, "ops", "--admin")
	secrets["owner token"], secrets["admin token"] = owner, admin

	def := NewReceiver(t, secrets["wake secret"])
	ep := NewReceiver(t, secrets["endpoint secret"])
	def.Fail() // the first attempts fail and are retried
	ep.Fail()  // and the endpoint's breaker opens
	node := StartNode(t, "keeper", NodeConfig{Store: store, WakeURL: def.URL + "/hook?key=" + secrets["wake URL key"],
		Secret: secrets["wake secret"], Extra: faultFlags("--log-level", "debug", "--log-format", format,
			"--backoff-base", "300ms", "--backoff-cap", "1s", "--max-failures", "4",
			"--endpoint-breaker-failures", "2", "--endpoint-breaker-cooldown", "1s", "--endpoint-allow-cidr", receiverRange)})
	c, ops := NewClient(t, owner), NewClient(t, admin)

	// The operator registers an endpoint with a secret, then rotates a second one in.
	if status, raw := ops.do(node, http.MethodPost, "/admin/v1/owners/keeper/endpoints",
		fmt.Sprintf(`{"name":"billing","url":%q,"secrets":[%q]}`, ep.URL+"/in?key="+secrets["endpoint URL key"], secrets["endpoint secret"]), nil); status != http.StatusCreated {
		t.Fatalf("creating the endpoint: HTTP %d %s", status, raw)
	}
	if status, raw := ops.do(node, http.MethodPatch, "/admin/v1/owners/keeper/endpoints/billing",
		fmt.Sprintf(`{"secrets":[%q,%q]}`, secrets["endpoint secret"], secrets["rotated-in secret"]), nil); status != http.StatusOK {
		t.Fatalf("rotating the endpoint's secret: HTTP %d %s", status, raw)
	}

	// The owner's alarms carry the payload, wake message and conversation markers.
	body := func(extra string) string {
		return fmt.Sprintf(`{"kind":"once","delay_seconds":0.2,"label":"kept","payload":{"note":%q},"wake_message":%q,"conversation_id":%q%s}`,
			secrets["payload"], secrets["wake message"], secrets["conversation id"], extra)
	}
	var ids []string
	for range 3 {
		ids = append(ids, c.Create(node, body("")).ID)
	}
	failing := c.Create(node, body(`,"max_failures":1`)).ID // fails for good; the operator retries it
	for range 3 {
		ids = append(ids, c.Create(node, body(`,"endpoint":"billing","max_failures":20`)).ID)
	}
	series := c.Create(node, fmt.Sprintf(`{"kind":"cron","cron_expr":"@every 1s","payload":{"note":%q},"wake_message":%q}`,
		secrets["payload"], secrets["wake message"])).ID

	// Refused requests: an unknown token, a create the API refuses, a bad sign-in.
	if status, _ := NewClient(t, secrets["refused token"]).do(node, http.MethodGet, "/v1/alarms", "", nil); status != http.StatusUnauthorized {
		t.Errorf("an unknown token got HTTP %d", status)
	}
	if status, _ := c.do(node, http.MethodPost, "/v1/alarms", fmt.Sprintf(`{"kind":"once","delay_seconds":-1,"payload":{"x":%q},"bogus":1}`,
		secrets["refused create's body"]), nil); status != http.StatusBadRequest {
		t.Errorf("a bad create got HTTP %d", status)
	}

	waitFor(t, 20*time.Second, "the failing alarm to fail and the endpoint's breaker to open", func() bool {
		return c.Get(node, failing).Status == "failed" && len(ep.Deliveries()) >= 2 && strings.Contains(node.Logs(), "endpoint breaker open")
	})
	def.Recover()
	ep.Recover()
	waitFor(t, 30*time.Second, "every alarm delivered after the receivers recovered", func() bool {
		for _, id := range ids {
			if c.Get(node, id).Status != "fired" {
				return false
			}
		}
		return true
	})

	// The operator looks around, retries the failed alarm, and signs in to the dashboard.
	for _, path := range []string{"/admin/v1/overview", "/admin/v1/alarms?owner=keeper", "/admin/v1/alarms/" + failing,
		"/admin/v1/alarms/" + failing + "/events", "/admin/v1/endpoints", "/admin/v1/workers", "/v1/alarms/" + series + "/events"} {
		cl := ops
		if strings.HasPrefix(path, "/v1/") {
			cl = c
		}
		if status, raw := cl.do(node, http.MethodGet, path, "", nil); status != http.StatusOK {
			t.Errorf("GET %s: HTTP %d %s", path, status, raw)
		}
	}
	if status, raw := ops.do(node, http.MethodPost, "/admin/v1/alarms/"+failing+"/retry", "", nil); status != http.StatusOK {
		t.Errorf("retrying the failed alarm: HTTP %d %s", status, raw)
	}
	waitFor(t, 10*time.Second, "the retried alarm delivered", func() bool { return c.Get(node, failing).Status == "fired" })
	if s := signIn(t, node, secrets["refused token"], http.StatusUnauthorized); s != "" {
		t.Errorf("a refused sign-in got a session cookie")
	}
	secrets["session cookie"] = signIn(t, node, admin, http.StatusSeeOther)
	if secrets["session cookie"] == "" {
		t.Fatal("signing in with the admin token set no session cookie")
	}
	c.do(node, http.MethodDelete, "/v1/alarms/"+series, "", nil)
	node.Stop()

	logs := node.Logs()
	if debug := map[string]string{"json": `"level":"debug"`, "console": "\tDEBUG\t"}[format]; !strings.Contains(logs, debug) {
		t.Fatalf("no debug entry in the node's log: it did not log at debug level\n%s", logs)
	}
	if !strings.Contains(logs, "endpoint breaker open") || !strings.Contains(logs, "shutting down") {
		t.Fatalf("the log lacks the breaker's or the shutdown's entries: the run did not go as planned\n%s", logs)
	}
	found := 0
	for what, s := range secrets {
		if i := strings.Index(logs, s); i >= 0 {
			found++
			t.Errorf("the node's log holds the %s: ...%s...", what, logs[max(i-300, 0):min(i+len(s)+100, len(logs))])
		}
	}
	// The markers did travel: the receivers got them, signed with the secrets.
	for _, d := range append(def.Deliveries(), ep.Deliveries()...) {
		if !strings.Contains(string(d.Payload), secrets["payload"]) || !d.SignatureOK {
			t.Errorf("a wake arrived without the payload marker or a good signature: %s", d.Payload)
			break
		}
	}
	failed := 0
	for _, d := range append(def.Deliveries(), ep.Deliveries()...) {
		if d.Status != http.StatusOK {
			failed++
		}
	}
	t.Logf("figures: store=%s format=%s log_lines=%d log_bytes=%d wakes=%d (%d refused) secrets_checked=%d found_in_log=%d",
		kind, format, strings.Count(logs, "\n"), len(logs), len(def.Deliveries())+len(ep.Deliveries()), failed, len(secrets), found)
}

// sessionCookie is the dashboard's session cookie (adapters/webui); a sign-in may set
// others beside it (a flash message).
const sessionCookie = "chronos_session"

// signIn posts the dashboard's sign-in form with token and returns the session cookie
// it was given ("" when none), after checking the answer's status.
func signIn(t *testing.T, n *Node, token string, want int) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := "http://" + n.Addr
	req, _ := http.NewRequest(http.MethodPost, base+"/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatalf("sign-in: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("sign-in answered HTTP %d, want %d", resp.StatusCode, want)
	}
	var session string
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			session = ck.Value
		}
	}
	if session != "" {
		// A page or two with the session, as an operator would.
		u, _ := url.Parse(base + "/ui/")
		for _, p := range []string{"/ui/", "/ui/alarms", "/ui/failed"} {
			r, err := cl.Get(base + p)
			if err != nil {
				t.Fatalf("GET %s: %v", p, err)
			}
			_, _ = io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode != http.StatusOK {
				t.Errorf("GET %s with a session: HTTP %d (cookies %v)", p, r.StatusCode, jar.Cookies(u))
			}
		}
	}
	return session
}
