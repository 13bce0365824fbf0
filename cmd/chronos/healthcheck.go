package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/internal/flagenv"
)

// healthcheckCommand asks a server's /healthz and exits 0 only on a 2xx answer: the
// container image's HEALTHCHECK, since a scratch image has no curl or wget.
func healthcheckCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flagenv.NewNoEnv("healthcheck", stderr)
	url := fs.String("url", "http://127.0.0.1:8080/healthz", "the health URL to ask")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long")
	if err := flagenv.ParseCommandLine(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return flagenv.Usagef(fs, "--url %q: %v", *url, err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("healthcheck: %s answered %s: %s", *url, res.Status, body)
	}
	_, err = fmt.Fprintf(stdout, "%s: %s\n", *url, res.Status)
	return err
}
