package draw

// The constraint search shared by the random, rur-game1, rur-game2 and bands draws.
//
// After the random assignment, the searcher repeatedly takes the players that break a
// constraint, in an order drawn from the PRNG, and for each looks for the best swap with a
// player of the same class (any player; for bands, a player of the same band) at another
// table. The cost of a seating is compared lexicographically: place mix first (rur-game2),
// then same-club pairs, then same-region pairs, then pairs who already met in an earlier
// round. A swap that lowers the cost is taken; a swap that leaves it equal ("sideways") is
// taken a bounded number of times to cross plateaus; when nothing helps, the best seating so
// far is kicked with a few random swaps and the descent starts again (see improve). The work
// is bounded by a count of swap evaluations derived from the number of players, never by
// time, so the same input does the same work and gives the same tables on any machine.

// cost is compared lexicographically: place, then club, then region, then rematch.
type cost struct {
	place, club, region, rematch int
}

func (c cost) add(d cost) cost {
	return cost{c.place + d.place, c.club + d.club, c.region + d.region, c.rematch + d.rematch}
}

func (c cost) sub(d cost) cost {
	return cost{c.place - d.place, c.club - d.club, c.region - d.region, c.rematch - d.rematch}
}

func (c cost) zero() bool { return c == cost{} }

func (c cost) less(d cost) bool {
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

// placeNoFirst is the place cost of a table without a 1st of the previous round: rur-2015
// art. 8 forms every game-2 table "con un primo", and only "nel limite del possibile" with a
// 2nd, 3rd and 4th, so a missing 1st weighs more than every other missing place together.
const placeNoFirst = maxTableSize

type searcher struct {
	rng    *rng
	seats  [][]int // table → players (indices into the sorted entrants)
	table  []int   // player → table
	club   []int   // player → club id, -1 for none
	region []int   // player → region id, -1 for none
	place  []int   // player → place in the previous round, 0 for none
	class  []int   // player → class; swaps stay within a class
	met    [][]int // player → players met at a table in an earlier round

	useClub, useRegion, usePlace bool

	book // incremental bookkeeping, built by index
}

// book is what the searcher keeps up to date so that it never recomputes a cost from scratch
// in its inner loop. Everything here is derived from the fields above and the current
// seating: index builds it, swap updates it for the two tables it touches (refresh; descend's
// swaps by the pairs that change, swapMarked) and restore for the tables it copies back.
// Costs are plain integers, so a cost read from here is exactly the cost own or placeCost
// would compute on the same seating: the search takes the same decisions, in the same order,
// as if it recomputed them.
type book struct {
	indexed bool

	// ownCost[p] is own(p) for the current seating. A player's own cost depends only on who
	// sits at its table, so a swap between tables a and b changes it only for the players of
	// a and b (refresh).
	ownCost []cost
	// tablePlace[t] is placeCost(t, -1, -1). placeCount[t*placeStride+v] is how many players
	// at table t have place v (1 ≤ v ≤ len(seats[t])), and placeCount[t*placeStride] is
	// len(seats[t]); together they give the place change of replacing one player in O(1)
	// (placeChange). Only kept when usePlace.
	tablePlace  []int
	placeCount  []uint8
	placeStride int

	// clubList[clubStart[c]:clubStart[c+1]] and regionList[regionStart[r]:regionStart[r+1]]
	// list the players of each club and region (members), and
	// metBy[metByStart[x]:metByEnd[x]] the players y with x in met[y] (met read backwards,
	// each y once even when met[y] names x twice). They let mark find, for a candidate, only
	// the players and tables it has a pair with instead of testing all.
	clubStart, clubList, regionStart, regionList []int32
	// metAt[t*n+y] is how many of the players at table t are in met[y] (each counted once),
	// kept as players move (moved) when tables × players is small enough (metAtLimit), nil
	// otherwise: mark then has the rematches a swap partner would have at the candidate's
	// table without going through the met lists of the candidate's tablemates.
	metAt                       []int32
	metByStart, metByEnd, metBy []int32

	// best is the best seating found so far (see snapshot). dirty marks the tables swap has
	// touched since best was last taken or restored; every other table is the same in seats
	// and best, so snapshot and restore copy only the dirty tables (dirtyTables lists them).
	best        [][]int
	dirty       []bool
	dirtyTables []int

	cand []int // conflicted's result, reused

	// ownMark[y] == ownEpoch: y is in met of the player whose own cost refresh is
	// computing (ownAt), or of the partner q of swapMarked. metByP[y] and metByQ[y] ==
	// ownEpoch: swapMarked's p, or q, is in met[y].
	ownMark        []uint32
	metByP, metByQ []uint32
	ownEpoch       uint32

	probe
}

// probe is the precomputation for one candidate p of descend, valid while the seating does
// not change (descend evaluates every swap of p before taking one). Rather than testing each
// pair with a linear scan of met, it stamps, once per candidate, every player and table p or
// its tablemates have a pair with; evaluating a swap of p with q is then O(size of p's
// table). A stamp equal to epoch means "set for this candidate", so nothing is cleared
// between candidates.
type probe struct {
	epoch uint32
	p, a  int  // the candidate and its table
	own   cost // own(p)
	// pClub and pRegion are p's club and region, -1 when unused or none.
	pClub, pRegion int
	// placeOut + placeIn[v] is placeChange(a, place[p], v) for v ≠ place[p] in
	// 0..len(seats[a]) (placeIn[0] = 0: no place); a place beyond the table counts as none.
	placeOut int
	placeIn  []int
	// othersClub and othersRegion are the clubs and regions of the players at table a other
	// than p (-1 when unused or none), others those players.
	others, othersClub, othersRegion []int
	// clubMark[c] == epoch: clubCount[c] of the others have club c; regionMark[r] == epoch:
	// regionCount[r] of the others have region r, whatever their club. They count the pairs
	// a swap partner would have at table a without scanning the others.
	clubMark, regionMark   []uint32
	clubCount, regionCount []int32

	// metMark[y] == epoch: y is in met[p], so p and y are a rematch.
	metMark []uint32
	// tableMark[t] == epoch: tableCost[t] is the sum of pair(p, x) over the players x at table
	// t. Tables not marked have no pair with p (cost zero).
	tableMark []uint32
	tableCost []cost
	// metAtA is metAt's row of table a, nil without metAt; rematchMark[y] == epoch then
	// says that p is in met[y], and rematchCount is unused.
	metAtA []int32
	// rematchMark[y] == epoch: rematchCount[y] of the others at table a are in met[y]
	// (pair(y, x) is a rematch), each counted once as in pair, metBy naming y once.
	rematchMark  []uint32
	rematchCount []int32
}

// newSearcher indexes a seating. club, region, place and class may be nil when unused.
func newSearcher(r *rng, seats [][]int, n int) *searcher {
	s := &searcher{rng: r, seats: seats, table: make([]int, n)}
	for t, ps := range seats {
		for _, p := range ps {
			s.table[p] = t
		}
	}
	return s
}

// pair is the cost of two different players sitting together: a club pair when both have
// the same (non-empty) club, else a region pair when both have the same (non-empty) region;
// and a rematch when they met before.
func (s *searcher) pair(p, x int) cost {
	var c cost
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

// placeCost is the place cost of table t with player out replaced by player in (out = -1:
// as it is). Each table of size k wants one player of each place 1..k.
func (s *searcher) placeCost(t, out, in int) int {
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
		c += placeNoFirst
	}
	for pl := 2; pl <= size; pl++ {
		if !seen[pl] {
			c++
		}
	}
	return c
}

// placeWeight is what a table pays for missing place pl (see placeCost).
func placeWeight(pl int) int {
	if pl == 1 {
		return placeNoFirst
	}
	return 1
}

// placeChange is placeCost(t, x, y) - placeCost(t, -1, -1) for a player x at table t with
// place out replaced by a player y with place in, from the place counts of t: place out goes
// missing when x was its only holder, place in stops missing when nobody held it. Places
// outside 1..len(seats[t]) count for nothing, as in placeCost.
func (s *searcher) placeChange(t, out, in int) int {
	if out == in {
		return 0
	}
	count := s.placeCount[t*s.placeStride : (t+1)*s.placeStride]
	size := int(count[0])
	c := 0
	if out >= 1 && out <= size && count[out] == 1 {
		c += placeWeight(out)
	}
	if in >= 1 && in <= size && count[in] == 0 {
		c -= placeWeight(in)
	}
	return c
}

// own is the pair cost of player p with the others at its table, computed from scratch;
// the search reads ownCost, which refresh keeps equal to it.
func (s *searcher) own(p int) cost {
	var c cost
	for _, x := range s.seats[s.table[p]] {
		if x != p {
			c = c.add(s.pair(p, x))
		}
	}
	return c
}

// ownAt is own(p) for p at table t, the players p met stamped once (ownMark) rather than
// scanned for each tablemate: the same sum of the same pairs.
func (s *searcher) ownAt(p, t int) cost {
	var c cost
	met := s.met != nil && len(s.met[p]) > 0
	if met {
		s.nextOwnEpoch()
		for _, m := range s.met[p] {
			s.ownMark[m] = s.ownEpoch
		}
	}
	for _, x := range s.seats[t] {
		if x == p {
			continue
		}
		switch {
		case s.useClub && s.club[p] >= 0 && s.club[p] == s.club[x]:
			c.club++
		case s.useRegion && s.region[p] >= 0 && s.region[p] == s.region[x]:
			c.region++
		}
		if met && s.ownMark[x] == s.ownEpoch {
			c.rematch++
		}
	}
	return c
}

// nextOwnEpoch starts a new stamp for ownMark, metByP and metByQ.
func (s *searcher) nextOwnEpoch() {
	if s.ownEpoch++; s.ownEpoch == 0 { // wrapped: forget every stamp
		clear(s.ownMark)
		clear(s.metByP)
		clear(s.metByQ)
		s.ownEpoch = 1
	}
}

// kin is the club or region part of pair(p, x), which is the same for pair(x, p).
func (s *searcher) kin(p, x int) cost {
	switch {
	case s.useClub && s.club[p] >= 0 && s.club[p] == s.club[x]:
		return cost{club: 1}
	case s.useRegion && s.region[p] >= 0 && s.region[p] == s.region[x]:
		return cost{region: 1}
	}
	return cost{}
}

// index builds the bookkeeping (see book) for the current seating, from scratch.
func (s *searcher) index() {
	n, tables := len(s.table), len(s.seats)
	s.book = book{indexed: true}
	b := &s.book
	b.ownCost = make([]cost, n)
	if s.usePlace {
		size := 0
		for _, ps := range s.seats {
			size = max(size, len(ps))
		}
		if size > 255 {
			panic("draw: table too large for the place counts")
		}
		b.placeStride = size + 1
		b.tablePlace = make([]int, tables)
		b.placeCount = make([]uint8, tables*b.placeStride)
	}
	// The stamps and counts are cut from two blocks, sized first: a seating indexed once
	// per draw, thousands of draws in a season's verification, each block one allocation.
	clubs, regions, metLen := 0, 0, 0
	if s.useClub {
		clubs = idCount(s.club)
	}
	if s.useRegion {
		regions = idCount(s.region)
	}
	u32n, i32n := tables+clubs+regions, 3*clubs+1+n+3*regions+1+n
	if s.met != nil {
		for _, ms := range s.met[:n] {
			metLen += len(ms)
		}
		u32n += 5 * n
		i32n += 3*n + 1 + metLen
	}
	u32 := block[uint32]{make([]uint32, u32n)}
	i32 := block[int32]{make([]int32, i32n)}
	if s.met != nil {
		b.ownMark, b.metByP, b.metByQ = u32.take(n), u32.take(n), u32.take(n)
	}
	for t := range s.seats {
		s.refresh(t)
	}
	if s.useClub {
		b.clubStart, b.clubList = members(s.club, i32.take(clubs+1), i32.take(clubs), i32.take(n))
		b.clubMark, b.clubCount = u32.take(clubs), i32.take(clubs)
	}
	if s.useRegion {
		b.regionStart, b.regionList = members(s.region, i32.take(regions+1), i32.take(regions), i32.take(n))
		b.regionMark, b.regionCount = u32.take(regions), i32.take(regions)
	}
	if s.met != nil {
		// Counting sort of the met entries by the player named.
		b.metByStart = i32.take(n + 1)
		for _, ms := range s.met[:n] {
			for _, x := range ms {
				b.metByStart[x+1]++
			}
		}
		for x := range n {
			b.metByStart[x+1] += b.metByStart[x]
		}
		// The entries for x from one met[y] are written one after the other, so a y that
		// met[y] names x twice is dropped as it repeats the last one written; metByEnd is
		// where each list ends then.
		b.metBy = i32.take(metLen)
		next := i32.take(n)
		copy(next, b.metByStart[:n])
		for y, ms := range s.met[:n] {
			for _, x := range ms {
				if next[x] > b.metByStart[x] && b.metBy[next[x]-1] == int32(y) {
					continue
				}
				b.metBy[next[x]] = int32(y)
				next[x]++
			}
		}
		b.metByEnd = next
		if tables*n <= min(metAtLimit, 16*metLen) {
			b.metAt = make([]int32, tables*n)
			for x := range n {
				row := b.metAt[s.table[x]*n:]
				for _, y := range b.metBy[b.metByStart[x]:b.metByEnd[x]] {
					row[y]++
				}
			}
		}
		b.metMark = u32.take(n)
		b.rematchMark = u32.take(n)
		b.rematchCount = i32.take(n)
	}
	b.tableMark = u32.take(tables)
	b.tableCost = make([]cost, tables)
	b.dirty = make([]bool, tables)
}

// metAtLimit bounds tables × players for metAt: 4 MB of counts. Below it, metAt is kept when
// it holds at most 16 counts per entry of the met lists: in an early round of a large
// tournament the counts would be mostly zeros, made and cleared for few rematches.
const metAtLimit = 1 << 20

// moved updates metAt for player x moving from table from to table to.
func (s *searcher) moved(x, from, to int) {
	n := len(s.table)
	src, dst := s.metAt[from*n:(from+1)*n], s.metAt[to*n:(to+1)*n]
	for _, y := range s.metBy[s.metByStart[x]:s.metByEnd[x]] {
		src[y]--
		dst[y]++
	}
}

// block cuts slices from one allocation.
type block[T any] struct{ free []T }

// take returns the next k elements, zero, capped at k.
func (b *block[T]) take(k int) []T {
	s := b.free[:k:k]
	b.free = b.free[k:]
	return s
}

// idCount is 1 + the largest id (club or region), 0 when there is none.
func idCount(ids []int) int {
	k := 0
	for _, id := range ids {
		k = max(k, id+1)
	}
	return k
}

// members groups the players by id (club or region), ids below 0 being none: the players of
// id c are list[start[c]:start[c+1]], in ascending order. start has room for idCount(ids)+1
// entries, next for idCount(ids) and list for len(ids), all zero; list is returned cut to
// the players grouped.
func members(ids []int, start, next, list []int32) ([]int32, []int32) {
	for _, id := range ids {
		if id >= 0 {
			start[id+1]++
		}
	}
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	list = list[:start[len(start)-1]]
	copy(next, start)
	for p, id := range ids {
		if id >= 0 {
			list[next[id]] = int32(p)
			next[id]++
		}
	}
	return start, list
}

// refresh recomputes the bookkeeping of table t after its players changed: their table,
// their own costs (which depend only on who sits at t) and the place counts of t.
func (s *searcher) refresh(t int) {
	for _, p := range s.seats[t] {
		if s.metAt != nil && s.table[p] != t {
			s.moved(p, s.table[p], t)
		}
		s.table[p] = t
	}
	for _, p := range s.seats[t] {
		s.ownCost[p] = s.ownAt(p, t)
	}
	s.refreshPlace(t)
}

// refreshPlace recomputes the place counts and place cost of table t.
func (s *searcher) refreshPlace(t int) {
	if s.usePlace {
		count := s.placeCount[t*s.placeStride : (t+1)*s.placeStride]
		clear(count)
		count[0] = uint8(len(s.seats[t]))
		for _, p := range s.seats[t] {
			if pl := s.place[p]; pl >= 1 && pl <= len(s.seats[t]) {
				count[pl]++
			}
		}
		s.tablePlace[t] = s.placeCost(t, -1, -1)
	}
}

// mark prepares the evaluation of every swap of candidate p (see probe and delta): it stamps
// the players p met, sums p's pairs per table over the players of p's club and region and
// the players p met, and counts for every player y how many of p's tablemates y met (with
// metAt, stamps instead the players who met p: metAt counts the rest).
func (s *searcher) mark(p int) {
	pr := &s.probe
	pr.epoch++
	if pr.epoch == 0 { // wrapped: forget every stamp
		clear(pr.metMark)
		clear(pr.tableMark)
		clear(pr.rematchMark)
		clear(pr.clubMark)
		clear(pr.regionMark)
		pr.epoch = 1
	}
	e := pr.epoch
	pr.p, pr.a, pr.own = p, s.table[p], s.ownCost[p]
	pr.pClub, pr.pRegion = -1, -1
	if s.useClub {
		pr.pClub = s.club[p]
	}
	if s.useRegion {
		pr.pRegion = s.region[p]
	}
	if s.usePlace {
		pr.placeOut = s.placeChange(pr.a, s.place[p], 0)
		placeIn := pr.placeIn[:0]
		for v := range len(s.seats[pr.a]) + 1 {
			placeIn = append(placeIn, s.placeChange(pr.a, 0, v))
		}
		pr.placeIn = placeIn
	}
	// The lists grow in locals and are stored once: a slice stored in the probe at each
	// append is a pointer write the garbage collector has to watch while it marks.
	others, othersClub, othersRegion := pr.others[:0], pr.othersClub[:0], pr.othersRegion[:0]
	for _, x := range s.seats[pr.a] {
		if x == p {
			continue
		}
		c, r := -1, -1
		if s.useClub {
			c = s.club[x]
		}
		if s.useRegion {
			r = s.region[x]
		}
		others, othersClub, othersRegion = append(others, x), append(othersClub, c), append(othersRegion, r)
		if c >= 0 {
			if pr.clubMark[c] != e {
				pr.clubMark[c], pr.clubCount[c] = e, 0
			}
			pr.clubCount[c]++
		}
		if r >= 0 {
			if pr.regionMark[r] != e {
				pr.regionMark[r], pr.regionCount[r] = e, 0
			}
			pr.regionCount[r]++
		}
	}
	pr.others, pr.othersClub, pr.othersRegion = others, othersClub, othersRegion

	// tableCost[t] = Σ pair(p, x) over x at t, built from the only players p can have a pair
	// with. Table a gets p's own pairs too, but no swap partner sits there.
	at := func(t int) *cost {
		if pr.tableMark[t] != e {
			pr.tableMark[t], pr.tableCost[t] = e, cost{}
		}
		return &pr.tableCost[t]
	}
	if pr.pClub >= 0 {
		for _, x := range s.clubList[s.clubStart[pr.pClub]:s.clubStart[pr.pClub+1]] {
			if int(x) != p {
				at(s.table[x]).club++
			}
		}
	}
	if pr.pRegion >= 0 {
		for _, x := range s.regionList[s.regionStart[pr.pRegion]:s.regionStart[pr.pRegion+1]] {
			if int(x) != p && (pr.pClub < 0 || s.club[x] != pr.pClub) { // a club pair is not also a region pair
				at(s.table[x]).region++
			}
		}
	}
	if s.met != nil {
		for _, x := range s.met[p] {
			if pr.metMark[x] != e { // a player met twice is one rematch
				pr.metMark[x] = e
				at(s.table[x]).rematch++
			}
		}
		if s.metAt != nil {
			n := len(s.table)
			pr.metAtA = s.metAt[pr.a*n : (pr.a+1)*n]
			for _, y := range s.metBy[s.metByStart[p]:s.metByEnd[p]] {
				pr.rematchMark[y] = e
			}
			return
		}
		for _, x := range pr.others {
			for _, y := range s.metBy[s.metByStart[x]:s.metByEnd[x]] {
				if pr.rematchMark[y] != e {
					pr.rematchMark[y], pr.rematchCount[y] = e, 0
				}
				pr.rematchCount[y]++
			}
		}
	}
}

// delta is the change in total cost if the marked candidate p and q (at another table) swap
// seats. A swap that worsens the place mix is returned as soon as that is known, with only its
// place change: the search never takes it.
//
// With a = table[p] and b = table[q], the swap removes own(p) + own(q) and adds
// Σ pair(q, x) over the others at a and Σ pair(p, x) over the players at b other than q, the
// latter being tableCost[b] - pair(p, q). Each term is read from the probe or the
// bookkeeping, so this is the sum of the same integers the plain definition adds.
func (s *searcher) delta(q int) cost {
	pr := &s.probe
	p, b := pr.p, s.table[q]
	var d cost
	if pq := s.place; s.usePlace && pq[p] != pq[q] {
		d.place = pr.placeOut + s.placeChange(b, pq[q], pq[p])
		if v := pq[q]; v >= 0 && v < len(pr.placeIn) {
			d.place += pr.placeIn[v]
		}
		if d.place > 0 {
			return d
		}
	}
	qClub, qRegion := -1, -1
	if s.useClub {
		qClub = s.club[q]
	}
	if s.useRegion {
		qRegion = s.region[q]
	}
	// Pairs of q at a: a club pair with each other of q's club, else a region pair with
	// each other of q's region.
	var after cost // pairs of q at a, then of p at b
	if qClub >= 0 && pr.clubMark[qClub] == pr.epoch {
		after.club = int(pr.clubCount[qClub])
	}
	if qRegion >= 0 && pr.regionMark[qRegion] == pr.epoch {
		after.region = int(pr.regionCount[qRegion])
		if after.club > 0 {
			for i, c := range pr.othersClub {
				if c == qClub && pr.othersRegion[i] == qRegion {
					after.region-- // a club pair, not a region pair
				}
			}
		}
	}
	if pr.tableMark[b] == pr.epoch {
		after = after.add(pr.tableCost[b])
		// tableCost[b] counts pair(p, q); p does not sit with itself.
		switch {
		case pr.pClub >= 0 && pr.pClub == qClub:
			after.club--
		case pr.pRegion >= 0 && pr.pRegion == qRegion:
			after.region--
		}
		if s.met != nil && pr.metMark[q] == pr.epoch {
			after.rematch--
		}
	}
	if s.met != nil {
		switch {
		case pr.metAtA != nil:
			after.rematch += int(pr.metAtA[q]) // with p when q met p
			if pr.rematchMark[q] == pr.epoch {
				after.rematch--
			}
		case pr.rematchMark[q] == pr.epoch:
			after.rematch += int(pr.rematchCount[q])
		}
	}
	return d.add(after.sub(pr.own.add(s.ownCost[q])))
}

// swap exchanges the seats of p and q (at different tables) and updates the bookkeeping of
// both tables.
func (s *searcher) swap(p, q int) {
	a, b := s.table[p], s.table[q]
	s.exchange(p, q, a, b)
	s.refresh(a)
	s.refresh(b)
}

// exchange seats p, at table a, and q, at table b, at each other's table, and marks both
// tables dirty; the callers bring the tables' costs up to date.
func (s *searcher) exchange(p, q, a, b int) {
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
	if s.metAt != nil {
		s.moved(p, a, b)
		s.moved(q, b, a)
	}
	s.table[p], s.table[q] = b, a
	for _, t := range [2]int{a, b} {
		if !s.dirty[t] {
			s.dirty[t] = true
			s.dirtyTables = append(s.dirtyTables, t)
		}
	}
}

// swapMarked is swap(p, q) for the candidate p that mark prepared, the seating unchanged
// since (descend takes the swap bestSwap found). Rather than summing again the own cost of
// every player at both tables (refresh), it moves each by the pairs that change: a player x at
// p's table a loses pair(x, p) and gains pair(x, q), a player y at q's table b loses
// pair(y, q) and gains pair(y, p), and p and q get their pairs at their new tables. These are
// the same integers refresh would add up, so the bookkeeping is the same.
func (s *searcher) swapMarked(q int) {
	pr := &s.probe
	p, a, b := pr.p, pr.a, s.table[q]
	met := s.met != nil
	var e uint32
	if met {
		s.nextOwnEpoch()
		e = s.ownEpoch
		for _, y := range s.metBy[s.metByStart[p]:s.metByEnd[p]] {
			s.metByP[y] = e
		}
		for _, y := range s.metBy[s.metByStart[q]:s.metByEnd[q]] {
			s.metByQ[y] = e
		}
		for _, y := range s.met[q] {
			s.ownMark[y] = e
		}
	}
	var ownP, ownQ cost
	for _, x := range pr.others { // the players at a other than p
		kp, kq := s.kin(x, p), s.kin(x, q)
		c := s.ownCost[x].sub(kp).add(kq)
		ownQ = ownQ.add(kq)
		if met {
			if s.metByP[x] == e {
				c.rematch--
			}
			if s.metByQ[x] == e {
				c.rematch++
			}
			if s.ownMark[x] == e {
				ownQ.rematch++
			}
		}
		s.ownCost[x] = c
	}
	for _, y := range s.seats[b] {
		if y == q {
			continue
		}
		kq, kp := s.kin(y, q), s.kin(y, p)
		c := s.ownCost[y].sub(kq).add(kp)
		ownP = ownP.add(kp)
		if met {
			if s.metByQ[y] == e {
				c.rematch--
			}
			if s.metByP[y] == e {
				c.rematch++
			}
			if pr.metMark[y] == pr.epoch {
				ownP.rematch++
			}
		}
		s.ownCost[y] = c
	}
	s.ownCost[p], s.ownCost[q] = ownP, ownQ
	s.exchange(p, q, a, b)
	s.refreshPlace(a)
	s.refreshPlace(b)
}

// conflicted lists, in ascending order, the players who break a constraint. The slice is
// reused by the next call.
func (s *searcher) conflicted() []int {
	cand := s.cand[:0] // stored once, as in mark
	for p := range s.table {
		if s.broken(p) {
			cand = append(cand, p)
		}
	}
	s.cand = cand
	return cand
}

// improve runs an iterated local search: descend (best swaps, then a bounded number of
// sideways swaps) until stuck; if constraints are still broken, go back to the best seating
// found, kick it with a few random swaps of a conflicted player, and descend again. It stops
// when nothing is broken, when maxStaleKicks kicks in a row found nothing better, or when the
// budget of swap evaluations is spent, and leaves the best seating found (the first one
// reached at that cost) in s.seats.
func (s *searcher) improve() {
	n := len(s.table)
	if len(s.seats) < 2 {
		return
	}
	s.index()
	pools := map[int][]int{}
	for p := range n {
		pools[s.classOf(p)] = append(pools[s.classOf(p)], p)
	}
	budget, stale := searchBudget(n), 0
	s.snapshot()
	bestCost := s.total()
	for !bestCost.zero() && budget > 0 && stale < maxStaleKicks {
		s.descend(pools, &budget)
		if c := s.total(); c.less(bestCost) {
			s.snapshot()
			bestCost, stale = c, 0
		} else {
			stale++
		}
		if bestCost.zero() || budget <= 0 {
			break
		}
		s.restore()
		s.kick(pools, &budget)
	}
	s.restore()
}

func (s *searcher) classOf(p int) int {
	if s.class == nil {
		return 0
	}
	return s.class[p]
}

// broken reports whether p has a pair at its table or its table misses a place (from the
// bookkeeping).
func (s *searcher) broken(p int) bool {
	return !s.ownCost[p].zero() || (s.usePlace && s.tablePlace[s.table[p]] > 0)
}

// descend takes, for each conflicted player in a drawn order, the best improving swap, or
// else the first swap that changes nothing (a bounded number of times), pass after pass
// until a pass improves nothing and the sideways moves are spent.
func (s *searcher) descend(pools map[int][]int, budget *int) {
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
			bestQ, flatQ := s.bestSwap(p, pool, start, budget)
			switch {
			case bestQ >= 0:
				s.swapMarked(bestQ)
				improved, moved = true, true
			case flatQ >= 0 && sideways > 0:
				s.swapMarked(flatQ)
				sideways--
				moved = true
			}
		}
		if !moved || (!improved && sideways <= 0) {
			return
		}
	}
}

// bestSwap evaluates the swaps of p with every player of pool at another table, in pool order
// from start (wrapping), each for one unit of budget. It returns the first partner of the
// lowest cost below zero and the first partner of cost zero, -1 when there is none.
func (s *searcher) bestSwap(p int, pool []int, start int, budget *int) (bestQ, flatQ int) {
	s.mark(p)
	a := s.table[p]
	best := cost{}
	bestQ, flatQ = -1, -1
	for _, part := range [2][]int{pool[start:], pool[:start]} {
		for _, q := range part {
			if s.table[q] == a {
				continue
			}
			*budget--
			d := s.delta(q)
			if d.less(best) {
				best, bestQ = d, q
			} else if flatQ < 0 && d.zero() {
				flatQ = q
			}
		}
	}
	return bestQ, flatQ
}

// kick swaps 1 to 3 conflicted players with random players of their class (and, for the
// place mix, of their place) at other tables.
func (s *searcher) kick(pools map[int][]int, budget *int) {
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

// total is the cost of the whole seating: the sum of the own costs (each pair counted from
// both sides, hence halved) and of the tables' place costs. It reads the bookkeeping, which
// improve builds first (or total itself, when called before improve).
func (s *searcher) total() cost {
	if !s.indexed {
		s.index()
	}
	var c cost
	for _, o := range s.ownCost {
		c = c.add(o)
	}
	c = cost{club: c.club / 2, region: c.region / 2, rematch: c.rematch / 2}
	if s.usePlace {
		for _, pc := range s.tablePlace {
			c.place += pc
		}
	}
	return c
}

// snapshot makes best the current seating. The first call copies every table; later calls
// copy only the dirty ones, the others being equal already.
func (s *searcher) snapshot() {
	if s.best == nil {
		s.best = make([][]int, len(s.seats))
		for t, ps := range s.seats {
			s.best[t] = append([]int(nil), ps...)
		}
	} else {
		for _, t := range s.dirtyTables {
			copy(s.best[t], s.seats[t])
		}
	}
	s.clean()
}

// restore copies best back into the seat slices the caller holds: only the dirty tables
// differ, and only their bookkeeping is recomputed.
func (s *searcher) restore() {
	for _, t := range s.dirtyTables {
		copy(s.seats[t], s.best[t])
		s.refresh(t)
	}
	s.clean()
}

func (s *searcher) clean() {
	for _, t := range s.dirtyTables {
		s.dirty[t] = false
	}
	s.dirtyTables = s.dirtyTables[:0]
}

// maxStaleKicks ends the search after this many kicks in a row that found nothing better.
const maxStaleKicks = 20

// searchBudget is the number of swap evaluations allowed for n players: over a hundred full
// passes for a Raduno, and at most some tens of milliseconds for 1,000 players whose
// constraints cannot all be met.
func searchBudget(n int) int {
	return 100*n + 20_000
}
