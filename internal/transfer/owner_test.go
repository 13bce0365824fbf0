package transfer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/internal/transfer"
	"github.com/chronoshq/chronos/internal/transfer/transfertest"
	"github.com/chronoshq/chronos/ports"
)

// An owner's export holds that owner alone: its alarms with their histories, its
// endpoints, calendars and tokens, and no cluster value; imported into a cluster that
// holds other owners, it arrives whole beside them (how an owner moves:
// docs/scaling.md), its series still skipping the days its calendars exclude.
func TestExportOneOwnerMovesIt(t *testing.T) {
	ctx := context.Background()
	src, f := filled(t)
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
		case "alarm", "endpoint", "token", "calendar", "header":
			if rec.Owner != "alice" {
				t.Errorf("a %s record of owner %q in alice's export", rec.Type, rec.Owner)
			}
		case "state":
			t.Errorf("a cluster value in an owner's export: %s", lines.Text())
		}
	}
	if kinds["alarm"] == 0 || kinds["event"] == 0 || kinds["endpoint"] == 0 || kinds["token"] == 0 || kinds["calendar"] != 1 {
		t.Fatalf("alice's export holds %v: want her alarms, events, endpoints, tokens and her one calendar", kinds)
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
	// carol's series names her calendar, which moves with it.
	var carols bytes.Buffer
	if _, err := transfer.Export(ctx, src, &carols, transfer.ExportOptions{StoreKind: "memory", Owner: "carol"}); err != nil {
		t.Fatal(err)
	}
	moved, err := transfer.Import(ctx, dst, &carols, transfer.ImportOptions{IntoNonEmpty: true})
	if err != nil || moved.Counts.Calendars != 1 {
		t.Fatalf("Import of carol beside alice and bob: %+v, %v; want her one calendar", moved.Counts, err)
	}
	transfertest.SkipsExcluded(t, dst, f)
	for _, owner := range []string{"alice", "bob", "carol"} {
		wantCals, err := src.ListCalendars(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		gotCals, err := dst.ListCalendars(ctx, owner)
		if err != nil || !reflect.DeepEqual(gotCals, wantCals) {
			t.Errorf("%s's calendars after the move = %+v (%v), want %+v", owner, gotCals, err, wantCals)
		}
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
