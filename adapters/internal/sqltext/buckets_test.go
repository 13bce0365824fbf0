package sqltext

import (
	"slices"
	"testing"
)

func TestBucket(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 1}, {2, 2}, {3, 4}, {8, 8}, {9, 16}, {500, 512}, {1000, 1024}} {
		if got := PaddedSize(c.n); got != c.want {
			t.Errorf("PaddedSize(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

func TestInsertPieces(t *testing.T) {
	for _, c := range []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, []int{1}},
		{7, []int{7}},
		{8, []int{8}},
		{37, []int{32, 5}},
		{200, []int{128, 64, 8}},
		{512, []int{512}},
		{1023, []int{512, 256, 128, 64, 32, 16, 8, 7}},
	} {
		got := InsertPieces(c.n)
		if !slices.Equal(got, c.want) {
			t.Errorf("InsertPieces(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	// Every size from 1 to 1,024 is covered exactly, by few distinct texts.
	sizes := map[int]bool{}
	for n := 1; n <= 1024; n++ {
		sum := 0
		for _, p := range InsertPieces(n) {
			sum += p
			sizes[p] = true
		}
		if sum != n {
			t.Fatalf("InsertPieces(%d) sums to %d", n, sum)
		}
	}
	if len(sizes) > 18 {
		t.Errorf("%d distinct piece sizes for 1..1024, want at most 18 (11 powers of two and 7 remainders)", len(sizes))
	}
}
