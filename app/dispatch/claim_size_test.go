package dispatch

import "testing"

func TestClaimSizeAdapts(t *testing.T) {
	type step struct{ got, want int } // a claim returned got; the next claim asks for want
	cases := []struct {
		name  string
		batch int
		steps []step
	}{
		{"starts small", 1000, nil},
		{"a backlog doubles it up to the batch", 1000, []step{
			{16, 32}, {32, 64}, {64, 128}, {128, 256}, {256, 512}, {512, 1000}, {1000, 1000},
		}},
		{"a partial claim brings it to twice what came back", 1000, []step{
			{16, 32}, {32, 64}, {64, 128}, {100, 200}, {3, minClaimSize}, {0, minClaimSize},
		}},
		{"never above a small batch", 10, []step{{10, 10}, {10, 10}, {2, 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newClaimSize(c.batch)
			if want := min(minClaimSize, c.batch); s.want() != want {
				t.Fatalf("first claim asks for %d, want %d", s.want(), want)
			}
			for i, st := range c.steps {
				s.observe(s.want(), st.got)
				if s.want() != st.want {
					t.Fatalf("step %d: after a claim returned %d the next asks for %d, want %d", i, st.got, s.want(), st.want)
				}
			}
		})
	}
}

// A claim cut short by free slots (asked less than the size) that comes back full
// still counts as full: the backlog is there.
func TestClaimSizeGrowsFromSlotLimitedClaims(t *testing.T) {
	s := newClaimSize(1000)
	s.observe(5, 5)
	if s.want() != minClaimSize {
		t.Fatalf("after a full claim of 5 the size is %d, want %d (never below where it was)", s.want(), minClaimSize)
	}
	s.observe(s.want(), s.want())
	if s.want() != 2*minClaimSize {
		t.Fatalf("size %d, want %d", s.want(), 2*minClaimSize)
	}
}
