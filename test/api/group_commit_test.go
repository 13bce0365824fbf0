package api_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// Concurrent creates share transactions (the group commit) and each keeps its own
// answer: of many creates with one key exactly one is 201 and every other gets the same
// alarm, 200; creates without a key each make their own alarm.
func TestConcurrentCreatesKeepTheirOwnAnswers(t *testing.T) {
	e := newEnv(t)
	const n = 40
	var wg sync.WaitGroup
	keyed := make([]response, n)
	plain := make([]response, n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			keyed[i] = e.as(e.alice, "POST", "/v1/alarms", `{"kind": "once", "delay_seconds": 60, "idempotency_key": "same"}`)
		}()
		go func() {
			defer wg.Done()
			plain[i] = e.as(e.alice, "POST", "/v1/alarms", fmt.Sprintf(`{"kind": "once", "delay_seconds": 60, "label": "p%d"}`, i))
		}()
	}
	wg.Wait()
	created, id := 0, ""
	for i, res := range keyed {
		if res.status == http.StatusCreated {
			created++
		} else if res.status != http.StatusOK {
			t.Fatalf("keyed create %d: %d %s", i, res.status, res.body)
		}
		a := decodeAlarm(t, res)
		if id == "" {
			id = a.ID
		} else if a.ID != id {
			t.Errorf("keyed creates got alarms %s and %s", id, a.ID)
		}
	}
	if created != 1 {
		t.Errorf("%d keyed creates answered 201, want exactly 1", created)
	}
	ids := map[string]bool{}
	for i, res := range plain {
		if res.status != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, res.status, res.body)
		}
		a := decodeAlarm(t, res)
		if a.Label != fmt.Sprintf("p%d", i) || ids[a.ID] {
			t.Errorf("create %d got alarm %s labelled %q", i, a.ID, a.Label)
		}
		ids[a.ID] = true
	}
}
