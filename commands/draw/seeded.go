package draw

import (
	"cmp"
	"slices"
)

// seededV1 is AlgSeeded2003 version 1 (campionato-2003 §formazione tavoli).
//
// The entrants are first put in a drawn order (Fisher–Yates over the entrants sorted by
// player id), then stably sorted by their seeding key, so that players the key cannot
// separate keep the drawn order: "si sorteggerà la partecipazione dei giocatori in parità ad
// un tavolo piuttosto che ad un altro".
//
// Round 1, "secondo il criterio delle teste di serie", key = national historical rank
// (Entrant.Rank, 1 best; unranked players after every ranked one). The first T seeds (T =
// number of tables) are the teste di serie, one per table, table 1 taking seed 1; the next
// seeds fill the second seats in the opposite direction (table T takes seed T+1), and so on,
// alternately ("a serpentina"). With 3 tables: table 1 = seeds 1, 6, 7, 12; table 2 = 2, 5, 8,
// 11; table 3 = 3, 4, 9, 10. A seat row present only at some tables (the fifth seat of tables
// of 5) continues the serpentine over those tables.
//
// Later rounds, "in base al punteggio ottenuto nella partita precedente", key = the score of
// the player's last game played before this round (higher first), then of the game before it
// ("la penultima partita giocata"), then the draw; a player without such a game comes after
// every player with one. The tables take consecutive slices of that order: table 1 the best
// Plan[0] players, table 2 the next, and so on. This is the reading under which the
// tie-break sentence ("in caso di parità fra due giocatori che non possano giocare entrambi
// allo stesso tavolo") makes sense: a tie matters only where a table boundary separates tied
// players.
//
// The rulebook does not ask to avoid same-club or same-region tables and the seeding leaves
// no freedom to, so this algorithm reports no Unmet.
func seededV1(r *request) ([]Table, error) {
	sizes, err := r.plan()
	if err != nil {
		return nil, err
	}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	order := identity(len(r.entrants))
	shuffle(g, order)
	if r.Round == 1 {
		slices.SortStableFunc(order, func(a, b int) int {
			return compareRank(r.entrants[a].Rank, r.entrants[b].Rank)
		})
		return r.tables(serpentine(sizes, order)), nil
	}
	last, penult := r.lastTwoScores()
	slices.SortStableFunc(order, func(a, b int) int {
		if c := compareScore(last[a], last[b]); c != 0 {
			return c
		}
		return compareScore(penult[a], penult[b])
	})
	return r.tables(slicesOf(sizes, order)), nil
}

// compareRank orders ranks 1, 2, 3, … then unranked (0).
func compareRank(a, b int) int {
	if (a == 0) != (b == 0) {
		if a == 0 {
			return 1
		}
		return -1
	}
	return cmp.Compare(a, b)
}

// score is a game score, or none.
type score struct {
	ok    bool
	value int64
}

// compareScore orders higher scores first, no score last.
func compareScore(a, b score) int {
	if a.ok != b.ok {
		if a.ok {
			return -1
		}
		return 1
	}
	return cmp.Compare(b.value, a.value)
}

// lastTwoScores returns, per entrant, the scores of its last and second-to-last games before
// this round.
func (r *request) lastTwoScores() (last, penult []score) {
	n := len(r.entrants)
	last, penult = make([]score, n), make([]score, n)
	lastRound, penultRound := make([]int, n), make([]int, n)
	for k := range r.Past {
		i, p := r.pastIdx[k], &r.Past[k]
		if i < 0 {
			continue
		}
		switch {
		case p.Round > lastRound[i]:
			penult[i], penultRound[i] = last[i], lastRound[i]
			last[i], lastRound[i] = score{true, p.Score}, p.Round
		case p.Round > penultRound[i]:
			penult[i], penultRound[i] = score{true, p.Score}, p.Round
		}
	}
	return last, penult
}

// serpentine seats order row by row, alternating the direction of each row.
func serpentine(sizes []int, order []int) [][]int {
	seats := make([][]int, len(sizes))
	for t, size := range sizes {
		seats[t] = make([]int, 0, size)
	}
	next := 0
	for row := 0; next < len(order); row++ {
		var ts []int
		for t, size := range sizes {
			if row < size {
				ts = append(ts, t)
			}
		}
		if row%2 == 1 {
			slices.Reverse(ts)
		}
		for _, t := range ts {
			seats[t] = append(seats[t], order[next])
			next++
		}
	}
	return seats
}

// slicesOf seats order in consecutive slices, one per table.
func slicesOf(sizes []int, order []int) [][]int {
	seats := make([][]int, len(sizes))
	next := 0
	for t, size := range sizes {
		seats[t] = order[next : next+size : next+size]
		next += size
	}
	return seats
}
