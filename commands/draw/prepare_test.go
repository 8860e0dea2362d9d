package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortedEntrantsSortsAsTheEntrantsThemselves compares sortedEntrants with sorting the
// entrants in place, on lists with many repeated ids (whose order the sort alone decides),
// short and long enough for every branch of the sort.
func TestSortedEntrantsSortsAsTheEntrantsThemselves(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 12))
	for _, n := range []int{0, 1, 2, 5, 12, 13, 40, 50, 51, 200, 1000, 5000} {
		for rep := range 5 {
			es := make([]Entrant, n)
			for i := range es {
				es[i] = Entrant{Player: fmt.Sprintf("p%d", r.IntN(max(1, n/(1+rep)))), Club: fmt.Sprint(i)}
			}
			if rep == 4 { // already in order, with runs of ties
				slices.SortStableFunc(es, func(a, b Entrant) int { return strings.Compare(a.Player, b.Player) })
			}
			want := slices.Clone(es)
			slices.SortFunc(want, func(a, b Entrant) int { return strings.Compare(a.Player, b.Player) })
			if got := sortedEntrants(es); !slices.Equal(got, want) {
				t.Fatalf("n %d rep %d: sortedEntrants %v, sorted in place %v", n, rep, got, want)
			}
		}
	}
}
