package draw

import (
	"fmt"
	"slices"
)

// randomV1 is AlgRandom and AlgRURGame1 version 1 (rur-2015 art. 8, "prima partita: a
// sorteggio evitando che giocatori dello stesso Club/Regione giochino allo stesso tavolo").
//
// The entrants, sorted by player id, are shuffled (Fisher–Yates) and dealt in that order to the
// tables of Plan, table 1 first; the search then swaps players to avoid same-club pairs first,
// same-region pairs second and, last, pairs who already sat together in an earlier round
// (Past games with the same Round and Table). No rulebook asks for the last one; an arbiter
// forming tables by hand would not seat the same opponents together twice when he can help
// it, and it never costs a club or region pair.
func randomV1(r *request) ([]Table, error) {
	sizes, err := r.plan()
	if err != nil {
		return nil, err
	}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	order := identity(len(r.entrants))
	shuffle(g, order)
	seats := make([][]int, len(sizes))
	next := 0
	for t, size := range sizes {
		seats[t] = order[next : next+size : next+size]
		next += size
	}
	s := newSearcher(g, seats, len(r.entrants))
	s.useClub, s.useRegion = true, true
	s.club, s.region = r.clubIDs(), r.regionIDs()
	if s.met, err = r.metBefore(); err != nil {
		return nil, err
	}
	s.improve()
	return r.tables(seats), nil
}

// game2V1 is AlgRURGame2 version 1 (rur-2015 art. 8, "seconda partita: saranno formati con
// un primo e nel limite del possibile da un secondo, un terzo ed un quarto della prima partita,
// evitando che giocatori dello stesso Club/Regione giochino allo stesso tavolo").
//
// Game 1 is the previous round (Round-1); a player's place there comes from Past. The
// entrants are grouped by that place (1sts, 2nds, …, then those without a place), each group
// is shuffled, and the groups are dealt in that order row by row: every table's first seat,
// then every table's second seat, and so on, so that when there are as many 1sts, 2nds, 3rds
// and 4ths as tables each table gets one of each. The search then swaps players to keep that
// mix first (a table without a 1st weighs more than any other missing place), then to avoid
// same-club pairs, then same-region pairs, then game-1 opponents meeting again. Club avoidance does not break the place mix: "nel
// limite del possibile" is read as the limit set by the counts of each place. When the mix is
// complete the players are listed 1st, 2nd, 3rd, 4th at every table.
func game2V1(r *request) ([]Table, error) {
	if err := r.checkKind(AlgRURGame2); err != nil {
		return nil, err
	}
	sizes, err := r.plan()
	if err != nil {
		return nil, err
	}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	place := r.previousPlaces()
	seats := dealByPlace(g, place, sizes)
	s := newSearcher(g, seats, len(r.entrants))
	s.useClub, s.useRegion, s.usePlace = true, true, true
	s.club, s.region, s.place = r.clubIDs(), r.regionIDs(), place
	if s.met, err = r.metBefore(); err != nil {
		return nil, err
	}
	s.improve()
	return r.tables(seats), nil
}

// dealRows seats order row by row: the first seat of every table in table order, then the
// second seat of every table that has one, and so on.
func dealRows(sizes []int, order []int) [][]int {
	seats := make([][]int, len(sizes))
	for t, size := range sizes {
		seats[t] = make([]int, 0, size)
	}
	next := 0
	for row := 0; next < len(order); row++ {
		for t, size := range sizes {
			if row < size {
				seats[t] = append(seats[t], order[next])
				next++
			}
		}
	}
	return seats
}

func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// previousPlaces returns each entrant's place in round Round-1, 0 when it has none.
func (r *request) previousPlaces() []int {
	place := make([]int, len(r.entrants))
	for k := range r.Past {
		if i := r.pastIdx[k]; i >= 0 && r.Past[k].Round == r.Round-1 {
			place[i] = r.Past[k].Place
		}
	}
	return place
}

// metBefore lists, per entrant, the entrants it sat with in earlier rounds: Past games with
// the same Round and Table (Table 0, unknown, is skipped). It is nil when nobody met.
//
// The games (round, table) are numbered in order of first appearance among the past games of
// entrants (pastGames); met[a] lists, game after game in that order, the others at a's game
// in the order of Past (metLists).
func (r *request) metBefore() ([][]int, error) {
	gameOf, size, err := r.pastGames()
	if err != nil || len(size) == 0 {
		return nil, err
	}
	return r.metLists(gameOf, size), nil
}

// pastGames numbers the games of the past games that count: gameOf[k] is Past[k]'s game, -1
// when it does not count (a player who is no entrant, or Table 0), and size[g] is how many
// players sat at game g. size is empty when no past game counts. The games are numbered with
// index arrays rather than a map where they fit.
func (r *request) pastGames() (gameOf, size []int32, err error) {
	type game struct{ round, table int }
	// The past games that count, and the largest round and table among them.
	counted, minRound, maxRound, maxTable := 0, 1, 0, 0
	for k := range r.Past {
		if p := &r.Past[k]; r.pastIdx[k] >= 0 && p.Table >= 1 {
			counted++
			minRound, maxRound, maxTable = min(minRound, p.Round), max(maxRound, p.Round), max(maxTable, p.Table)
		}
	}
	if maxTable == 0 {
		return nil, nil, nil
	}
	// Game numbers come from a (round, table) array when rounds × tables is small next to the
	// number of past games (prepare keeps rounds in 1…Round-1), from a map otherwise.
	gameOf = make([]int32, len(r.Past))
	var slot []int32 // slot[(round-1)*maxTable+table-1] is 1 + the game's number, 0 for none
	var byKey map[game]int32
	most := counted // games at most
	if limit := 4*len(r.Past) + 1024; minRound >= 1 && maxTable <= limit/maxRound {
		slot = make([]int32, maxRound*maxTable)
		most = min(most, len(slot))
	} else {
		byKey = map[game]int32{}
	}
	size = make([]int32, 0, most) // players seen so far at each game
	for k := range r.Past {
		p := &r.Past[k]
		if r.pastIdx[k] < 0 || p.Table < 1 {
			gameOf[k] = -1
			continue
		}
		var g int32
		if slot != nil {
			s := &slot[(p.Round-1)*maxTable+p.Table-1]
			if *s == 0 {
				size = append(size, 0)
				*s = int32(len(size))
			}
			g = *s - 1
		} else {
			var ok bool
			if g, ok = byKey[game{p.Round, p.Table}]; !ok {
				g = int32(len(size))
				size = append(size, 0)
				byKey[game{p.Round, p.Table}] = g
			}
		}
		gameOf[k] = g
		if size[g]++; size[g] > maxTableSize {
			return nil, nil, fmt.Errorf("%w: past games put more than %d players at table %d of round %d", ErrInput, maxTableSize, p.Table, p.Round)
		}
	}
	return gameOf, size, nil
}

// metLists lists, per entrant, the others at its games (pastGames: gameOf and size, which it
// reuses), games in order, players in Past order; nil when nobody met anybody. The players
// of the games are grouped by a counting sort, and the lists share one array sized by a
// first count.
func (r *request) metLists(gameOf, size []int32) [][]int {
	games := len(size)
	start := make([]int32, games+1)
	for g, c := range size {
		start[g+1] = start[g] + c
	}
	players := make([]int32, start[games])
	next := size // the sizes are known: reuse the array as the fill cursor of each game
	copy(next, start)
	for k, g := range gameOf {
		if g >= 0 {
			players[next[g]] = r.pastIdx[k]
			next[g]++
		}
	}
	// Count each entrant's list, then fill the lists in one shared array.
	count := make([]int, len(r.entrants))
	total := 0
	for g := range games {
		ps := players[start[g]:start[g+1]]
		for _, a := range ps {
			for _, b := range ps {
				if a != b {
					count[a]++
					total++
				}
			}
		}
	}
	if total == 0 {
		return nil
	}
	all := make([]int, total)
	met := make([][]int, len(r.entrants))
	off := 0
	for a, c := range count {
		if c > 0 {
			met[a] = all[off : off : off+c]
			off += c
		}
	}
	for g := range games {
		ps := players[start[g]:start[g+1]]
		for _, a := range ps {
			for _, b := range ps {
				if a != b {
					met[a] = append(met[a], int(b))
				}
			}
		}
	}
	return met
}

// clubIDs numbers the clubs in order of first appearance among the sorted entrants; -1 for
// none. Club names are compared exactly: registration is expected to normalize them.
func (r *request) clubIDs() []int {
	return intern(r.entrants, func(e Entrant) string { return e.Club })
}

func (r *request) regionIDs() []int {
	return intern(r.entrants, func(e Entrant) string { return e.Region })
}

func intern(es []Entrant, key func(Entrant) string) []int {
	ids := make([]int, len(es))
	seen := make(map[string]int, len(es))
	for i, e := range es {
		k := key(e)
		if k == "" {
			ids[i] = -1
			continue
		}
		id, ok := seen[k]
		if !ok {
			id = len(seen)
			seen[k] = id
		}
		ids[i] = id
	}
	return ids
}

// tables turns seats into numbered tables of player ids.
func (r *request) tables(seats [][]int) []Table {
	out := make([]Table, len(seats))
	for t, ps := range seats {
		players := make([]string, len(ps))
		for i, p := range ps {
			players[i] = r.entrants[p].Player
		}
		out[t] = Table{Table: t + 1, Players: players}
	}
	return out
}

// dealByPlace deals the players in rows across tables of the given sizes,
// grouped by their place in the previous round (places ascending, players
// without a place last), each group shuffled: the starting seating of
// rur-2015 game 2, one 1st, 2nd, 3rd and 4th per table as far as the
// groups allow.
func dealByPlace(g *rng, place, sizes []int) [][]int {
	groups := map[int][]int{}
	var keys []int
	for p, pl := range place {
		if _, ok := groups[pl]; !ok {
			keys = append(keys, pl)
		}
		groups[pl] = append(groups[pl], p)
	}
	slices.SortFunc(keys, func(a, b int) int {
		if (a == 0) != (b == 0) {
			if a == 0 {
				return 1
			}
			return -1
		}
		return a - b
	})
	var order []int
	for _, k := range keys {
		grp := groups[k]
		shuffle(g, grp)
		order = append(order, grp...)
	}
	return dealRows(sizes, order)
}
