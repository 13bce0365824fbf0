package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/chronoshq/chronos/client"
)

func Example() {
	ctx := context.Background()
	c, err := client.New("http://127.0.0.1:8080", "chr_your_token")
	if err != nil {
		log.Fatal(err)
	}
	// A once alarm in ten minutes. Sending the same idempotency key again answers the
	// same alarm, with deduped true, so the call is safe to retry.
	alarm, deduped, err := c.CreateAlarm(ctx, client.CreateAlarm{
		Delay:          10 * time.Minute,
		Label:          "tea",
		WakeMessage:    "the tea is ready",
		Payload:        []byte(`{"cups": 2}`),
		IdempotencyKey: "tea-1",
	})
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr) && client.IsInvalid(err):
		log.Fatalf("refused %s: %s", apiErr.Field, apiErr.Message)
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println(alarm.ID, alarm.NextFireAt, deduped)

	// Every active alarm, page by page.
	for a, err := range c.AllAlarms(ctx, client.ListAlarms{Status: "active"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(a.ID, a.Label)
	}
}

func ExampleAdmin_BulkRetry() {
	ctx := context.Background()
	c, err := client.New("http://127.0.0.1:8080", "chr_an_admin_token")
	if err != nil {
		log.Fatal(err)
	}
	// Retry everything that failed in the last hour, ten thousand alarms a call.
	f := client.BulkFilter{FailedSince: time.Now().Add(-time.Hour)}
	for {
		res, err := c.Admin().BulkRetry(ctx, f)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("matched %d, retried %d\n", res.Matched, res.Changed)
		if !res.More {
			break
		}
	}
}
