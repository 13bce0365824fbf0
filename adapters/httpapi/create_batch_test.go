package httpapi

import (
	"testing"

	"github.com/chronoshq/chronos/adapters/internal/jsonio"
)

// FuzzDecodeBatch: the batch's one-pass decoding accepts exactly what jsonio.DecodeObject
// accepts, with the same items byte for byte, and refuses the rest with the same error.
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range []string{`{"alarms":[{"kind":"once"},{}]}`, `{"alarms":null}`, `{"alarms":{}}`, `{"Alarms":[]}`,
		` {"alarms" : [ 1 , "x" , [ ] ] } `, `{"alarms":[],"alarms":[{}]}`, `[]`, `{"alarms":[}`, `{"alarms":[]} x`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := decodeBatch([]byte(s))
		var want batchRequest
		wantErr := jsonio.DecodeObject([]byte(s), &want)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("decodeBatch(%q) error %v, DecodeObject %v", s, gotErr, wantErr)
		}
		if len(got.Alarms) != len(want.Alarms) {
			t.Fatalf("decodeBatch(%q) = %d items, DecodeObject %d", s, len(got.Alarms), len(want.Alarms))
		}
		for i := range got.Alarms {
			if string(got.Alarms[i]) != string(want.Alarms[i]) {
				t.Fatalf("decodeBatch(%q) item %d = %s, DecodeObject %s", s, i, got.Alarms[i], want.Alarms[i])
			}
		}
	})
}
