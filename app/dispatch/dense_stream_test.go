package dispatch

import (
	"testing"
	"time"

	"github.com/chronoshq/chronos/domain"
)

func TestDenseStream(t *testing.T) {
	base := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	due := func(offsets ...time.Duration) []domain.Alarm {
		alarms := make([]domain.Alarm, len(offsets))
		for i, o := range offsets {
			alarms[i].NextFireAt = base.Add(o)
		}
		return alarms
	}
	ms := time.Millisecond
	cases := []struct {
		name   string
		alarms []domain.Alarm
		took   time.Duration
		want   bool
	}{
		{"nothing claimed", nil, ms, false},
		{"one alarm says nothing of a stream", due(0), ms, false},
		{"due 0.1 ms apart, a 1 ms claim", due(0, ms/10, 2*ms/10, 3*ms/10), ms, true},
		{"in any order", due(3*ms/10, 0, 2*ms/10, ms/10), ms, true},
		{"all due at one instant (a burst's tail)", due(0, 0, 0), ms, true},
		{"due 5 ms apart, a 1 ms claim", due(0, 5*ms, 10*ms), ms, false},
		{"exactly a claim apart is not dense", due(0, ms, 2*ms), ms, false},
		{"an old retry among fresh ones widens the span", due(-time.Second, 0, ms/10, 2*ms/10), ms, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := denseStream(c.alarms, c.took); got != c.want {
				t.Errorf("denseStream = %v, want %v", got, c.want)
			}
		})
	}
}
