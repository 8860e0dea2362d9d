package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSwapMarkedKeepsTheBookkeeping takes, on random seatings, swaps of a marked candidate
// as descend does (mark, then swapMarked), and some as kick and restore do, and after each
// compares every player's own cost, every table's place cost and the met counts per table
// (metAt) with the same computed from scratch; before each, it compares the candidate's
// swaps read with metAt and without.
func TestSwapMarkedKeepsTheBookkeeping(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	for rep := range 60 {
		n := 2 + r.IntN(60)
		size := 3 + r.IntN(3)
		var sizes []int
		for left := n; left > 0; left -= size {
			sizes = append(sizes, min(size, left))
		}
		if len(sizes) < 2 {
			continue
		}
		order := r.Perm(n)
		seats := make([][]int, len(sizes))
		next := 0
		for tb, k := range sizes {
			seats[tb] = order[next : next+k : next+k]
			next += k
		}
		s := newSearcher(&rng{hi: r.Uint64(), lo: r.Uint64()}, seats, n)
		s.useClub, s.useRegion, s.usePlace = r.IntN(4) != 0, r.IntN(3) != 0, r.IntN(3) == 0
		s.club, s.region, s.place = make([]int, n), make([]int, n), make([]int, n)
		for p := range n {
			s.club[p], s.region[p], s.place[p] = r.IntN(n/3+1)-1, r.IntN(6)-1, r.IntN(6)
		}
		if rounds := r.IntN(5); rounds > 0 {
			s.met = make([][]int, n)
			for range rounds {
				perm := r.Perm(n)
				for len(perm) > 0 {
					game := perm[:min(len(perm), 4+r.IntN(2))]
					perm = perm[len(game):]
					for _, a := range game {
						for _, b := range game {
							if a != b {
								s.met[a] = append(s.met[a], b)
							}
						}
					}
				}
			}
		}
		s.index()
		s.snapshot()
		for step := range 40 {
			p, q := r.IntN(n), r.IntN(n)
			if s.table[p] == s.table[q] {
				continue
			}
			where := fmt.Sprintf("case %d step %d", rep, step)
			if s.metAt != nil {
				// The swaps of p read the same with and without metAt.
				s.mark(p)
				with := make([]cost, n)
				for x := range n {
					if s.table[x] != s.table[p] {
						with[x] = s.delta(x)
					}
				}
				metAt := s.metAt
				s.metAt, s.probe.metAtA = nil, nil
				s.mark(p)
				for x := range n {
					if s.table[x] != s.table[p] {
						if got, want := with[x], s.delta(x); got != want {
							t.Fatalf("%s: delta(%d) with metAt %+v, without %+v", where, x, got, want)
						}
					}
				}
				s.metAt = metAt
			}
			switch r.IntN(8) {
			case 0: // as kick does
				s.swap(p, q)
			case 1: // as improve does after a descent
				s.restore()
			default:
				s.mark(p)
				s.swapMarked(q)
			}
			for x := range n {
				if got, want := s.ownCost[x], s.own(x); got != want {
					t.Fatalf("%s: own cost of %d %+v, from scratch %+v", where, x, got, want)
				}
			}
			if s.metAt != nil {
				at := make([]int32, len(s.metAt))
				for x := range n {
					seen := map[int]bool{}
					for _, y := range s.met[x] {
						if !seen[y] {
							seen[y] = true
							at[s.table[y]*n+x]++
						}
					}
				}
				if !slices.Equal(s.metAt, at) {
					t.Fatalf("%s: metAt %v, from scratch %v", where, s.metAt, at)
				}
			}
			for tb := range s.seats {
				for _, x := range s.seats[tb] {
					if s.table[x] != tb {
						t.Fatalf("%s: player %d at table %d, indexed at %d", where, x, tb, s.table[x])
					}
				}
				if s.usePlace {
					if got, want := s.tablePlace[tb], s.placeCost(tb, -1, -1); got != want {
						t.Fatalf("%s: place cost of table %d %d, from scratch %d", where, tb, got, want)
					}
				}
			}
		}
	}
}
