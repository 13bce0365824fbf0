package sqlrow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
	"github.com/chronoshq/chronos/domain"
)

// EndpointColumns is the column list every endpoint read selects, in ScanEndpoint's
// order, and every insert writes (migration 00007). The two stamps come last: each store
// writes them with its own now.
const EndpointColumns = `owner, name, url, secrets, timeout_ms, max_in_flight, rate_per_second, failure_url,
	created_at, updated_at`

// EndpointParams is how many values one row of EndpointColumns binds.
const EndpointParams = 10

// EndpointValues are e's values of EndpointColumns but the two stamps, in that order:
// the owner and the name (the key), then what UpdateEndpoint replaces. Only the
// domain's Endpoint is stored, so the timeout is whole milliseconds (see timeoutMS).
func EndpointValues(e domain.Endpoint) []any {
	return []any{e.Owner, e.Name, e.URL, EncodeSecrets(e.Secrets), timeoutMS(e.Timeout), e.MaxInFlight,
		e.RatePerSecond, e.FailureURL}
}

// ScanEndpoint reads one row of EndpointColumns; toTime is as for NewAlarms.
func ScanEndpoint[T any](r Scanner, toTime func(T) time.Time) (domain.Endpoint, error) {
	var (
		e                domain.Endpoint
		secrets          string
		timeout          int64
		created, updated T
	)
	if err := r.Scan(&e.Owner, &e.Name, &e.URL, &secrets, &timeout, &e.MaxInFlight, &e.RatePerSecond, &e.FailureURL,
		&created, &updated); err != nil {
		return domain.Endpoint{}, err
	}
	s, err := DecodeSecrets(secrets)
	if err != nil {
		return domain.Endpoint{}, fmt.Errorf("sqlrow: stored endpoint %s/%s: %w", e.Owner, e.Name, err)
	}
	e.Secrets, e.Timeout = s, time.Duration(timeout)*time.Millisecond
	e.CreatedAt, e.UpdatedAt = toTime(created), toTime(updated)
	return e, nil
}

// timeoutMS is the timeout_ms column: the timeout in whole milliseconds, the finest
// that matters for a bound of at least domain.MinEndpointTimeout (app.Endpoints rounds
// to it before storing, so what is stored is what it returns).
func timeoutMS(d time.Duration) int64 { return d.Milliseconds() }

// EncodeSecrets is the secrets column: the list as a JSON array of strings, in order (a
// short list read whole, never queried inside; see migration 00007). No secrets is
// "[]", never "null".
func EncodeSecrets(secrets []string) string {
	b, err := json.Marshal(jsonio.Array(secrets))
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	return string(b)
}

// DecodeSecrets reads a secrets column back. encoding/json turns invalid UTF-8 into
// U+FFFD, but the domain refuses such secrets, so every stored one comes back exactly.
// The error quotes nothing of the text: it is the endpoint's signing keys.
func DecodeSecrets(text string) ([]string, error) {
	var s []string
	if err := json.Unmarshal([]byte(text), &s); err != nil || s == nil {
		return nil, fmt.Errorf("secrets are not a JSON array of strings (%d bytes)", len(text))
	}
	return s, nil
}
