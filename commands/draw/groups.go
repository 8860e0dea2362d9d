package draw

import (
	"fmt"
	"slices"
)

// AlgGroups seats fixed groups: each group of Request.Bands forms its own
// table, in order (table 1 is the first group), and only the seating order
// within a table is drawn. Finals use it: the four semifinal winners at one
// table, or (rtu) the top four at the final and the 5th-8th at the
// "finalina". Turn order is still decided at the table by die roll.
const AlgGroups = "groups"

func groupsV1(r *request) ([]Table, error) {
	if len(r.Bands) == 0 {
		return nil, fmt.Errorf("%w: no groups to seat", ErrInput)
	}
	seen := map[string]bool{}
	g := newRNG(r.Seed, r.Algorithm, r.Round)
	var out []Table
	for i, group := range r.Bands {
		if len(group) < 2 {
			return nil, fmt.Errorf("%w: group %d has %d players; a table seats at least 2", ErrInput, i+1, len(group))
		}
		seats := slices.Clone(group)
		slices.Sort(seats) // the input order of a group does not matter
		for _, p := range seats {
			if _, ok := r.index[p]; !ok {
				return nil, fmt.Errorf("%w: player %s of group %d is not an entrant", ErrInput, p, i+1)
			}
			if seen[p] {
				return nil, fmt.Errorf("%w: player %s is in two groups", ErrInput, p)
			}
			seen[p] = true
		}
		shuffle(g, seats)
		out = append(out, Table{Table: i + 1, Players: seats})
	}
	if len(seen) != len(r.entrants) {
		return nil, fmt.Errorf("%w: %d entrants but the groups seat %d", ErrInput, len(r.entrants), len(seen))
	}
	return out, nil
}
