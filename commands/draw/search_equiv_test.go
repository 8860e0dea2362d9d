//go:build drawref

package draw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// searchCase is one input to the constraint search: an initial seating, the per-player
// attributes the searcher may use, and the PRNG state it starts from.
type searchCase struct {
	name                         string
	n                            int
	sizes                        []int
	club, region, place, class   []int
	met                          [][]int
	useClub, useRegion, usePlace bool
	rng                          rng
}

// seats deals a fresh copy of the case's initial seating: players 0…n-1 in a case-drawn
// order, each table a sub-slice of one array (as randomV1 deals them), so that both
// searchers start from equal but unshared seat slices.
func (c *searchCase) seats(order []int) [][]int {
	all := slices.Clone(order)
	seats := make([][]int, len(c.sizes))
	next := 0
	for t, size := range c.sizes {
		seats[t] = all[next : next+size : next+size]
		next += size
	}
	return seats
}

// genSearchCase draws a random instance. Sizes, attribute densities, the number of earlier
// rounds and the flags all vary with the case, so that some cases are solved at once, some
// end on stale kicks and some spend the whole budget.
func genSearchCase(r *rand.Rand, n int, tableSizes []int) (*searchCase, []int) {
	c := &searchCase{n: n}
	// Table sizes: mostly the first size, with some of the others to absorb the remainder.
	left := n
	for left > 0 {
		size := tableSizes[0]
		if left < size || (len(tableSizes) > 1 && r.IntN(4) == 0) {
			size = tableSizes[r.IntN(len(tableSizes))]
		}
		size = min(size, left)
		c.sizes = append(c.sizes, size)
		left -= size
	}
	// Clubs and regions: a varying number of each, some players with none (-1).
	attr := func(k, nonePct int) []int {
		ids := make([]int, n)
		for i := range ids {
			if r.IntN(100) < nonePct {
				ids[i] = -1
			} else {
				ids[i] = r.IntN(k)
			}
		}
		return ids
	}
	c.useClub = r.IntN(5) != 0
	c.useRegion = r.IntN(3) != 0
	c.usePlace = r.IntN(3) == 0
	if c.useClub {
		c.club = attr(1+r.IntN(max(1, n/3)), r.IntN(30))
	}
	if c.useRegion {
		c.region = attr(1+r.IntN(20), r.IntN(30))
	}
	if c.usePlace {
		// Places 1…k of a previous round at tables of 4, some missing (0) or odd (5, 9).
		c.place = make([]int, n)
		for i := range c.place {
			switch r.IntN(10) {
			case 0:
				c.place[i] = 0
			case 1:
				c.place[i] = 1 + r.IntN(9)
			default:
				c.place[i] = i%4 + 1
			}
		}
	}
	switch r.IntN(3) {
	case 0: // one class: any player may swap with any other
	case 1: // a few random classes
		k := 1 + r.IntN(4)
		c.class = make([]int, n)
		for i := range c.class {
			c.class[i] = r.IntN(k)
		}
	case 2: // bands: class = seat index, as bandsV1 deals them (set after the order below)
		c.class = make([]int, n)
	}
	// Earlier rounds: random tables of 4 (a few of 5), every ordered pair met, as metBefore
	// builds it; pairs may meet twice, so met[p] can hold duplicates.
	rounds := r.IntN(8)
	if rounds > 0 {
		c.met = make([][]int, n)
		for range rounds {
			perm := r.Perm(n)
			for len(perm) > 0 {
				k := min(len(perm), 4+r.IntN(2))
				game := perm[:k]
				perm = perm[k:]
				for _, a := range game {
					for _, b := range game {
						if a != b {
							c.met[a] = append(c.met[a], b)
						}
					}
				}
			}
		}
	}
	order := r.Perm(n)
	if c.class != nil && len(c.class) == n && r.IntN(2) == 0 {
		// bands-style: class is the seat index at the table
		next := 0
		for _, size := range c.sizes {
			for s := range size {
				c.class[order[next]] = s
				next++
			}
		}
	}
	c.rng = rng{hi: r.Uint64(), lo: r.Uint64()}
	return c, order
}

type searchOutcome struct {
	seats [][]int
	rng   rng
	total cost
}

func runRefSearch(c *searchCase, order []int) searchOutcome {
	g := c.rng
	seats := c.seats(order)
	s := newRefSearcher(&g, seats, c.n)
	s.club, s.region, s.place, s.class, s.met = c.club, c.region, c.place, c.class, c.met
	s.useClub, s.useRegion, s.usePlace = c.useClub, c.useRegion, c.usePlace
	s.improve()
	t := s.total()
	return searchOutcome{seats, g, cost{t.place, t.club, t.region, t.rematch}}
}

func runNewSearch(c *searchCase, order []int) searchOutcome {
	g := c.rng
	seats := c.seats(order)
	s := newSearcher(&g, seats, c.n)
	s.club, s.region, s.place, s.class, s.met = c.club, c.region, c.place, c.class, c.met
	s.useClub, s.useRegion, s.usePlace = c.useClub, c.useRegion, c.usePlace
	s.improve()
	return searchOutcome{seats, g, s.total()}
}

func checkSameSearch(t *testing.T, c *searchCase, order []int) {
	t.Helper()
	want := runRefSearch(c, order)
	got := runNewSearch(c, order)
	if want.rng != got.rng {
		t.Fatalf("%s: PRNG state after the search %+v, reference %+v", c.name, got.rng, want.rng)
	}
	for tb := range want.seats {
		if !slices.Equal(want.seats[tb], got.seats[tb]) {
			t.Fatalf("%s: table %d seats %v, reference %v", c.name, tb, got.seats[tb], want.seats[tb])
		}
	}
	if want.total != got.total {
		t.Fatalf("%s: total %+v, reference %+v", c.name, got.total, want.total)
	}
}

// TestSearchMatchesReference runs the searcher and the frozen reference (search_ref_test.go)
// on many random instances and requires the same seats at every table, the same PRNG state
// afterwards (so the same number and order of PRNG calls) and the same total cost.
func TestSearchMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 8))
	ns := []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 20, 23, 31, 40, 41, 64, 99, 128, 200, 333}
	sizeSets := [][]int{{4}, {5}, {4, 5}, {5, 4}, {3, 4}, {4, 3}, {8}, {6, 7, 8}, {2}}
	count := 0
	for rep := range 6 {
		for _, n := range ns {
			for _, sz := range sizeSets {
				c, order := genSearchCase(r, n, sz)
				c.name = fmt.Sprintf("rep %d n %d sizes %v", rep, n, sz)
				checkSameSearch(t, c, order)
				count++
			}
		}
	}
	large := []int{1000, 2003, 3001, 4096}
	if testing.Short() {
		large = large[:1]
	}
	for _, n := range large {
		for _, sz := range [][]int{{4}, {4, 5}, {5}} {
			c, order := genSearchCase(r, n, sz)
			c.name = fmt.Sprintf("large n %d sizes %v", n, sz)
			checkSameSearch(t, c, order)
			count++
		}
	}
	t.Logf("%d instances identical", count)
}

// TestSearchMatchesReferenceHard covers the cases the random generator seldom hits together:
// many earlier rounds (met lists of tens of players), every constraint on, few clubs (many
// unavoidable pairs, so the whole budget is spent), and met lists that are not symmetric or
// name a player twice, which the searcher must treat exactly as pair does (x in met[p]).
func TestSearchMatchesReferenceHard(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 2026))
	for i, n := range []int{17, 40, 101, 400, 1200, 2500} {
		for _, sz := range [][]int{{4}, {4, 5}} {
			for variant := range 4 {
				c, order := genSearchCase(r, n, sz)
				c.useClub, c.useRegion = true, true
				c.club = make([]int, n)
				c.region = make([]int, n)
				for p := range n {
					c.club[p] = r.IntN(2 + n/8)
					c.region[p] = r.IntN(5)
				}
				if variant%2 == 1 {
					c.usePlace = true
					c.place = make([]int, n)
					for p := range n {
						c.place[p] = p%4 + 1
					}
				}
				c.met = make([][]int, n)
				for range 6 + r.IntN(14) {
					perm := r.Perm(n)
					for j := 0; j+4 <= n; j += 4 {
						for _, a := range perm[j : j+4] {
							for _, b := range perm[j : j+4] {
								if a != b {
									c.met[a] = append(c.met[a], b)
								}
							}
						}
					}
				}
				if variant >= 2 {
					// Asymmetric and repeated entries: x in met[p] without p in met[x].
					for range n {
						p, x := r.IntN(n), r.IntN(n)
						if p != x {
							c.met[p] = append(c.met[p], x, x)
						}
					}
				}
				c.name = fmt.Sprintf("hard %d n %d sizes %v variant %d", i, n, sz, variant)
				checkSameSearch(t, c, order)
			}
		}
	}
}

// TestDrawMatchesReference runs whole draws whose searcher is swapped for the reference and
// compares them with Draw: large tournaments with several earlier rounds, for every
// algorithm that uses the search.
func TestDrawMatchesReference(t *testing.T) {
	for _, n := range []int{250, 1003} {
		for _, rounds := range []int{0, 1, 5} {
			req := bigRequest(n, rounds, fmt.Sprintf("eq-%d-%d", n, rounds))
			for _, alg := range []string{AlgRandom, AlgRURGame1, AlgRURGame2} {
				if alg == AlgRURGame2 && rounds == 0 {
					continue // rur-game2 needs the places of a previous round
				}
				req := req
				req.Algorithm = alg
				got, err := Draw(req)
				if err != nil {
					t.Fatal(err)
				}
				want := refDraw(t, req)
				if !slices.EqualFunc(got.Tables, want, func(a, b Table) bool { return a.Table == b.Table && slices.Equal(a.Players, b.Players) }) {
					t.Fatalf("%s n %d rounds %d: tables differ from the reference", alg, n, rounds)
				}
			}
		}
	}
}

// refDraw is randomV1/game2V1 with the reference searcher.
func refDraw(t testing.TB, req Request) []Table {
	t.Helper()
	r, err := prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	sizes, err := r.plan()
	if err != nil {
		t.Fatal(err)
	}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	var seats [][]int
	var place []int
	if req.Algorithm == AlgRURGame2 {
		place = r.previousPlaces()
		seats = dealByPlace(g, place, sizes)
	} else {
		order := identity(len(r.entrants))
		shuffle(g, order)
		seats = make([][]int, len(sizes))
		next := 0
		for t, size := range sizes {
			seats[t] = order[next : next+size : next+size]
			next += size
		}
	}
	s := newRefSearcher(g, seats, len(r.entrants))
	s.useClub, s.useRegion, s.usePlace = true, true, place != nil
	s.club, s.region, s.place = r.clubIDs(), r.regionIDs(), place
	if s.met, err = r.metBefore(); err != nil {
		t.Fatal(err)
	}
	s.improve()
	return r.tables(seats)
}

// TestDeltaMatchesReference checks the pieces of the searcher against the reference on the
// same seating: delta of every candidate with every partner at another table, the cached own
// costs, broken, conflicted and total, before and after random swaps (which update the
// bookkeeping incrementally).
func TestDeltaMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 120 {
		n := 2 + r.IntN(60)
		if i%10 == 0 {
			n = 200 + r.IntN(300)
		}
		sizeSets := [][]int{{4}, {5}, {4, 5}, {3, 4}, {8}, {6, 7, 8}}
		c, order := genSearchCase(r, n, sizeSets[r.IntN(len(sizeSets))])
		if len(c.sizes) < 2 {
			continue
		}
		g := c.rng
		seats := c.seats(order)
		s := newSearcher(&g, seats, c.n)
		s.club, s.region, s.place, s.class, s.met = c.club, c.region, c.place, c.class, c.met
		s.useClub, s.useRegion, s.usePlace = c.useClub, c.useRegion, c.usePlace
		s.index()
		if i%3 == 0 {
			// Start near the end of the stamp range so that mark wraps the epoch mid-test.
			s.epoch = math.MaxUint32 - uint32(r.IntN(2*n))
		}
		for step := range 5 {
			// The reference reads the same seat slices, with its own player → table index.
			ref := newRefSearcher(&g, seats, c.n)
			ref.club, ref.region, ref.place, ref.class, ref.met = c.club, c.region, c.place, c.class, c.met
			ref.useClub, ref.useRegion, ref.usePlace = c.useClub, c.useRegion, c.usePlace
			where := fmt.Sprintf("case %d step %d", i, step)
			if !slices.Equal(s.table, ref.table) {
				t.Fatalf("%s: table index %v, reference %v", where, s.table, ref.table)
			}
			for p := range n {
				if o, want := s.ownCost[p], ref.own(p); o != (cost{want.place, want.club, want.region, want.rematch}) {
					t.Fatalf("%s: ownCost[%d] %+v, reference %+v", where, p, o, want)
				}
				if s.broken(p) != ref.broken(p) {
					t.Fatalf("%s: broken(%d) %v, reference %v", where, p, s.broken(p), ref.broken(p))
				}
			}
			if got, want := s.conflicted(), ref.conflicted(); !slices.Equal(got, want) {
				t.Fatalf("%s: conflicted %v, reference %v", where, got, want)
			}
			if got, want := s.total(), ref.total(); got != (cost{want.place, want.club, want.region, want.rematch}) {
				t.Fatalf("%s: total %+v, reference %+v", where, got, want)
			}
			for p := range n {
				s.mark(p)
				for q := range n {
					if s.table[q] == s.table[p] {
						continue
					}
					got, want := s.delta(q), ref.delta(p, q)
					if got != (cost{want.place, want.club, want.region, want.rematch}) {
						t.Fatalf("%s: delta(%d, %d) %+v, reference %+v", where, p, q, got, want)
					}
				}
			}
			for range 1 + r.IntN(6) {
				p, q := r.IntN(n), r.IntN(n)
				if s.table[p] != s.table[q] {
					s.swap(p, q)
				}
			}
		}
	}
}
