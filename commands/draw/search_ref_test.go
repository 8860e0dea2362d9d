//go:build drawref

package draw

// This file is a frozen copy of search.go as it was before the incremental rewrite (the
// plain local search: pair scans met[p], delta calls pair for every seat of both tables,
// own and total recompute everything). It is the reference the fast searcher must match
// swap for swap and PRNG call for PRNG call; see search_equiv_test.go. Do not edit it: a
// recorded draw is re-run by verify and must give byte-identical tables.

// refCost is compared lexicographically: place, then club, then region, then rematch.
type refCost struct {
	place, club, region, rematch int
}

func (c refCost) add(d refCost) refCost {
	return refCost{c.place + d.place, c.club + d.club, c.region + d.region, c.rematch + d.rematch}
}

func (c refCost) sub(d refCost) refCost {
	return refCost{c.place - d.place, c.club - d.club, c.region - d.region, c.rematch - d.rematch}
}

func (c refCost) zero() bool { return c == refCost{} }

func (c refCost) less(d refCost) bool {
	if c.place != d.place {
		return c.place < d.place
	}
	if c.club != d.club {
		return c.club < d.club
	}
	if c.region != d.region {
		return c.region < d.region
	}
	return c.rematch < d.rematch
}

// refPlaceNoFirst is the place refCost of a table without a 1st of the previous round: rur-2015
// art. 8 forms every game-2 table "con un primo", and only "nel limite del possibile" with a
// 2nd, 3rd and 4th, so a missing 1st weighs more than every other missing place together.
const refPlaceNoFirst = maxTableSize

type refSearcher struct {
	rng    *rng
	seats  [][]int // table → players (indices into the sorted entrants)
	table  []int   // player → table
	club   []int   // player → club id, -1 for none
	region []int   // player → region id, -1 for none
	place  []int   // player → place in the previous round, 0 for none
	class  []int   // player → class; swaps stay within a class
	met    [][]int // player → players met at a table in an earlier round

	useClub, useRegion, usePlace bool
}

// newRefSearcher indexes a seating. club, region, place and class may be nil when unused.
func newRefSearcher(r *rng, seats [][]int, n int) *refSearcher {
	s := &refSearcher{rng: r, seats: seats, table: make([]int, n)}
	for t, ps := range seats {
		for _, p := range ps {
			s.table[p] = t
		}
	}
	return s
}

// pair is the refCost of two different players sitting together: a club pair when both have
// the same (non-empty) club, else a region pair when both have the same (non-empty) region;
// and a rematch when they met before.
func (s *refSearcher) pair(p, x int) refCost {
	var c refCost
	switch {
	case s.useClub && s.club[p] >= 0 && s.club[p] == s.club[x]:
		c.club = 1
	case s.useRegion && s.region[p] >= 0 && s.region[p] == s.region[x]:
		c.region = 1
	}
	if s.met != nil {
		for _, m := range s.met[p] {
			if m == x {
				c.rematch = 1
				break
			}
		}
	}
	return c
}

// placeCost is the place refCost of table t with player out replaced by player in (out = -1:
// as it is). Each table of size k wants one player of each place 1..k.
func (s *refSearcher) placeCost(t, out, in int) int {
	if !s.usePlace {
		return 0
	}
	var seen [maxTableSize + 1]bool
	size := len(s.seats[t])
	for _, p := range s.seats[t] {
		if p == out {
			p = in
		}
		if pl := s.place[p]; pl >= 1 && pl <= size {
			seen[pl] = true
		}
	}
	c := 0
	if !seen[1] {
		c += refPlaceNoFirst
	}
	for pl := 2; pl <= size; pl++ {
		if !seen[pl] {
			c++
		}
	}
	return c
}

// own is the pair refCost of player p with the others at its table.
func (s *refSearcher) own(p int) refCost {
	var c refCost
	for _, x := range s.seats[s.table[p]] {
		if x != p {
			c = c.add(s.pair(p, x))
		}
	}
	return c
}

// delta is the change in total refCost if p and q (at different tables) swap seats. A swap that
// worsens the place mix is returned as soon as that is known, with only its place change:
// the search never takes it.
func (s *refSearcher) delta(p, q int) refCost {
	a, b := s.table[p], s.table[q]
	var d refCost
	if s.usePlace && s.place[p] != s.place[q] {
		d.place = s.placeCost(a, p, q) + s.placeCost(b, q, p) - s.placeCost(a, -1, -1) - s.placeCost(b, -1, -1)
		if d.place > 0 {
			return d
		}
	}
	var before, after refCost
	for _, x := range s.seats[a] {
		if x != p {
			before = before.add(s.pair(p, x))
			after = after.add(s.pair(q, x))
		}
	}
	for _, x := range s.seats[b] {
		if x != q {
			before = before.add(s.pair(q, x))
			after = after.add(s.pair(p, x))
		}
	}
	return d.add(after.sub(before))
}

func (s *refSearcher) swap(p, q int) {
	a, b := s.table[p], s.table[q]
	for i, x := range s.seats[a] {
		if x == p {
			s.seats[a][i] = q
		}
	}
	for i, x := range s.seats[b] {
		if x == q {
			s.seats[b][i] = p
		}
	}
	s.table[p], s.table[q] = b, a
}

// conflicted lists, in ascending order, the players who break a constraint.
func (s *refSearcher) conflicted() []int {
	var out []int
	for p := range s.table {
		if s.broken(p) {
			out = append(out, p)
		}
	}
	return out
}

// improve runs an iterated local search: descend (best swaps, then a bounded number of
// sideways swaps) until stuck; if constraints are still broken, go back to the best seating
// found, kick it with a few random swaps of a conflicted player, and descend again. It stops
// when nothing is broken, when refMaxStaleKicks kicks in a row found nothing better, or when the
// budget of swap evaluations is spent, and leaves the best seating found (the first one
// reached at that refCost) in s.seats.
func (s *refSearcher) improve() {
	n := len(s.table)
	if len(s.seats) < 2 {
		return
	}
	pools := map[int][]int{}
	for p := range n {
		pools[s.classOf(p)] = append(pools[s.classOf(p)], p)
	}
	budget, stale := refSearchBudget(n), 0
	best, bestCost := s.snapshot(), s.total()
	for !bestCost.zero() && budget > 0 && stale < refMaxStaleKicks {
		s.descend(pools, &budget)
		if c := s.total(); c.less(bestCost) {
			best, bestCost, stale = s.snapshot(), c, 0
		} else {
			stale++
		}
		if bestCost.zero() || budget <= 0 {
			break
		}
		s.restore(best)
		s.kick(pools, &budget)
	}
	s.restore(best)
}

func (s *refSearcher) classOf(p int) int {
	if s.class == nil {
		return 0
	}
	return s.class[p]
}

func (s *refSearcher) broken(p int) bool {
	return !s.own(p).zero() || s.placeCost(s.table[p], -1, -1) > 0
}

// descend takes, for each conflicted player in a drawn order, the best improving swap, or
// else the first swap that changes nothing (a bounded number of times), pass after pass
// until a pass improves nothing and the sideways moves are spent.
func (s *refSearcher) descend(pools map[int][]int, budget *int) {
	sideways := len(s.table)/2 + 16
	for *budget > 0 {
		cand := s.conflicted()
		if len(cand) == 0 {
			return
		}
		shuffle(s.rng, cand)
		improved, moved := false, false
		for _, p := range cand {
			if *budget <= 0 {
				break
			}
			*budget-- // every candidate costs something, even one with no partner
			if !s.broken(p) {
				continue // fixed by an earlier swap
			}
			pool := pools[s.classOf(p)]
			start := s.rng.intn(len(pool))
			best, bestQ, flatQ := refCost{}, -1, -1
			for k := range pool {
				q := pool[(start+k)%len(pool)]
				if s.table[q] == s.table[p] {
					continue
				}
				*budget--
				d := s.delta(p, q)
				if d.less(best) {
					best, bestQ = d, q
				} else if flatQ < 0 && d.zero() {
					flatQ = q
				}
			}
			switch {
			case bestQ >= 0:
				s.swap(p, bestQ)
				improved, moved = true, true
			case flatQ >= 0 && sideways > 0:
				s.swap(p, flatQ)
				sideways--
				moved = true
			}
		}
		if !moved || (!improved && sideways <= 0) {
			return
		}
	}
}

// kick swaps 1 to 3 conflicted players with random players of their class (and, for the
// place mix, of their place) at other tables.
func (s *refSearcher) kick(pools map[int][]int, budget *int) {
	cand := s.conflicted()
	if len(cand) == 0 {
		return
	}
	for range 1 + s.rng.intn(3) {
		*budget--
		p := cand[s.rng.intn(len(cand))]
		pool := pools[s.classOf(p)]
		for range 8 {
			q := pool[s.rng.intn(len(pool))]
			if s.table[q] != s.table[p] && (!s.usePlace || s.place[q] == s.place[p]) {
				s.swap(p, q)
				break
			}
		}
	}
}

// total is the refCost of the whole seating.
func (s *refSearcher) total() refCost {
	var c refCost
	for p := range s.table {
		c = c.add(s.own(p))
	}
	c = refCost{club: c.club / 2, region: c.region / 2, rematch: c.rematch / 2}
	for t := range s.seats {
		c.place += s.placeCost(t, -1, -1)
	}
	return c
}

func (s *refSearcher) snapshot() [][]int {
	out := make([][]int, len(s.seats))
	for t, ps := range s.seats {
		out[t] = append([]int(nil), ps...)
	}
	return out
}

// restore copies a snapshot back into the seat slices the caller holds.
func (s *refSearcher) restore(snap [][]int) {
	for t, ps := range snap {
		copy(s.seats[t], ps)
		for _, p := range ps {
			s.table[p] = t
		}
	}
}

// refMaxStaleKicks ends the search after this many kicks in a row that found nothing better.
const refMaxStaleKicks = 20

// refSearchBudget is the number of swap evaluations allowed for n players: over a hundred full
// passes for a Raduno, and at most some tens of milliseconds for 1,000 players whose
// constraints cannot all be met.
func refSearchBudget(n int) int {
	return 100*n + 20_000
}
