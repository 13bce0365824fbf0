package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// Every refusal of a create names the offending field. invalid_request: the body is not
// a well-formed alarm object; invalid_argument: a well-formed value the rules refuse.
func TestCreateRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	future := func(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339) }
	big := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	cases := []struct {
		name, body, code, field string
	}{
		// The body itself.
		{"empty body", ``, "invalid_request", ""},
		{"malformed JSON", `{"kind":"once",`, "invalid_request", ""},
		{"not JSON", `kind=once`, "invalid_request", ""},
		{"array body", `[]`, "invalid_request", ""},
		{"string body", `"x"`, "invalid_request", ""},
		{"null body", `null`, "invalid_request", ""},
		{"number body", `7`, "invalid_request", ""},
		{"trailing data", `{"kind":"once","delay_seconds":1} {"kind":"once"}`, "invalid_request", ""},
		{"trailing garbage", `{"kind":"once","delay_seconds":1}x`, "invalid_request", ""},
		{"unknown field", `{"kind":"once","delay_seconds":1,"delay":5}`, "invalid_request", "delay"},
		{"unknown field by case", `{"Kind":"once","delay_seconds":1}`, "invalid_request", "Kind"},
		{"owner is not an input", `{"kind":"once","delay_seconds":1,"owner":"bob"}`, "invalid_request", "owner"},
		{"label not a string", `{"kind":"once","delay_seconds":1,"label":42}`, "invalid_request", "label"},
		{"kind not a string", `{"kind":1,"delay_seconds":1}`, "invalid_request", "kind"},
		{"delay as string", `{"kind":"once","delay_seconds":"60"}`, "invalid_request", "delay_seconds"},
		{"max_failures as string", `{"kind":"once","delay_seconds":1,"max_failures":"3"}`, "invalid_request", "max_failures"},
		{"max_failures fractional", `{"kind":"once","delay_seconds":1,"max_failures":2.5}`, "invalid_request", "max_failures"},
		{"fire_at as number", `{"kind":"once","fire_at":1700000000}`, "invalid_request", "fire_at"},

		// The alarm's rules.
		{"kind missing", `{"delay_seconds":1}`, "invalid_argument", "kind"},
		{"kind unknown", `{"kind":"weekly","delay_seconds":1}`, "invalid_argument", "kind"},
		{"delivery unknown", `{"kind":"once","delay_seconds":1,"delivery":"exactly_once"}`, "invalid_argument", "delivery"},
		{"neither fire_at nor delay", `{"kind":"once"}`, "invalid_argument", "fire_at"},
		{"both fire_at and delay", `{"kind":"once","delay_seconds":1,"fire_at":"` + future(time.Hour) + `"}`, "invalid_argument", "fire_at"},
		{"fire_at not RFC 3339", `{"kind":"once","fire_at":"tomorrow at nine"}`, "invalid_argument", "fire_at"},
		{"fire_at without offset", `{"kind":"once","fire_at":"2030-01-02T15:04:05"}`, "invalid_argument", "fire_at"},
		{"fire_at over ten years", `{"kind":"once","fire_at":"` + future(11*365*24*time.Hour) + `"}`, "invalid_argument", "fire_at"},
		{"fire_at days in the past", `{"kind":"once","fire_at":"` + future(-72*time.Hour) + `"}`, "invalid_argument", "fire_at"},
		{"negative delay", `{"kind":"once","delay_seconds":-1}`, "invalid_argument", "delay_seconds"},
		{"delay over ten years", `{"kind":"once","delay_seconds":400000000}`, "invalid_argument", "delay_seconds"},
		{"absurd delay", `{"kind":"once","delay_seconds":1e300}`, "invalid_argument", "delay_seconds"},
		{"cron_expr on once", `{"kind":"once","delay_seconds":1,"cron_expr":"@daily"}`, "invalid_argument", "cron_expr"},
		{"timezone on once", `{"kind":"once","delay_seconds":1,"timezone":"UTC"}`, "invalid_argument", "timezone"},
		{"cron without expression", `{"kind":"cron"}`, "invalid_argument", "cron_expr"},
		{"bad cron", `{"kind":"cron","cron_expr":"61 * * * *"}`, "invalid_argument", "cron_expr"},
		{"cron gibberish", `{"kind":"cron","cron_expr":"every tuesday"}`, "invalid_argument", "cron_expr"},
		{"cron that never fires", `{"kind":"cron","cron_expr":"0 0 30 2 *"}`, "invalid_argument", "cron_expr"},
		{"cron with TZ prefix", `{"kind":"cron","cron_expr":"TZ=UTC 0 9 * * *"}`, "invalid_argument", "cron_expr"},
		{"unknown timezone", `{"kind":"cron","cron_expr":"@daily","timezone":"Mars/Olympus_Mons"}`, "invalid_argument", "timezone"},
		{"fire_at on cron", `{"kind":"cron","cron_expr":"@daily","fire_at":"` + future(time.Hour) + `"}`, "invalid_argument", "fire_at"},
		{"delay on cron", `{"kind":"cron","cron_expr":"@daily","delay_seconds":5}`, "invalid_argument", "delay_seconds"},
		{"label too long", `{"kind":"once","delay_seconds":1,"label":` + big(201) + `}`, "invalid_argument", "label"},
		{"label with NUL", `{"kind":"once","delay_seconds":1,"label":"a\u0000b"}`, "invalid_argument", "label"},
		{"wake_message too long", `{"kind":"once","delay_seconds":1,"wake_message":` + big(16*1024+1) + `}`, "invalid_argument", "wake_message"},
		{"conversation_id too long", `{"kind":"once","delay_seconds":1,"conversation_id":` + big(201) + `}`, "invalid_argument", "conversation_id"},
		{"idempotency_key too long", `{"kind":"once","delay_seconds":1,"idempotency_key":` + big(201) + `}`, "invalid_argument", "idempotency_key"},
		{"payload over 64 KiB", `{"kind":"once","delay_seconds":1,"payload":` + big(64*1024) + `}`, "invalid_argument", "payload"},
		{"max_failures zero", `{"kind":"once","delay_seconds":1,"max_failures":0}`, "invalid_argument", "max_failures"},
		{"max_failures negative", `{"kind":"once","delay_seconds":1,"max_failures":-3}`, "invalid_argument", "max_failures"},
		{"max_failures over 100", `{"kind":"once","delay_seconds":1,"max_failures":101}`, "invalid_argument", "max_failures"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expectError(t, e.as(e.alice, "POST", "/v1/alarms", c.body), http.StatusBadRequest, c.code, c.field)
		})
	}
	// Nothing refused was stored.
	var list struct {
		Alarms     []alarmView `json:"alarms"`
		NextCursor string      `json:"next_cursor"`
	}
	decodeStrict(t, e.as(e.alice, "GET", "/v1/alarms", ""), &list)
	if len(list.Alarms) != 0 {
		t.Errorf("%d alarms stored by refused requests", len(list.Alarms))
	}
}

func TestCreateBodyOverLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := `{"kind":"once","delay_seconds":1,"payload":"` + strings.Repeat("x", 200*1024) + `"}`
	expectError(t, e.as(e.alice, "POST", "/v1/alarms", body), http.StatusRequestEntityTooLarge, "payload_too_large", "")

	// A payload at the limit, in a body under the body limit, is fine.
	payload := `"` + strings.Repeat("x", 64*1024-2) + `"`
	e.create(e.alice, `{"kind":"once","delay_seconds":1,"payload":`+payload+`}`)
}
