package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/adapters/httpapi"
	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/app/admin"
	"github.com/chronoshq/chronos/app/owners"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/ports"
)

// apiServer is the HTTP API of `chronos serve` (the same handler, token and store) run
// by the bench on loopback next to the node, for --via api: creates then pay for HTTP,
// JSON and authentication on the same machine as the dispatcher, as in production.
type apiServer struct {
	srv    *http.Server
	url    string
	token  string
	client *http.Client
}

func startAPI(ctx context.Context, s ports.Store, alarms *owners.Alarms, clock *app.StoreClock) (*apiServer, error) {
	tokens := admin.NewTokens(s, clock)
	plain, _, err := tokens.Create(ctx, Owner, domain.ScopeOwner)
	if err != nil {
		return nil, fmt.Errorf("bench: creating the API token: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: API listener: %w", err)
	}
	a := &apiServer{
		srv:    &http.Server{Handler: httpapi.New(alarms, tokens, s, httpapi.Options{}), ReadHeaderTimeout: 10 * time.Second},
		url:    "http://" + ln.Addr().String() + "/v1/alarms/batch",
		token:  plain,
		client: &http.Client{Timeout: 30 * time.Second},
	}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// post sends one batch body; a status other than 200, or any item refused, is an error.
func (a *apiServer) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK || bytes.Contains(out, []byte(`"error":`)) {
		return fmt.Errorf("bench: POST /v1/alarms/batch: %d %.300s", res.StatusCode, out)
	}
	return nil
}

func (a *apiServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.srv.Shutdown(ctx)
}
