package webhook_test

import (
	"io"
	"log"
	"net/http"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
)

// A receiver checks each wake against the raw body before decoding it, and dedupes on
// the Idempotency-Key: at-least-once delivery may bring the same occurrence twice.
func ExampleVerify() {
	secret := []byte("the --wake-secret value")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chronos", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		sig := r.Header.Get(webhook.SignatureHeader)
		if err := webhook.Verify(secret, sig, body, time.Now(), webhook.DefaultTolerance); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		log.Printf("wake %s: %s", r.Header.Get("Idempotency-Key"), body)
		w.WriteHeader(http.StatusNoContent) // any 2xx acknowledges the wake
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:9000", mux))
}
