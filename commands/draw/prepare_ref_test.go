//go:build drawref

package draw

import (
	"fmt"
	"slices"
	"strings"
)

// This file is a frozen copy of prepare (draw.go), metBefore and previousPlaces (random.go)
// and lastTwoScores (seeded.go) as they were before they were rewritten around index arrays.
// prepare_ref_equiv_test.go checks that the current functions return exactly what these return,
// errors included, on random and malformed requests. Do not edit it: a recorded draw is
// re-run by verify and must give byte-identical tables and the same errors.

func refPrepare(req Request) (*request, error) {
	if req.Round < 1 {
		return nil, fmt.Errorf("%w: round %d, rounds start at 1", ErrInput, req.Round)
	}
	if len(req.Entrants) == 0 {
		return nil, fmt.Errorf("%w: no entrants to seat in round %d", ErrInput, req.Round)
	}
	r := &request{Request: req, entrants: slices.Clone(req.Entrants), index: make(map[string]int, len(req.Entrants))}
	slices.SortFunc(r.entrants, func(a, b Entrant) int { return strings.Compare(a.Player, b.Player) })
	for i, e := range r.entrants {
		if e.Player == "" {
			return nil, fmt.Errorf("%w: an entrant has no player id", ErrInput)
		}
		if i > 0 && r.entrants[i-1].Player == e.Player {
			return nil, fmt.Errorf("%w: player %s entered twice", ErrInput, e.Player)
		}
		if e.Rank < 0 {
			return nil, fmt.Errorf("%w: player %s has rank %d (0 = unranked, ranks start at 1)", ErrInput, e.Player, e.Rank)
		}
		r.index[e.Player] = i
	}
	type key struct {
		player string
		round  int
	}
	seen := make(map[key]bool, len(req.Past))
	for _, p := range req.Past {
		if p.Player == "" {
			return nil, fmt.Errorf("%w: a past game of round %d has no player id", ErrInput, p.Round)
		}
		if p.Round < 1 || p.Round >= req.Round {
			return nil, fmt.Errorf("%w: past game of player %s in round %d is not before round %d", ErrInput, p.Player, p.Round, req.Round)
		}
		if p.Place < 0 {
			return nil, fmt.Errorf("%w: past game of player %s in round %d has place %d", ErrInput, p.Player, p.Round, p.Place)
		}
		k := key{p.Player, p.Round}
		if seen[k] {
			return nil, fmt.Errorf("%w: player %s has two games in round %d", ErrInput, p.Player, p.Round)
		}
		seen[k] = true
	}
	r.manualAs = AlgRandom
	if req.Algorithm == AlgManual || req.ManualAs != "" {
		if req.ManualAs != "" {
			r.manualAs = req.ManualAs
		}
		if _, ok := algorithms[r.manualAs]; !ok || r.manualAs == AlgManual {
			return nil, fmt.Errorf("%w: manual draw checked as %q", ErrUnknownAlgorithm, req.ManualAs)
		}
	}
	// Knockout tables take their size from the bands or groups; every other draw needs the sizes.
	bands := req.Algorithm == AlgBands || req.Algorithm == AlgGroups || (req.Algorithm == AlgManual && (r.manualAs == AlgBands || r.manualAs == AlgGroups))
	if len(req.Sizes) > 0 || !bands {
		if err := validSizes(req.Sizes, req.SmallTableMax); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func refPreviousPlaces(r *request) []int {
	place := make([]int, len(r.entrants))
	for _, p := range r.Past {
		if i, ok := r.index[p.Player]; ok && p.Round == r.Round-1 {
			place[i] = p.Place
		}
	}
	return place
}

func refMetBefore(r *request) ([][]int, error) {
	type game struct{ round, table int }
	at := map[game][]int{}
	var order []game
	for _, p := range r.Past {
		i, ok := r.index[p.Player]
		if !ok || p.Table < 1 {
			continue
		}
		g := game{p.Round, p.Table}
		if _, ok := at[g]; !ok {
			order = append(order, g)
		}
		at[g] = append(at[g], i)
		if len(at[g]) > maxTableSize {
			return nil, fmt.Errorf("%w: past games put more than %d players at table %d of round %d", ErrInput, maxTableSize, g.table, g.round)
		}
	}
	var met [][]int
	for _, g := range order {
		ps := at[g]
		for _, a := range ps {
			for _, b := range ps {
				if a == b {
					continue
				}
				if met == nil {
					met = make([][]int, len(r.entrants))
				}
				met[a] = append(met[a], b)
			}
		}
	}
	return met, nil
}

func refLastTwoScores(r *request) (last, penult []score) {
	n := len(r.entrants)
	last, penult = make([]score, n), make([]score, n)
	lastRound, penultRound := make([]int, n), make([]int, n)
	for _, p := range r.Past {
		i, ok := r.index[p.Player]
		if !ok {
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
