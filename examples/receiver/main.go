// Command receiver is the smallest honest receiver of chronos wakes: the other end of
// `chronos serve --wake-url`. Copy it and put your own effect where it prints.
//
// For every POST it
//
//  1. reads the raw body (at most 1 MiB) and checks its Chronos-Signature with
//     webhook.Verify: a forged or altered wake, or one signed more than five minutes
//     from this machine's clock (a replay), is answered 401;
//  2. decodes the body (README, "The wake contract") and checks that the
//     Idempotency-Key header is the signed body's occurrence_key;
//  3. dedupes on that key: at-least-once delivery may bring one occurrence twice (a
//     node died after the wake arrived but before it recorded the answer), so a key
//     already seen is acknowledged again and not acted on;
//  4. acts (here: prints the wake on stdout) and answers 200. Any 2xx acknowledges a
//     wake; anything else makes chronos retry it later.
//
// Run it next to a chronos server that signs with the same secret:
//
//	export CHRONOS_WAKE_SECRET=$(openssl rand -hex 32)
//	go run ./examples/receiver --listen 127.0.0.1:9000 &
//	chronos serve --wake-url http://127.0.0.1:9000/
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
)

// maxBody bounds what is read of a request: a wake is its envelope plus the alarm's
// payload, which chronos caps well below this.
const maxBody = 1 << 20

func main() {
	listen := flag.String("listen", "127.0.0.1:9000", "address to listen on (port 0: any free port)")
	secret := flag.String("secret", "", "the secret chronos signs wakes with: serve's --wake-secret (env CHRONOS_WAKE_SECRET)")
	flag.Parse()
	if *secret == "" {
		// Read here rather than as the flag's default, which -h would print.
		*secret = os.Getenv("CHRONOS_WAKE_SECRET")
	}
	if *secret == "" {
		// Never accept unsigned wakes: anyone who can reach this port could send one.
		log.Fatal("receiver: give --secret or set CHRONOS_WAKE_SECRET (the value of chronos serve's --wake-secret)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *listen, NewReceiver([]byte(*secret), os.Stdout)); err != nil {
		log.Fatal("receiver: ", err)
	}
}

// run serves rc on addr until ctx is done, then lets requests in flight finish.
func run(ctx context.Context, addr string, rc *Receiver) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// The address actually bound, so --listen 127.0.0.1:0 is usable (the test reads it).
	log.Printf("receiver: listening on http://%s/", ln.Addr())
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// Wake is the JSON body chronos POSTs; its fields always come, in this order.
type Wake struct {
	AlarmID        string          `json:"alarm_id"`
	Owner          string          `json:"owner"`
	Label          string          `json:"label"`
	Kind           string          `json:"kind"` // once or cron
	ScheduledFor   time.Time       `json:"scheduled_for"`
	FiredAt        time.Time       `json:"fired_at"`
	Attempt        int             `json:"attempt"` // 1 for the first delivery of an occurrence
	OccurrenceKey  string          `json:"occurrence_key"`
	ConversationID string          `json:"conversation_id"`
	WakeMessage    string          `json:"wake_message"`
	Payload        json.RawMessage `json:"payload"`  // the alarm's JSON, byte for byte
	Delivery       string          `json:"delivery"` // at_least_once or at_most_once
}

// Receiver is the wake handler. It is safe for concurrent use.
type Receiver struct {
	secret    []byte
	tolerance time.Duration    // how far a signature's time may be from now
	now       func() time.Time // the clock signatures are checked against
	out       io.Writer        // where each new wake is printed

	// mu makes "seen? act, then remember" one step, so two deliveries of one
	// occurrence arriving at once cannot both act.
	mu sync.Mutex
	// seen holds the occurrence keys already acted on. In memory for the example
	// only: it is lost on restart and grows without bound. A real receiver keeps the
	// key in its database, inserted in the same transaction as the wake's effect (a
	// unique index on the key, the insert refused on conflict), so the effect and "this
	// wake was handled" are committed together or not at all.
	seen map[string]bool
}

// NewReceiver returns a Receiver that checks wakes against secret and prints each new
// one to out.
func NewReceiver(secret []byte, out io.Writer) *Receiver {
	return &Receiver{
		secret:    secret,
		tolerance: webhook.DefaultTolerance,
		now:       time.Now,
		out:       out,
		seen:      map[string]bool{},
	}
}

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST wakes here", http.StatusMethodNotAllowed)
		return
	}
	// 1. The signature covers the raw bytes: verify them before decoding anything.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	sig := r.Header.Get(webhook.SignatureHeader)
	if err := webhook.Verify(rc.secret, sig, body, rc.now(), rc.tolerance); err != nil {
		// Forged, altered, malformed, or signed too long ago (ErrSignatureExpired: a
		// replay, or a clock far off). The error says which; it holds no secret.
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}

	// 2. Authentic: decode it. The Idempotency-Key header is not signed; the body's
	// occurrence_key is. They are equal in every wake chronos sends, so a difference
	// means someone changed the header in transit.
	var wake Wake
	if err := json.Unmarshal(body, &wake); err != nil {
		http.Error(w, "body is not a wake: "+err.Error(), http.StatusBadRequest)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" || key != wake.OccurrenceKey {
		http.Error(w, "Idempotency-Key must be the wake's occurrence_key", http.StatusBadRequest)
		return
	}

	// 3 and 4. Act once per occurrence; acknowledge every delivery of it.
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.seen[key] {
		fmt.Fprintf(rc.out, "duplicate %s (attempt %d): already handled\n", key, wake.Attempt)
		// 200, not an error: the first delivery's effect stands, and an error would only
		// make chronos deliver it again.
		fmt.Fprintln(w, "duplicate")
		return
	}
	if err := rc.act(wake); err != nil {
		// Not remembered: the retry chronos makes on this 500 gets to act again.
		http.Error(w, "could not handle the wake", http.StatusInternalServerError)
		return
	}
	rc.seen[key] = true
	fmt.Fprintln(w, "ok")
}

// act is the wake's effect: here, one line on out. Put yours here.
func (rc *Receiver) act(wake Wake) error {
	payload := string(wake.Payload)
	if payload == "" {
		payload = "null"
	}
	_, err := fmt.Fprintf(rc.out, "wake %s: alarm %s of %s (%s, attempt %d, %s) label %q message %q conversation %q payload %s\n",
		wake.OccurrenceKey, wake.AlarmID, wake.Owner, wake.Kind, wake.Attempt, wake.Delivery,
		wake.Label, wake.WakeMessage, wake.ConversationID, payload)
	return err
}
