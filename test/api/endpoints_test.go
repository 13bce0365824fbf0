package api_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/domain"
)

// Secrets the tests register; no response may ever contain one.
const (
	secretOne = "whsec_c2VjcmV0LW9uZS1kby1ub3QtbGVhay1hdC1hbGw=" // "secret-one-do-not-leak-at-all"
	secretTwo = "plain-secret-two-DO-NOT-LEAK"
)

// adminEndpointView is the admin's endpoint. Decoding refuses unknown fields.
type adminEndpointView struct {
	Owner          string       `json:"owner"`
	Name           string       `json:"name"`
	URL            string       `json:"url"`
	Secrets        []secretView `json:"secrets"`
	TimeoutSeconds float64      `json:"timeout_seconds"`
	MaxInFlight    int          `json:"max_in_flight"`
	RatePerSecond  float64      `json:"rate_per_second"`
	FailureURL     string       `json:"failure_url"`
	CreatedAt      *string      `json:"created_at"`
	UpdatedAt      *string      `json:"updated_at"`
}

type secretView struct {
	Size        int    `json:"size"`
	Fingerprint string `json:"fingerprint"`
	Weak        bool   `json:"weak"`
}

// endpointView is the owner's endpoint: no secrets, no owner, no stamps.
type endpointView struct {
	Name           string  `json:"name"`
	URL            string  `json:"url"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
	MaxInFlight    int     `json:"max_in_flight"`
	RatePerSecond  float64 `json:"rate_per_second"`
	FailureURL     string  `json:"failure_url"`
}

const billingBody = `{"name":"billing","url":"https://hooks.example.com/billing","secrets":["` + secretOne + `","` + secretTwo + `"],
	"timeout_seconds":2.5,"max_in_flight":8,"rate_per_second":0.5,"failure_url":"https://hooks.example.com/failed"}`

// noSecrets fails t when a response carries a registered secret.
func noSecrets(t *testing.T, what string, res response) {
	t.Helper()
	for _, s := range []string{secretOne, secretTwo, "c2VjcmV0LW9uZS1kby1ub3QtbGVhay1hdC1hbGw"} {
		if strings.Contains(string(res.body), s) {
			t.Errorf("%s shows a secret: %s", what, res.body)
		}
	}
}

func decodeAdminEndpoint(t *testing.T, res response, status int) adminEndpointView {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	noSecrets(t, "an admin endpoint", res)
	var body struct {
		Endpoint adminEndpointView `json:"endpoint"`
	}
	decodeStrict(t, res, &body)
	return body.Endpoint
}

func decodeAdminEndpoints(t *testing.T, res response) []adminEndpointView {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", res.status, res.body)
	}
	noSecrets(t, "an admin endpoint list", res)
	var body struct {
		Endpoints []adminEndpointView `json:"endpoints"`
	}
	decodeStrict(t, res, &body)
	return body.Endpoints
}

// digest is how the admin's views show the secret s: its size and its fingerprint
// under the cluster's key (the server's, read through the same store).
func (e *env) digest(s string) secretView {
	e.t.Helper()
	fp, err := admin.NewEndpoints(e.store, nil, nil).Fingerprint(e.ctx, s)
	if err != nil {
		e.t.Fatal(err)
	}
	return secretView{Size: len(s), Fingerprint: fp, Weak: domain.WeakSecret(s)}
}

// createBilling registers alice's billing endpoint as the admin.
func (e *env) createBilling() adminEndpointView {
	e.t.Helper()
	return decodeAdminEndpoint(e.t, e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints", billingBody), http.StatusCreated)
}

// The admin routes refuse requests without a token (401) and owner tokens (403); the
// read-only admin token reads and is refused every change (403). The owner's list needs
// any token.
func TestEndpointRoutesNeedTheirScopes(t *testing.T) {
	e := newEnv(t)
	e.createBilling()
	reads := [][2]string{
		{"GET", "/admin/v1/endpoints"}, {"GET", "/admin/v1/owners/alice/endpoints"},
		{"GET", "/admin/v1/owners/alice/endpoints/billing"},
	}
	changes := []struct{ method, path, body string }{
		{"POST", "/admin/v1/owners/alice/endpoints", strings.Replace(billingBody, `"billing"`, `"other"`, 1)},
		{"PATCH", "/admin/v1/owners/alice/endpoints/billing", `{"max_in_flight":1}`},
		{"DELETE", "/admin/v1/owners/alice/endpoints/billing", ""},
	}
	for _, r := range reads {
		expectError(t, e.request(r[0], r[1], "", nil), http.StatusUnauthorized, "unauthenticated", "")
		expectError(t, e.as(e.alice, r[0], r[1], ""), http.StatusForbidden, "forbidden", "")
		if res := e.as(e.reader, r[0], r[1], ""); res.status != http.StatusOK {
			t.Errorf("%s %s as admin:read: %d %s", r[0], r[1], res.status, res.body)
		}
	}
	for _, c := range changes {
		expectError(t, e.request(c.method, c.path, c.body, nil), http.StatusUnauthorized, "unauthenticated", "")
		expectError(t, e.as(e.alice, c.method, c.path, c.body), http.StatusForbidden, "forbidden", "")
		expectError(t, e.as(e.reader, c.method, c.path, c.body), http.StatusForbidden, "forbidden", "")
	}
	expectError(t, e.request("GET", "/v1/endpoints", "", nil), http.StatusUnauthorized, "unauthenticated", "")
	// Nothing the refused calls asked for happened.
	got := decodeAdminEndpoints(t, e.as(e.reader, "GET", "/admin/v1/endpoints", ""))
	if len(got) != 1 || got[0].Name != "billing" || got[0].MaxInFlight != 8 {
		t.Errorf("after refused changes: %+v, want billing as created", got)
	}
}

// An admin registers, reads, lists, changes and deletes an endpoint; no answer shows a
// secret, only each one's size and SHA-256; every change tells the nodes (the cluster
// state "endpoints" changes).
func TestEndpointLifecycle(t *testing.T) {
	e := newEnv(t)
	state := func() string {
		st, _, err := e.store.GetState(e.ctx, app.EndpointsStateName)
		if err != nil {
			t.Fatal(err)
		}
		return st.Value
	}
	res := e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints", billingBody)
	created := decodeAdminEndpoint(t, res, http.StatusCreated)
	if loc := res.header.Get("Location"); loc != "/admin/v1/owners/alice/endpoints/billing" {
		t.Errorf("Location = %q", loc)
	}
	want := adminEndpointView{Owner: "alice", Name: "billing", URL: "https://hooks.example.com/billing",
		Secrets: []secretView{e.digest(secretOne), e.digest(secretTwo)}, TimeoutSeconds: 2.5, MaxInFlight: 8, RatePerSecond: 0.5,
		FailureURL: "https://hooks.example.com/failed", CreatedAt: created.CreatedAt, UpdatedAt: created.UpdatedAt}
	wantEndpoint(t, "created", created, want)
	near(t, "created_at", instant(t, created.CreatedAt), instant(t, created.UpdatedAt))
	afterCreate := state()
	if afterCreate == "" {
		t.Error("creating an endpoint did not write the cluster state \"endpoints\"")
	}

	wantEndpoint(t, "GET", decodeAdminEndpoint(t, e.as(e.reader, "GET", "/admin/v1/owners/alice/endpoints/billing", ""), http.StatusOK), want)
	decodeAdminEndpoint(t, e.as(e.ops, "POST", "/admin/v1/owners/bob/endpoints", `{"name":"alerts","url":"http://bob.example.com","secrets":["test-secret-of-24-bytes-b"]}`), http.StatusCreated)
	decodeAdminEndpoint(t, e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints", `{"name":"alerts","url":"http://a.example.com","secrets":["test-secret-of-24-bytes-a"]}`), http.StatusCreated)
	if got := decodeAdminEndpoints(t, e.as(e.ops, "GET", "/admin/v1/owners/alice/endpoints", "")); len(got) != 2 || got[0].Name != "alerts" || got[1].Name != "billing" {
		t.Errorf("alice's endpoints: %+v, want alerts then billing", got)
	}
	all := decodeAdminEndpoints(t, e.as(e.ops, "GET", "/admin/v1/endpoints", ""))
	var order []string
	for _, x := range all {
		order = append(order, x.Owner+"/"+x.Name)
	}
	if strings.Join(order, " ") != "alice/alerts alice/billing bob/alerts" {
		t.Errorf("every endpoint: %v, want by owner then name", order)
	}
	if got := decodeAdminEndpoints(t, e.as(e.ops, "GET", "/admin/v1/owners/carol/endpoints", "")); len(got) != 0 {
		t.Errorf("carol's endpoints: %+v, want none", got)
	}

	// A patch changes what it gives; secrets replace the list; null leaves a field.
	before := state()
	patched := decodeAdminEndpoint(t, e.as(e.ops, "PATCH", "/admin/v1/owners/alice/endpoints/billing",
		`{"secrets":["`+secretTwo+`"],"timeout_seconds":0,"failure_url":"","rate_per_second":null}`), http.StatusOK)
	want.Secrets, want.TimeoutSeconds, want.FailureURL, want.UpdatedAt = []secretView{e.digest(secretTwo)}, 0, "", patched.UpdatedAt
	wantEndpoint(t, "patched", patched, want)
	if state() == before {
		t.Error("a patch did not change the cluster state \"endpoints\"")
	}
	before = state()
	unchanged := decodeAdminEndpoint(t, e.as(e.ops, "PATCH", "/admin/v1/owners/alice/endpoints/billing", `{}`), http.StatusOK)
	wantEndpoint(t, "an empty patch", unchanged, want)
	if state() != before {
		t.Error("a patch that changes nothing wrote the cluster state")
	}

	expectError(t, e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints", billingBody), http.StatusConflict, "conflict", "")
	res = e.as(e.ops, "DELETE", "/admin/v1/owners/alice/endpoints/billing", "")
	if res.status != http.StatusNoContent || len(res.body) != 0 {
		t.Errorf("DELETE: %d %s, want 204 without a body", res.status, res.body)
	}
	if state() == before {
		t.Error("a delete did not change the cluster state \"endpoints\"")
	}
	expectError(t, e.as(e.ops, "GET", "/admin/v1/owners/alice/endpoints/billing", ""), http.StatusNotFound, "not_found", "")
	expectError(t, e.as(e.ops, "DELETE", "/admin/v1/owners/alice/endpoints/billing", ""), http.StatusNotFound, "not_found", "")
	expectError(t, e.as(e.ops, "PATCH", "/admin/v1/owners/alice/endpoints/billing", `{"max_in_flight":1}`), http.StatusNotFound, "not_found", "")
	expectError(t, e.as(e.ops, "GET", "/admin/v1/owners/bob/endpoints/billing", ""), http.StatusNotFound, "not_found", "")
}

func wantEndpoint(t *testing.T, what string, got, want adminEndpointView) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

// Every refusal of a create or a patch is a 400 naming the field, and stores nothing;
// an owner no token could have is a 400 naming owner; a name that cannot be one is a 404.
func TestEndpointValidation(t *testing.T) {
	e := newEnv(t)
	base := `"name":"x","url":"https://h.example.com","secrets":["test-secret-of-24-bytes-s"]`
	for _, c := range []struct{ body, code, field string }{
		{`{"url":"https://h.example.com","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "name"},
		{`{"name":"Bad Name","url":"https://h.example.com","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "name"},
		{`{"name":"x","url":"ftp://h.example.com","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"https://h.example.com","secrets":[""]}`, "invalid_argument", "secrets"},
		{`{"name":"x","url":"https://h.example.com","secrets":["only-23-bytes-of-secret"]}`, "invalid_argument", "secrets"},
		{`{"name":"x","url":"https://h.example.com","secrets":["whsec_c2hvcnQ="]}`, "invalid_argument", "secrets"},
		{`{"name":"x","url":"https://user:pw@h.example.com","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{` + base + `,"failure_url":"https://token@h.example.com/f"}`, "invalid_argument", "failure_url"},
		{`{"name":"x","url":"https://h.example.com","secrets":["whsec_!!not base64"]}`, "invalid_argument", "secrets"},
		{`{"name":"x","url":"https://h.example.com","secrets":["a","b","c","d","e","f","g","h","i","j","k"]}`, "invalid_argument", "secrets"},
		{`{` + base + `,"timeout_seconds":0.05}`, "invalid_argument", "timeout_seconds"},
		{`{` + base + `,"timeout_seconds":301}`, "invalid_argument", "timeout_seconds"},
		{`{` + base + `,"timeout_seconds":-1}`, "invalid_argument", "timeout_seconds"},
		{`{` + base + `,"max_in_flight":-1}`, "invalid_argument", "max_in_flight"},
		{`{` + base + `,"max_in_flight":100001}`, "invalid_argument", "max_in_flight"},
		{`{` + base + `,"rate_per_second":-0.5}`, "invalid_argument", "rate_per_second"},
		{`{` + base + `,"rate_per_second":1000001}`, "invalid_argument", "rate_per_second"},
		{`{` + base + `,"failure_url":"mailto:ops@example.com"}`, "invalid_argument", "failure_url"},
		{`{` + base + `,"max_in_flight":"many"}`, "invalid_request", "max_in_flight"},
		{`{` + base + `,"secret":"s"}`, "invalid_request", "secret"},
		// Addresses the node will not deliver to (docs/security.md, "Egress"), in any spelling.
		{`{"name":"x","url":"http://127.0.0.1:8080/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://127.1/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://2130706433/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://0x7f.1/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://[::1]/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://[::ffff:127.0.0.1]/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://0.0.0.0:8080/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://169.254.169.254/latest/meta-data/","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://10.0.0.5/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{"name":"x","url":"http://100.64.0.1/w","secrets":["test-secret-of-24-bytes-s"]}`, "invalid_argument", "url"},
		{`{` + base + `,"failure_url":"http://192.168.1.1/f"}`, "invalid_argument", "failure_url"},
	} {
		res := e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints", c.body)
		expectError(t, res, http.StatusBadRequest, c.code, c.field)
		noSecrets(t, "a refusal", res)
	}
	long := strings.Repeat("o", 201)
	expectError(t, e.as(e.ops, "POST", "/admin/v1/owners/"+long+"/endpoints", `{`+base+`}`), http.StatusBadRequest, "invalid_argument", "owner")
	expectError(t, e.as(e.ops, "GET", "/admin/v1/owners/"+long+"/endpoints", ""), http.StatusBadRequest, "invalid_argument", "owner")
	expectError(t, e.as(e.ops, "GET", "/admin/v1/owners/alice/endpoints/%01", ""), http.StatusNotFound, "not_found", "")

	e.createBilling()
	for _, c := range []struct{ body, code, field string }{
		{`{"name":"renamed"}`, "invalid_argument", "name"},
		{`{"url":"not a url"}`, "invalid_argument", "url"},
		{`{"secrets":[]}`, "invalid_argument", "secrets"},
		{`{"secrets":["short"]}`, "invalid_argument", "secrets"},
		{`{"url":"https://u:p@hooks.example.com/billing"}`, "invalid_argument", "url"},
		{`{"url":"http://127.1:9000/w"}`, "invalid_argument", "url"},
		{`{"failure_url":"http://[fd00::1]/f"}`, "invalid_argument", "failure_url"},
		{`{"timeout_seconds":600}`, "invalid_argument", "timeout_seconds"},
		{`{"max_in_flight":-2}`, "invalid_argument", "max_in_flight"},
		{`{"rate_per_second":"fast"}`, "invalid_request", "rate_per_second"},
		{`{"owner":"bob"}`, "invalid_request", "owner"},
	} {
		expectError(t, e.as(e.ops, "PATCH", "/admin/v1/owners/alice/endpoints/billing", c.body), http.StatusBadRequest, c.code, c.field)
	}
	got := decodeAdminEndpoints(t, e.as(e.ops, "GET", "/admin/v1/endpoints", ""))
	if len(got) != 1 || got[0].URL != "https://hooks.example.com/billing" || got[0].TimeoutSeconds != 2.5 || len(got[0].Secrets) != 2 {
		t.Errorf("after refused creates and patches: %+v, want billing alone, unchanged", got)
	}
}

// An owner lists its own endpoints, without secrets, owner or stamps; another owner's
// are not among them.
func TestOwnerListsItsEndpoints(t *testing.T) {
	e := newEnv(t)
	e.createBilling()
	decodeAdminEndpoint(t, e.as(e.ops, "POST", "/admin/v1/owners/bob/endpoints", `{"name":"bobs","url":"http://bob.example.com","secrets":["test-secret-of-24-bytes-b"]}`), http.StatusCreated)
	res := e.as(e.alice, "GET", "/v1/endpoints", "")
	if res.status != http.StatusOK {
		t.Fatalf("GET /v1/endpoints: %d %s", res.status, res.body)
	}
	noSecrets(t, "the owner's list", res)
	var body struct {
		Endpoints []endpointView `json:"endpoints"`
	}
	decodeStrict(t, res, &body)
	want := endpointView{Name: "billing", URL: "https://hooks.example.com/billing", TimeoutSeconds: 2.5, MaxInFlight: 8,
		RatePerSecond: 0.5, FailureURL: "https://hooks.example.com/failed"}
	if len(body.Endpoints) != 1 || body.Endpoints[0] != want {
		t.Errorf("alice's endpoints: %+v, want [%+v]", body.Endpoints, want)
	}
	res = e.as(e.newToken("carol"), "GET", "/v1/endpoints", "")
	if res.status != http.StatusOK || strings.TrimSpace(string(res.body)) != `{"endpoints":[]}` {
		t.Errorf("carol's endpoints: %d %s, want an empty list", res.status, res.body)
	}
}

// An alarm names one of its owner's endpoints and shows it in every view; a name the
// owner has no endpoint of (none at all, or another owner's) is a 400 naming endpoint,
// in a single create and in a batch item; the endpoint cannot be changed by a patch.
func TestAlarmNamesAnEndpoint(t *testing.T) {
	e := newEnv(t)
	e.createBilling()
	a := e.create(e.alice, `{"kind":"once","delay_seconds":60,"endpoint":"billing"}`)
	if a.Endpoint != "billing" {
		t.Errorf("created alarm names endpoint %q, want billing", a.Endpoint)
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Endpoint != "billing" {
		t.Errorf("GET names endpoint %q", got.Endpoint)
	}
	if got := decodeAdminAlarm(t, e.as(e.ops, "GET", "/admin/v1/alarms/"+a.ID, "")); got.Endpoint != "billing" {
		t.Errorf("the admin's view names endpoint %q", got.Endpoint)
	}
	if plain := e.create(e.alice, onceIn60s); plain.Endpoint != "" {
		t.Errorf("an alarm naming no endpoint shows %q", plain.Endpoint)
	}

	msg := expectError(t, e.as(e.alice, "POST", "/v1/alarms", `{"kind":"once","delay_seconds":60,"endpoint":"nope"}`),
		http.StatusBadRequest, "invalid_argument", "endpoint")
	if !strings.Contains(msg.Message, `"nope"`) {
		t.Errorf("the refusal %q does not name the endpoint", msg.Message)
	}
	expectError(t, e.as(e.bob, "POST", "/v1/alarms", `{"kind":"once","delay_seconds":60,"endpoint":"billing"}`),
		http.StatusBadRequest, "invalid_argument", "endpoint")
	expectError(t, e.as(e.alice, "POST", "/v1/alarms", `{"kind":"once","delay_seconds":60,"endpoint":"Not A Name"}`),
		http.StatusBadRequest, "invalid_argument", "endpoint")
	expectError(t, e.as(e.alice, "PATCH", "/v1/alarms/"+a.ID, `{"endpoint":"other"}`), http.StatusBadRequest, "invalid_argument", "endpoint")

	rs := e.batch(e.alice,
		`{"kind":"once","delay_seconds":60,"endpoint":"billing"}`,
		`{"kind":"once","delay_seconds":60,"endpoint":"nope"}`,
		onceIn60s)
	if rs[0].Alarm == nil || rs[0].Alarm.Endpoint != "billing" || rs[2].Alarm == nil || rs[2].Alarm.Endpoint != "" {
		t.Errorf("batch items 0 and 2: %+v, %+v; want created, naming billing and nothing", rs[0], rs[2])
	}
	if r := rs[1]; r.Error == nil || r.Error.Code != "invalid_argument" || r.Error.Field != "endpoint" {
		t.Errorf("batch item 1: %+v, want invalid_argument on endpoint", r)
	}

	// Deleting the endpoint leaves the alarm naming it.
	if res := e.as(e.ops, "DELETE", "/admin/v1/owners/alice/endpoints/billing", ""); res.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", res.status, res.body)
	}
	if got := expectAlarm(t, e.as(e.alice, "GET", "/v1/alarms/"+a.ID, "")); got.Endpoint != "billing" {
		t.Errorf("after the endpoint's deletion the alarm names %q, want billing", got.Endpoint)
	}
}

// Without secrets the server makes one (whsec_, 32 bytes) and returns it in that answer
// alone; later reads show only its fingerprint, and a receiver verifies wakes with it.
func TestEndpointSecretMadeByTheServer(t *testing.T) {
	e := newEnv(t)
	res := e.as(e.ops, "POST", "/admin/v1/owners/alice/endpoints", `{"name":"made","url":"https://hooks.example.com/m"}`)
	if res.status != http.StatusCreated {
		t.Fatalf("create without secrets: %d %s", res.status, res.body)
	}
	var body struct {
		Endpoint adminEndpointView `json:"endpoint"`
		Secret   string            `json:"secret"`
	}
	decodeStrict(t, res, &body)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(body.Secret, "whsec_"))
	if !strings.HasPrefix(body.Secret, "whsec_") || err != nil || len(key) != 32 {
		t.Fatalf("the made secret %q: want whsec_ and base64 of 32 bytes", body.Secret)
	}
	if want := []secretView{e.digest(body.Secret)}; !reflect.DeepEqual(body.Endpoint.Secrets, want) || want[0].Weak {
		t.Errorf("its view %+v, want %+v", body.Endpoint.Secrets, want)
	}
	got := e.as(e.reader, "GET", "/admin/v1/owners/alice/endpoints/made", "")
	if strings.Contains(string(got.body), body.Secret) || strings.Contains(string(got.body), `"secret"`) {
		t.Errorf("a later read shows the secret: %s", got.body)
	}
	// A plain SHA-256 of the secret is nowhere: admin:read cannot check a guess offline.
	sum := sha256.Sum256([]byte(body.Secret))
	if strings.Contains(string(got.body), hex.EncodeToString(sum[:])[:16]) {
		t.Errorf("a read shows the secret's SHA-256: %s", got.body)
	}
}

// An endpoint stored before the rules (a short secret, credentials in its URLs) keeps
// working and can be changed; views flag the short secret as weak and show the URLs'
// credentials as xxxxx, to the admin and to the owner.
func TestEndpointStoredBeforeTheRules(t *testing.T) {
	e := newEnv(t)
	if _, err := e.store.CreateEndpoint(e.ctx, domain.Endpoint{Owner: "alice", Name: "old", URL: "https://user:hunter2@h.example.com/w",
		Secrets: []string{"short"}, FailureURL: "https://tok3n@h.example.com/f"}); err != nil {
		t.Fatal(err)
	}
	got := decodeAdminEndpoint(t, e.as(e.reader, "GET", "/admin/v1/owners/alice/endpoints/old", ""), http.StatusOK)
	if got.URL != "https://xxxxx@h.example.com/w" || got.FailureURL != "https://xxxxx@h.example.com/f" {
		t.Errorf("the admin's view shows url %q, failure_url %q; want the credentials as xxxxx", got.URL, got.FailureURL)
	}
	if len(got.Secrets) != 1 || !got.Secrets[0].Weak {
		t.Errorf("the short secret's view %+v, want it flagged weak", got.Secrets)
	}
	res := e.as(e.alice, "GET", "/v1/endpoints", "")
	for _, leak := range []string{"hunter2", "tok3n", "user:"} {
		if strings.Contains(string(res.body), leak) {
			t.Errorf("the owner's view shows %q: %s", leak, res.body)
		}
	}
	patched := decodeAdminEndpoint(t, e.as(e.ops, "PATCH", "/admin/v1/owners/alice/endpoints/old", `{"max_in_flight":3}`), http.StatusOK)
	if patched.MaxInFlight != 3 {
		t.Errorf("patched: %+v", patched)
	}
	stored, err := e.store.GetEndpoint(e.ctx, "alice", "old")
	if err != nil || stored.URL != "https://user:hunter2@h.example.com/w" || stored.Secrets[0] != "short" {
		t.Errorf("after a patch the endpoint is %+v (%v), want its URL and secret kept", stored, err)
	}
}
