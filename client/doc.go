// Package client is a Go client for chronos's HTTP API: the owner's routes under /v1
// and the operator's under /admin/v1.
//
// A Client holds a server's base URL and one bearer token. Every method takes a
// context first and sends one request (WithRetry lets it send again when the server
// answers 429 or 503 with a Retry-After):
//
//	c, err := client.New("http://127.0.0.1:8080", os.Getenv("CHRONOS_TOKEN"))
//	if err != nil { ... }
//	alarm, deduped, err := c.CreateAlarm(ctx, client.CreateAlarm{
//		Delay:          10 * time.Minute,
//		Label:          "tea",
//		IdempotencyKey: "tea-2030-01-02",
//	})
//	switch {
//	case client.IsInvalid(err):
//		// err.(*client.Error).Field names the refused input
//	case err != nil:
//		...
//	}
//
// The administrative routes hang off Admin, and need an admin (or admin:read) token:
//
//	ov, err := c.Admin().Overview(ctx)
//
// Errors the server answers are *Error values carrying the HTTP status and the API's
// code, message and field; IsNotFound, IsUnauthenticated, IsForbidden, IsInvalid,
// IsInvalidState, IsConflict and IsUnavailable test for the common ones through any
// wrapping. Transport failures and context errors come back wrapped, so errors.Is
// still finds context.Canceled.
//
// Times are time.Time, the zero value standing for the API's null; durations the API
// sends as seconds are time.Duration. UpdateAlarm's fields are pointers, nil leaving a
// field as it is, so that it can set a zero (new(0)) and clear a bound (new(time.Time{})). Payloads are json.RawMessage and travel byte for
// byte both ways, as the server stores them.
//
// The package depends on the standard library and chronos's domain types only, so a
// program that calls chronos pulls in no database driver.
package client
