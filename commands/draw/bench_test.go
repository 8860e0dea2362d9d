package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// bigRequest is a draw of n entrants after `rounds` earlier rounds: clubs of about 8
// players, 20 regions, and every earlier round played at random tables of 4 (so met[p] holds
// about 3 players per round). Round is rounds+1; the places of the last round feed rur-game2.
func bigRequest(n, rounds int, seed string) Request {
	es := players(n, func(i int) string { return fmt.Sprintf("club-%d", (i*37)%(n/8+1)) }, func(i int) string { return fmt.Sprintf("region-%d", (i*37)%(n/8+1)%20) })
	r := rand.New(rand.NewPCG(uint64(n), uint64(rounds)))
	var past []Past
	for round := 1; round <= rounds; round++ {
		for i, p := range r.Perm(n) {
			past = append(past, Past{Player: es[p].Player, Round: round, Table: i/4 + 1, Place: i%4 + 1})
		}
	}
	return Request{Algorithm: AlgRandom, Round: rounds + 1, Entrants: es, Sizes: []int{4, 5}, Seed: seed, Past: past}
}

// bigSearch holds the searcher inputs of randomV1 (or, with places, game2V1) for
// bigRequest, so that a benchmark times the search alone.
type bigSearch struct {
	n                   int
	initial             [][]int // the dealt seating, before the search
	club, region, place []int
	met                 [][]int
	g                   rng // the PRNG after the deal
}

func newBigSearch(tb testing.TB, n, rounds int, places bool) *bigSearch {
	req := bigRequest(n, rounds, "bench")
	if places {
		req.Algorithm = AlgRURGame2
	}
	r, err := prepare(req)
	if err != nil {
		tb.Fatal(err)
	}
	b := &bigSearch{n: n, club: r.clubIDs(), region: r.regionIDs()}
	sizes, err := r.plan()
	if err != nil {
		tb.Fatal(err)
	}
	if b.met, err = r.metBefore(); err != nil {
		tb.Fatal(err)
	}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	if places {
		// game2V1's deal: players grouped by previous place, each group shuffled, dealt by rows.
		b.place = r.previousPlaces()
		groups := make([][]int, 5)
		for p, pl := range b.place {
			groups[pl%5] = append(groups[pl%5], p) // places 1…4, then none (0)
		}
		var order []int
		for _, grp := range append(groups[1:], groups[0]) {
			shuffle(g, grp)
			order = append(order, grp...)
		}
		b.initial = dealRows(sizes, order)
	} else {
		order := identity(n)
		shuffle(g, order)
		next := 0
		for _, size := range sizes {
			b.initial = append(b.initial, order[next:next+size:next+size])
			next += size
		}
	}
	b.g = *g
	return b
}

// seats returns a fresh copy of the dealt seating.
func (b *bigSearch) seats() [][]int {
	seats := make([][]int, len(b.initial))
	for t, ps := range b.initial {
		seats[t] = slices.Clone(ps)
	}
	return seats
}

// searchImpl is one constraint searcher a benchmark times on the same input.
type searchImpl struct {
	name string
	run  func(in *bigSearch, places bool)
}

// searchImpls are the searchers BenchmarkSearchLarge times: the current one, and with
// -tags drawref the frozen pre-rewrite one first (search_ref_test.go).
var searchImpls = []searchImpl{{"new", func(in *bigSearch, places bool) {
	g := in.g
	s := newSearcher(&g, in.seats(), in.n)
	s.useClub, s.useRegion, s.usePlace = true, true, places
	s.club, s.region, s.place, s.met = in.club, in.region, in.place, in.met
	s.improve()
}}}

// BenchmarkSearchLarge times the constraint search alone on large tournaments with many
// earlier rounds, as randomV1 (places=false) and game2V1 (places=true) run it: impl=new is
// the current searcher; with -tags drawref, impl=ref is the frozen pre-rewrite one. Both run
// the same input with the same PRNG and leave the same tables.
//
//	go test ./commands/draw/ -tags drawref -run '^$' -bench SearchLarge -benchtime 3x
func BenchmarkSearchLarge(b *testing.B) {
	for _, size := range []struct{ n, rounds int }{{20_000, 10}, {38_000, 19}} {
		for _, places := range []bool{false, true} {
			var in *bigSearch
			name := fmt.Sprintf("n=%d/rounds=%d/places=%v", size.n, size.rounds, places)
			for _, impl := range searchImpls {
				b.Run(name+"/impl="+impl.name, func(b *testing.B) {
					if in == nil {
						in = newBigSearch(b, size.n, size.rounds, places)
					}
					for b.Loop() {
						impl.run(in, places)
					}
				})
			}
		}
	}
}

// BenchmarkDrawLarge times a whole random draw (prepare, metBefore, search, tables) of 20,000
// entrants after 10 rounds.
func BenchmarkDrawLarge(b *testing.B) {
	req := bigRequest(20_000, 10, "bench")
	for b.Loop() {
		if _, err := Draw(req); err != nil {
			b.Fatal(err)
		}
	}
}

// prepareImpl is one implementation of what a draw does before the search.
type prepareImpl struct {
	name    string
	prepare func(Request) (*request, error)
	met     func(*request) ([][]int, error)
}

// prepareImpls are the implementations BenchmarkPrepareLarge times: the current one, and
// with -tags drawref the frozen pre-rewrite one first.
var prepareImpls = []prepareImpl{{"new", prepare, (*request).metBefore}}

// BenchmarkPrepareLarge times what a draw does with its inputs before the search, on a late
// round of a large tournament (38,000 entrants after 19 rounds: 722,000 past games): prepare
// (sorting and indexing the entrants, checking every past game) and metBefore (who sat with
// whom). impl=new runs the current code; with -tags drawref, impl=ref runs the frozen
// pre-rewrite copies (prepare_ref_test.go) on the same request.
//
//	go test ./commands/draw/ -tags drawref -run '^$' -bench PrepareLarge -benchtime 5x -benchmem
func BenchmarkPrepareLarge(b *testing.B) {
	req := bigRequest(38_000, 19, "bench")
	for _, impl := range prepareImpls {
		b.Run("prepare+metBefore/impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := impl.prepare(req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := impl.met(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, impl := range prepareImpls {
		b.Run("prepare/impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := impl.prepare(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, impl := range prepareImpls {
		r, err := impl.prepare(req)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("metBefore/impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := impl.met(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// clubRequests are the draws of club tournaments as a season holds thousands of: 16 to 80
// entrants, listed in registration order rather than by id, most clubs of one or two players,
// 15 regions, and every round before the drawn one played at random tables of 4.
func clubRequests() []Request {
	var reqs []Request
	for _, n := range []int{16, 24, 40, 80} {
		es := players(n, func(i int) string { return fmt.Sprintf("club-%d", (i*7)%(n*3/4)) }, func(i int) string { return fmt.Sprintf("region-%d", (i*11)%15) })
		r := rand.New(rand.NewPCG(uint64(n), 7))
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		var past []Past
		for round := 1; round <= 6; round++ {
			reqs = append(reqs, Request{Algorithm: AlgRandom, Round: round, Entrants: es, Sizes: []int{4, 5}, Seed: fmt.Sprintf("club-%d-%d", n, round), Past: slices.Clone(past)})
			for i, p := range r.Perm(n) {
				past = append(past, Past{Player: es[p].Player, Round: round, Table: i/4 + 1, Place: i%4 + 1})
			}
		}
	}
	return reqs
}

// BenchmarkDrawClubSeason times the draws of clubRequests one after the other, as verifying a
// season re-runs each recorded draw: rounds 1 to 6 of four tournaments, 24 draws an op.
func BenchmarkDrawClubSeason(b *testing.B) {
	reqs := clubRequests()
	b.ReportAllocs()
	for b.Loop() {
		for _, req := range reqs {
			if _, err := Draw(req); err != nil {
				b.Fatal(err)
			}
		}
	}
}
