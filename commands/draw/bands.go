package draw

import (
	"fmt"
	"slices"
)

// bandsV1 is AlgBands version 1, and version 2 citing the request's rule (Request.Rule) in
// its unmet constraints (rur-2015 art. 8: quarterfinal tables take one player of each
// band 11–16, 17–22, 23–28, 29–34, semifinal tables one of each band 1–4, 5–8, 9–12, 13–16,
// "tramite un sorteggio per fasce, si cercherà di evitare giocatori dello stesso Club, dando
// priorità a questo aspetto").
//
// There are as many tables as players in a band, and each table has one seat per band. Each
// band, its players sorted by id (the seed order inside a band does not matter to a random
// draw), is shuffled and dealt to tables 1…T; bands are drawn in the order given. The search
// then swaps players of the same band between tables to avoid same-club pairs: that is the
// priority over the random draw. Regions are not considered (the article names clubs only).
// Players are listed at each table in band order.
func bandsV1(r *request) ([]Table, error) {
	bands, bandOf, err := r.bands()
	if err != nil {
		return nil, err
	}
	for _, e := range r.entrants {
		if _, ok := bandOf[e.Player]; !ok {
			return nil, fmt.Errorf("%w: player %s is an entrant but in no band%s", ErrInput, e.Player, r.citeRefusal(AlgBands))
		}
	}
	width := len(bands[0])
	short := len(bands[len(bands)-1]) < width
	if len(r.Sizes) > 0 && !short && !sizeAllowed(len(bands), len(r.entrants), r.Sizes, r.SmallTableMax) {
		return nil, fmt.Errorf("%w: %d bands make tables of %d, and the allowed sizes are %s", ErrSizes, len(bands), len(bands), joinSizes(allowedSizes(len(r.entrants), r.Sizes, r.SmallTableMax)))
	}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	seats := make([][]int, width)
	class := make([]int, len(r.entrants))
	for t := range seats {
		seats[t] = make([]int, 0, len(bands))
	}
	for b, band := range bands {
		perm := slices.Clone(band)
		shuffle(g, perm)
		for t, p := range perm {
			seats[t] = append(seats[t], p)
			class[p] = b
		}
	}
	s := newSearcher(g, seats, len(r.entrants))
	s.useClub, s.club, s.class = true, r.clubIDs(), class
	s.improve()
	return r.tables(seats), nil
}

// bands validates Request.Bands against the entrants and returns them as entrant indices,
// each band sorted by player id, with the band of every player.
func (r *request) bands() ([][]int, map[string]int, error) {
	if len(r.Bands) == 0 {
		return nil, nil, fmt.Errorf("%w: no bands%s", ErrInput, r.citeRefusal(AlgBands))
	}
	bandOf := map[string]int{}
	out := make([][]int, len(r.Bands))
	for b, band := range r.Bands {
		if len(band) == 0 {
			return nil, nil, fmt.Errorf("%w: band %d is empty", ErrInput, b+1)
		}
		// The first band sets the number of tables; a later band may be
		// shorter (rtu with fewer than 32 entrants seeds ranks 2-12 at three
		// tables: the last band of two leaves one table at three players).
		if len(band) > len(r.Bands[0]) {
			return nil, nil, fmt.Errorf("%w: band %d has %d players and band 1 has %d: each table takes at most one of each band%s", ErrInput, b+1, len(band), len(r.Bands[0]), r.citeRefusal(AlgBands))
		}
		for _, p := range band {
			if prev, ok := bandOf[p]; ok {
				return nil, nil, fmt.Errorf("%w: player %s is in band %d and band %d", ErrInput, p, prev+1, b+1)
			}
			i, ok := r.index[p]
			if !ok {
				return nil, nil, fmt.Errorf("%w: player %s of band %d is not an entrant", ErrInput, p, b+1)
			}
			bandOf[p] = b
			out[b] = append(out[b], i)
		}
		slices.Sort(out[b]) // entrants are sorted by player id, so this sorts the band by id
	}
	return out, bandOf, nil
}
