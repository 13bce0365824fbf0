// Command embed runs chronos inside a program of its own: an SQLite file as the store,
// a Go function as the handler of every wake, and chronos's HTTP API mounted on the
// program's own server beside a route of its own.
//
//	go run ./examples/embed --listen 127.0.0.1:8090 --db /tmp/embed.db
//
// It creates an owner token and an alarm due in two seconds at start-up, prints the
// token, and prints every wake its handler receives. Ctrl-C stops it: the node stops
// claiming, lets wakes in flight finish, and the store closes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/sqlite"
	"github.com/chronoshq/chronos/domain"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8090", "where the program serves (its own route and chronos's API)")
	db := flag.String("db", "embed.db", "the SQLite file chronos keeps its alarms in")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *listen, *db, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run is the whole program: it returns once ctx is done and everything has stopped.
func run(ctx context.Context, listen, db string, out io.Writer) error {
	store, err := sqlite.Open(ctx, "sqlite://"+db, sqlite.Options{Migrate: true})
	if err != nil {
		return err
	}
	defer store.Close()

	// Every wake arrives here, in this process. Returning nil acknowledges it; an error
	// is a failed attempt, retried with backoff. A slow job asks for more time with
	// chronos.ExtendLease(ctx, d).
	handler := chronos.HandlerFunc(func(ctx context.Context, w domain.Wake) error {
		fmt.Fprintf(out, "wake %s: %q payload %s (attempt %d)\n", w.OccurrenceKey, w.Label, w.Payload, w.Attempt)
		return nil
	})
	node, err := chronos.New(store, chronos.Config{Handler: handler, DeliveryTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	if err := node.Start(ctx); err != nil {
		return err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = node.Stop(stopCtx) // drains in-flight wakes before the store closes
	}()

	token, _, err := node.Tokens().Create(ctx, "embedder", domain.ScopeOwner)
	if err != nil {
		return err
	}
	in := 2 * time.Second
	if _, _, err := node.Alarms().Create(ctx, domain.Spec{
		Owner: "embedder", Kind: domain.KindOnce, Delay: &in, Label: "hello", Payload: []byte(`{"from":"embed"}`),
	}); err != nil {
		return err
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "the program's own route") })
	mux.Handle("/", node.Handler()) // /v1/..., /healthz, /openapi.json, ...
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "serving on http://%s with token %s\n", ln.Addr(), token)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
