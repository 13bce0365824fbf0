package domain

import (
	"reflect"
	"testing"
	"time"
)

// Times holds every instant of an alarm, so a store that truncates them all keeps no
// time at a finer precision than it declares, and a new time field cannot be missed.
func TestAlarmTimesAreEveryInstant(t *testing.T) {
	var a Alarm
	got := map[*time.Time]bool{}
	for _, p := range a.Times() {
		got[p] = true
	}
	v := reflect.ValueOf(&a).Elem()
	n := 0
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == reflect.TypeFor[time.Time]() {
			n++
			if !got[f.Addr().Interface().(*time.Time)] {
				t.Errorf("Alarm.%s is not among Times", v.Type().Field(i).Name)
			}
		}
	}
	if n != len(got) {
		t.Errorf("Times has %d instants, Alarm %d time fields", len(got), n)
	}
}
