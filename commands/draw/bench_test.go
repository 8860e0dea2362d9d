package draw

import (
	"fmt"
	"testing"
)

// benchRequests are 1,000-entrant draws with realistic clubs (about 8 players each) and
// regions (20, so most regions outnumber the tables and some region pairs are unavoidable).
func benchRequests() map[string]Request {
	es := players(1000, func(i int) string { return fmt.Sprintf("club-%d", (i*37)%125) }, func(i int) string { return fmt.Sprintf("region-%d", (i*37)%125%20) })
	for i := range es[:600] {
		es[i].Rank = i + 1
	}
	var past []Past
	for i, e := range es {
		past = append(past, Past{Player: e.Player, Round: 1, Table: i/4 + 1, Place: i%4 + 1, Score: int64((i * 7919) % 20000)})
	}
	bands := make([][]string, 4)
	for i, e := range es {
		bands[i%4] = append(bands[i%4], e.Player)
	}
	return map[string]Request{
		AlgRURGame1:   {Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}, Seed: "bench"},
		AlgRandom:     {Algorithm: AlgRandom, Round: 1, Entrants: es, Sizes: []int{4, 5}, Seed: "bench"},
		AlgRURGame2:   {Algorithm: AlgRURGame2, Round: 2, Entrants: es, Sizes: []int{4}, Seed: "bench", Past: past},
		AlgSeeded2003: {Algorithm: AlgSeeded2003, Round: 2, Entrants: es, Sizes: []int{4, 5}, SmallTableMax: 11, Seed: "bench", Past: past},
		AlgBands:      {Algorithm: AlgBands, Round: 3, Entrants: es, Sizes: []int{4}, Seed: "bench", Bands: bands},
	}
}

func BenchmarkDraw1000(b *testing.B) {
	for name, req := range benchRequests() {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Draw(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
