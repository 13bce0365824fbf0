package transfer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/internal/transfer"
	"github.com/chronoshq/chronos/ports"
)

// An owner's export holds that owner alone: its alarms with their histories, its
// endpoints and tokens, and no cluster value; imported into a cluster that holds other
// owners, it arrives whole beside them (how an owner moves: docs/scaling.md).
func TestExportOneOwnerMovesIt(t *testing.T) {
	ctx := context.Background()
	src, _ := filled(t)
	var file bytes.Buffer
	res, err := transfer.Export(ctx, src, &file, transfer.ExportOptions{ChronosVersion: "test", StoreKind: "memory", Owner: "alice"})
	if err != nil {
		t.Fatalf("Export of alice: %v", err)
	}
	if res.Orphans != 0 {
		t.Errorf("Orphans = %d: another owner's events counted as orphans", res.Orphans)
	}
	lines := bufio.NewScanner(bytes.NewReader(file.Bytes()))
	lines.Buffer(nil, 1<<20)
	kinds := map[string]int{}
	for lines.Scan() {
		var rec struct {
			Type  string `json:"type"`
			Owner string `json:"owner"`
		}
		if err := json.Unmarshal(lines.Bytes(), &rec); err != nil {
			t.Fatalf("line %q: %v", lines.Text(), err)
		}
		kinds[rec.Type]++
		switch rec.Type {
		case "alarm", "endpoint", "token", "header":
			if rec.Owner != "alice" {
				t.Errorf("a %s record of owner %q in alice's export", rec.Type, rec.Owner)
			}
		case "state":
			t.Errorf("a cluster value in an owner's export: %s", lines.Text())
		}
	}
	if kinds["alarm"] == 0 || kinds["event"] == 0 || kinds["endpoint"] == 0 || kinds["token"] == 0 {
		t.Fatalf("alice's export holds %v: want her alarms, events, endpoints and tokens", kinds)
	}

	// The target cluster already holds bob.
	dst := memory.New(nil)
	var bobs bytes.Buffer
	if _, err := transfer.Export(ctx, src, &bobs, transfer.ExportOptions{StoreKind: "memory", Owner: "bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Import(ctx, dst, &bobs, transfer.ImportOptions{}); err != nil {
		t.Fatalf("Import of bob: %v", err)
	}
	if _, err := transfer.Import(ctx, dst, &file, transfer.ImportOptions{IntoNonEmpty: true}); err != nil {
		t.Fatalf("Import of alice beside bob: %v", err)
	}
	for _, owner := range []string{"alice", "bob"} {
		want, _, err := src.List(ctx, ports.ListFilter{Scope: ports.OwnedBy(owner), Limit: ports.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := dst.List(ctx, ports.ListFilter{Scope: ports.OwnedBy(owner), Limit: ports.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: %d alarms after the move, want %d", owner, len(got), len(want))
		}
		for _, a := range want {
			we, _ := src.Events(ctx, ports.AnyOwner, a.ID, ports.MaxEventsLimit)
			ge, err := dst.Events(ctx, ports.AnyOwner, a.ID, ports.MaxEventsLimit)
			if err != nil || len(ge) != len(we) {
				t.Errorf("%s's alarm %s: %d events after the move (%v), want %d", owner, a.ID, len(ge), err, len(we))
			}
		}
	}
}
