package transfer_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"github.com/chronoshq/chronos/test/contract"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/memory"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/transfer"
	"github.com/chronoshq/chronos/internal/transfer/transfertest"
	"github.com/chronoshq/chronos/ports"
)

func export(t *testing.T, src *memory.Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := transfer.Export(context.Background(), src, &buf, transfer.ExportOptions{ChronosVersion: "test", StoreKind: "memory"}); err != nil {
		t.Fatalf("Export: %v", err)
	}
	return buf.Bytes()
}

func filled(t *testing.T) (*memory.Store, transfertest.Filled) {
	t.Helper()
	src := memory.New(nil)
	return src, transfertest.Fill(t, src)
}

// Every alarm in every state, its history, the endpoints with their secrets, the tokens
// and the cluster values that move arrive whole; the leases are cleared.
func TestExportImportRoundTrip(t *testing.T) {
	src, f := filled(t)
	file := export(t, src)
	dst := memory.New(nil)
	res, err := transfer.Import(context.Background(), dst, bytes.NewReader(file), transfer.ImportOptions{})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	transfertest.Compare(t, src, dst, src, dst, memory.Precision)
	transfertest.SkipsExcluded(t, dst, f)
	if res.LeasesCleared != 2 {
		t.Errorf("LeasesCleared = %d, want 2 (the leased alarm and the at-most-once one in doubt)", res.LeasesCleared)
	}
	if res.Source != "memory" || res.Counts.Tokens != 3 || res.Counts.Endpoints != 2 || res.Counts.States != 2 || res.Counts.Calendars != 2 || res.Counts.Events == 0 {
		t.Errorf("Import result = %+v", res)
	}
	// The new cluster claims the alarm the old one held, and dedupes on the old keys.
	c, err := dst.ClaimDue(context.Background(), ports.ClaimParams{Worker: "new-node", Lease: time.Minute, Batch: 10})
	if err != nil || !slices.Contains(alarmIDs(c.Alarms), f.Leased) {
		t.Errorf("the new cluster's first claim = %v (%v), want the alarm the old one had leased, %s", alarmIDs(c.Alarms), err, f.Leased)
	}
	again := f.Keyed
	again.ID = "another-id"
	got, deduped, err := contract.CreateOne(context.Background(), dst, again)
	if err != nil || !deduped || got.ID != f.Keyed.ID {
		t.Errorf("a create with an imported idempotency key = %s deduped=%v (%v), want %s deduped", got.ID, deduped, err, f.Keyed.ID)
	}
	inDoubt, err := dst.Get(context.Background(), ports.AnyOwner, f.InDoubt)
	if err != nil || !strings.HasPrefix(inDoubt.LastError, domain.InDoubtPrefix) || inDoubt.Claimed() {
		t.Errorf("the at-most-once alarm in doubt after the import: claimed=%v last_error=%q (%v): want no lease and its error kept",
			inDoubt.Claimed(), inDoubt.LastError, err)
	}
	if !bytes.Contains(file, []byte(`"claimed_by"`)) {
		t.Error("the export does not keep the source's leases: it is a faithful copy, the import clears them")
	}
}

func alarmIDs(as []domain.Alarm) []string {
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

// A target that holds anything is refused, and nothing is written.
func TestImportRefusesANonEmptyTarget(t *testing.T) {
	src, _ := filled(t)
	file := export(t, src)
	dst := memory.New(nil)
	if err := dst.CreateToken(context.Background(), domain.Token{ID: "first", Owner: "ops", Scope: domain.ScopeAdmin, Hash: strings.Repeat("f", 64)}); err != nil {
		t.Fatal(err)
	}
	_, err := transfer.Import(context.Background(), dst, bytes.NewReader(file), transfer.ImportOptions{})
	if !errors.Is(err, transfer.ErrNotEmpty) || !strings.Contains(err.Error(), "--into-nonempty") {
		t.Fatalf("Import into a store with a token = %v, want ErrNotEmpty naming --into-nonempty", err)
	}
	if as, _, _ := dst.List(context.Background(), ports.ListFilter{Scope: ports.AnyOwner}); len(as) != 0 {
		t.Errorf("the refused import wrote %d alarms", len(as))
	}
}

// --into-nonempty adds to a store, but refuses an alarm whose id it holds, naming it
// and its line, and writes nothing of that alarm's batch.
func TestIntoNonEmptyRefusesDuplicates(t *testing.T) {
	src, f := filled(t)
	file := export(t, src)
	dst := memory.New(nil)
	if err := dst.ImportAlarms(context.Background(), []domain.Alarm{f.Keyed}); err != nil {
		t.Fatal(err)
	}
	res, err := transfer.Import(context.Background(), dst, bytes.NewReader(file), transfer.ImportOptions{IntoNonEmpty: true})
	if err == nil || !strings.Contains(err.Error(), f.Keyed.ID) || !strings.Contains(err.Error(), "holds an alarm with this id") ||
		!strings.Contains(err.Error(), "line ") {
		t.Fatalf("Import of an alarm the target holds = %v, want a refusal naming the alarm and its line", err)
	}
	if res.Counts.Alarms != 0 || res.Counts.Tokens != 3 {
		t.Errorf("written before the refusal: %+v, want the tokens and no alarm", res.Counts)
	}
	// Again into the same store: now its tokens are the duplicates.
	_, err = transfer.Import(context.Background(), dst, bytes.NewReader(file), transfer.ImportOptions{IntoNonEmpty: true})
	if err == nil || !strings.Contains(err.Error(), "token tok_") {
		t.Errorf("a second import = %v, want a refusal naming a token", err)
	}
}

// A failed import leaves part of the cluster behind; the same file imports whole into
// an empty store, and the partial target is refused rather than added to.
func TestFailedImportRerunsIntoAnEmptyStore(t *testing.T) {
	src, _ := filled(t)
	file := export(t, src)
	broken := &failingEvents{Store: memory.New(nil)}
	res, err := transfer.Import(context.Background(), broken, bytes.NewReader(file), transfer.ImportOptions{})
	if err == nil || res.Counts.Alarms == 0 {
		t.Fatalf("Import into a store failing its events = %+v, %v; want an error after the alarms", res.Counts, err)
	}
	if _, err := transfer.Import(context.Background(), broken.Store, bytes.NewReader(file), transfer.ImportOptions{}); !errors.Is(err, transfer.ErrNotEmpty) {
		t.Errorf("a re-run into the partial target = %v, want ErrNotEmpty", err)
	}
	dst := memory.New(nil)
	if _, err := transfer.Import(context.Background(), dst, bytes.NewReader(file), transfer.ImportOptions{}); err != nil {
		t.Fatalf("a re-run into an empty store: %v", err)
	}
	transfertest.Compare(t, src, dst, src, dst, memory.Precision)
}

type failingEvents struct{ *memory.Store }

func (f *failingEvents) ImportEvents(context.Context, []domain.Event) error {
	return errors.New("disk on fire")
}

// A file cut short, damaged, of another format or with fields this version does not
// know is refused by Verify, before anything is written, and by Import as it reads;
// no message quotes a secret.
func TestImportChecksTheFile(t *testing.T) {
	src, _ := filled(t)
	file := string(export(t, src))
	lines := strings.Split(strings.TrimSpace(file), "\n")
	secret := transfertest.Secrets[0]
	endpointLine := -1
	for i, l := range lines {
		if strings.Contains(l, `"type":"endpoint"`) {
			endpointLine = i
			break
		}
	}
	if endpointLine < 0 {
		t.Fatal("the export has no endpoint line")
	}
	with := func(i int, l string) string {
		c := append([]string(nil), lines...)
		c[i] = l
		return strings.Join(c, "\n") + "\n"
	}
	attemptLine := -1
	for i, l := range lines {
		if strings.Contains(l, `"receipt":{`) {
			attemptLine = i
			break
		}
	}
	if attemptLine < 0 {
		t.Fatal("the export has no attempt's event")
	}
	// attemptWith is the file with the first attempt's receipt replaced by {fields}.
	attemptWith := func(fields string) string {
		l := lines[attemptLine]
		i := strings.Index(l, `"receipt":{`)
		return with(attemptLine, l[:i]+`"receipt":{`+fields+`}}`)
	}
	cases := map[string]struct{ file, want string }{
		"cut short":                              {strings.Join(lines[:len(lines)-1], "\n") + "\n", "without its end line"},
		"cut mid-line":                           {file[:len(file)-20], "line"},
		"empty":                                  {"", "empty"},
		"not an export":                          {`{"hello":"world"}` + "\n", "first line must be the header"},
		"another format":                         {with(0, strings.Replace(lines[0], `"format":3`, `"format":4`, 1)), "format 4"},
		"unknown field":                          {with(endpointLine, strings.Replace(lines[endpointLine], `"type":"endpoint"`, `"type":"endpoint","colour":"red"`, 1)), "colour"},
		"bad secrets":                            {with(endpointLine, strings.Replace(lines[endpointLine], secret, strings.Repeat("x", 300), 1)), "secrets"},
		"wrong counts":                           {with(len(lines)-1, strings.Replace(lines[len(lines)-1], `"tokens":3`, `"tokens":4`, 1)), "damaged"},
		"after the end":                          {file + lines[1] + "\n", "after the end line"},
		"two headers":                            {with(1, lines[0]), "second header"},
		"unknown type":                           {with(1, `{"type":"worker","id":"x"}`), "unknown record type"},
		"malformed JSON":                         {with(1, `{"type":"state",`), "malformed JSON"},
		"negative duration":                      {attemptWith(`"duration_us":-1`), "receipt.duration_us"},
		"status 42":                              {attemptWith(`"duration_us":1,"http_status":42`), "receipt.http_status"},
		"control characters in the content type": {attemptWith(`"duration_us":1,"response_type":"text/plain\u0000"`), "receipt.response_type"},
		"a body over the limit":                  {attemptWith(`"duration_us":1,"response_body":"` + base64.StdEncoding.EncodeToString(make([]byte, 8193)) + `"`), "receipt.response_body"},
		"a body not base64":                      {attemptWith(`"duration_us":1,"response_body":"%%%"`), `"receipt.response_body": not base64`},
		"payload garbage":                        {with(len(lines)-2, `{"type":"alarm","id":"x","owner":"o","kind":"once","status":"active","delivery":"at_least_once","max_failures":1,"payload_base64":"%%%"}`), "payload_base64"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, verr := transfer.Verify(strings.NewReader(c.file))
			if verr == nil || !strings.Contains(verr.Error(), c.want) {
				t.Errorf("Verify = %v, want an error containing %q", verr, c.want)
			}
			dst := memory.New(nil)
			_, err := transfer.Import(context.Background(), dst, strings.NewReader(c.file), transfer.ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Import = %v, want an error containing %q", err, c.want)
			}
			for _, e := range []error{verr, err} {
				if e != nil && strings.Contains(e.Error(), secret[6:]) {
					t.Errorf("an error quotes an endpoint secret: %v", e)
				}
			}
		})
	}
}
