package chronos_test

import (
	"context"
	"fmt"
	"time"

	"github.com/chronoshq/chronos"
	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
)

// Embed chronos in a program: an in-memory store, a Go function as the handler.
func Example() {
	woke := make(chan domain.Wake, 1)
	node, err := chronos.New(memory.New(nil), chronos.Config{
		Handler: chronos.HandlerFunc(func(ctx context.Context, w domain.Wake) error {
			woke <- w
			return nil // acknowledged; an error would be retried with backoff
		}),
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := node.Start(ctx); err != nil {
		panic(err)
	}
	defer node.Stop(ctx)

	in := 50 * time.Millisecond
	spec := domain.Spec{Owner: "me", Kind: domain.KindOnce, Delay: &in, Label: "tea", Payload: []byte(`{"cup":"green"}`)}
	if _, _, err := node.Alarms().Create(ctx, spec); err != nil {
		panic(err)
	}
	w := <-woke
	fmt.Println(w.Label, string(w.Payload), w.Attempt)
	// Output: tea {"cup":"green"} 1
}
