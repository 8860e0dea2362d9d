package draw

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// manualV1 is AlgManual version 1: Request.Tables, validated by CheckManual and returned in
// table-number order with the players in the order given; version 2 is the same, citing
// the request's rule (Request.Rule) in its unmet constraints.
func manualV1(r *request) ([]Table, error) {
	if err := r.checkKind(r.manualAs); err != nil {
		return nil, err
	}
	if err := r.validateTables(r.Tables, r.manualAs); err != nil {
		return nil, err
	}
	out := make([]Table, len(r.Tables))
	for i, t := range r.Tables {
		out[i] = Table{Table: t.Table, Players: slices.Clone(t.Players)}
	}
	slices.SortFunc(out, func(a, b Table) int { return cmp.Compare(a.Table, b.Table) })
	return out, nil
}

// CheckManual validates an arbiter's hand-made tables and returns every soft constraint they
// break.
//
// Hard checks (ErrInput, naming the table or player): at least one table; table numbers
// positive and distinct; every entrant seated exactly once and nobody else; every table of an
// allowed size (Plan's sizes for len(Entrants), tables of 3 included when SmallTableMax allows
// them; for knockout tables without Sizes, the number of bands).
//
// The soft constraints are those of req.Algorithm, or of req.ManualAs when req.Algorithm is
// AlgManual or empty (ManualAs empty: AlgRandom's): same_club, same_region and rematch for
// AlgRandom and AlgRURGame1; those and place_mix for AlgRURGame2; band_mix and band_club for
// AlgBands; none for AlgSeeded2003. They come in table order, and within a table as
// same_club, same_region, place_mix, rematch (bands: band_mix, band_club). They cite
// req.Rule, when given, in place of the algorithm's own article.
func CheckManual(req Request, tables []Table) ([]Unmet, error) {
	kind := req.Algorithm
	if kind == "" || kind == AlgManual {
		kind = cmp.Or(req.ManualAs, AlgRandom)
		req.Algorithm = AlgManual
	}
	if _, ok := algorithms[kind]; !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownAlgorithm, kind)
	}
	r, err := prepare(req)
	if err != nil {
		return nil, err
	}
	if req.Algorithm == AlgManual {
		kind = r.manualAs
	}
	r.ruled = req.Rule != ""
	if err := r.checkKind(kind); err != nil {
		return nil, err
	}
	if err := r.validateTables(tables, kind); err != nil {
		return nil, err
	}
	return unmet(r, kind, tables), nil
}

// checkKind validates what the soft constraints of algorithm kind need.
func (r *request) checkKind(kind string) error {
	switch kind {
	case AlgRandom, AlgRURGame1:
		_, err := r.metBefore()
		return err
	case AlgBands:
		_, _, err := r.bands()
		return err
	case AlgRURGame2:
		if r.Round < 2 {
			return fmt.Errorf("%w: %s composes round %d from the places of round %d, and round 1 has none%s", ErrInput, kind, r.Round, r.Round-1, r.citeRefusal(kind))
		}
		_, err := r.metBefore()
		return err
	}
	return nil
}

// validateTables runs the hard checks of CheckManual for tables standing in for algorithm
// kind (whose size rule is cited).
func (r *request) validateTables(tables []Table, kind string) error {
	if len(tables) == 0 {
		return fmt.Errorf("%w: no tables", ErrInput)
	}
	n := len(r.entrants)
	seatedAt := make(map[string]int, n)
	numbers := make(map[int]bool, len(tables))
	for _, t := range tables {
		if t.Table < 1 {
			return fmt.Errorf("%w: table number %d, tables are numbered from 1", ErrInput, t.Table)
		}
		if numbers[t.Table] {
			return fmt.Errorf("%w: table %d listed twice", ErrInput, t.Table)
		}
		numbers[t.Table] = true
		for _, p := range t.Players {
			if p == "" {
				return fmt.Errorf("%w: table %d has a seat without a player id", ErrInput, t.Table)
			}
			if _, ok := r.index[p]; !ok {
				return fmt.Errorf("%w: player %s at table %d is not an entrant of round %d", ErrInput, p, t.Table, r.Round)
			}
			if prev, ok := seatedAt[p]; ok {
				if prev == t.Table {
					return fmt.Errorf("%w: player %s seated twice at table %d", ErrInput, p, t.Table)
				}
				return fmt.Errorf("%w: player %s seated at table %d and table %d", ErrInput, p, prev, t.Table)
			}
			seatedAt[p] = t.Table
		}
		size := len(t.Players)
		if len(r.Sizes) > 0 {
			if !sizeAllowed(size, n, r.Sizes, r.SmallTableMax) {
				return fmt.Errorf("%w: table %d has %d players, allowed sizes with %d players are %s%s", ErrInput, t.Table, size, n, joinSizes(allowedSizes(n, r.Sizes, r.SmallTableMax)), citeSizes(kind))
			}
		} else if size != len(r.Bands) {
			return fmt.Errorf("%w: table %d has %d players, knockout tables take one of each of %d bands%s", ErrInput, t.Table, size, len(r.Bands), r.citeRefusal(kind))
		}
	}
	for _, e := range r.entrants {
		if _, ok := seatedAt[e.Player]; !ok {
			return fmt.Errorf("%w: player %s is not seated", ErrInput, e.Player)
		}
	}
	return nil
}

// unmet lists the soft constraints of algorithm kind that the tables break, by table, then
// constraint, then first seat involved.
func unmet(r *request, kind string, tables []Table) []Unmet {
	var out []Unmet
	var place map[string]int
	var bandOf map[string]int
	if kind == AlgRURGame2 {
		place = map[string]int{}
		for i, pl := range r.previousPlaces() {
			place[r.entrants[i].Player] = pl
		}
	}
	short := map[int]bool{}
	if kind == AlgBands {
		var bands [][]int
		bands, bandOf, _ = r.bands()
		for b, band := range bands {
			short[b] = len(band) < len(bands[0])
		}
	}
	rule := r.cite(kind)
	for _, t := range tables {
		switch kind {
		case AlgRandom, AlgRURGame1, AlgRURGame2:
			out = append(out, r.sameClub(t, ConstraintSameClub, rule)...)
			out = append(out, r.sameRegion(t, rule)...)
			if kind == AlgRURGame2 {
				out = append(out, placeMix(t, place, r.Round-1, rule)...)
			}
		case AlgBands:
			out = append(out, bandMix(t, bandOf, len(r.Bands), short, rule)...)
			out = append(out, r.sameClub(t, ConstraintBandClub, rule)...)
		}
	}
	return out
}

func (r *request) entrant(p string) Entrant { return r.entrants[r.index[p]] }

// groups returns, in order of first seat, the groups of two or more players at the table with
// the same non-empty key.
func groups(players []string, key func(string) string) [][]string {
	byKey := map[string][]string{}
	var order []string
	for _, p := range players {
		k := key(p)
		if k == "" {
			continue
		}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], p)
	}
	var out [][]string
	for _, k := range order {
		if len(byKey[k]) > 1 {
			out = append(out, byKey[k])
		}
	}
	return out
}

func (r *request) sameClub(t Table, constraint, rule string) []Unmet {
	var out []Unmet
	for _, g := range groups(t.Players, func(p string) string { return r.entrant(p).Club }) {
		club := r.entrant(g[0]).Club
		out = append(out, Unmet{Constraint: constraint, Table: t.Table, Players: g,
			Detail: fmt.Sprintf("%d players of club %q at table %d%s", len(g), club, t.Table, rule)})
	}
	return out
}

// sameRegion reports players of one region at a table unless they are all of one club
// (already reported as same_club).
func (r *request) sameRegion(t Table, rule string) []Unmet {
	var out []Unmet
	for _, g := range groups(t.Players, func(p string) string { return r.entrant(p).Region }) {
		club := r.entrant(g[0]).Club
		oneClub := club != ""
		for _, p := range g[1:] {
			if r.entrant(p).Club != club {
				oneClub = false
			}
		}
		if oneClub {
			continue
		}
		region := r.entrant(g[0]).Region
		out = append(out, Unmet{Constraint: ConstraintSameRegion, Table: t.Table, Players: g,
			Detail: fmt.Sprintf("%d players of region %q at table %d%s", len(g), region, t.Table, rule)})
	}
	return out
}

// meetings maps each pair of entrants who sat together in an earlier round to where: "round
// 1 table 3".
func (r *request) meetings() map[[2]string][]string {
	type game struct{ round, table int }
	at := map[game][]string{}
	var order []game
	for _, p := range r.Past {
		if _, ok := r.index[p.Player]; !ok || p.Table < 1 {
			continue
		}
		g := game{p.Round, p.Table}
		if _, ok := at[g]; !ok {
			order = append(order, g)
		}
		at[g] = append(at[g], p.Player)
	}
	slices.SortFunc(order, func(a, b game) int { return cmp.Or(cmp.Compare(a.round, b.round), cmp.Compare(a.table, b.table)) })
	met := map[[2]string][]string{}
	for _, g := range order {
		for _, a := range at[g] {
			for _, b := range at[g] {
				if a != b {
					met[[2]string{a, b}] = append(met[[2]string{a, b}], fmt.Sprintf("round %d table %d", g.round, g.table))
				}
			}
		}
	}
	return met
}

// placeMix reports a table that is not one 1st, one 2nd, … of the previous round, listing
// the players whose place is shared with another player at the table or missing.
func placeMix(t Table, place map[string]int, prev int, rule string) []Unmet {
	size := len(t.Players)
	count := map[int]int{}
	for _, p := range t.Players {
		count[place[p]]++
	}
	var bad []string
	for _, p := range t.Players {
		pl := place[p]
		if pl < 1 || pl > size || count[pl] > 1 {
			bad = append(bad, p)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	names := make([]string, size)
	for i, p := range t.Players {
		names[i] = ordinal(place[p])
	}
	want := make([]string, size)
	for i := range want {
		want[i] = ordinal(i + 1)
	}
	return []Unmet{{Constraint: ConstraintPlaceMix, Table: t.Table, Players: bad,
		Detail: fmt.Sprintf("places in round %d at table %d: %s; wanted one each of %s%s", prev, t.Table, strings.Join(names, ", "), strings.Join(want, ", "), rule)}}
}

// bandMix reports a table that is not one player of each band.
func bandMix(t Table, bandOf map[string]int, nBands int, short map[int]bool, rule string) []Unmet {
	count := map[int]int{}
	for _, p := range t.Players {
		if b, ok := bandOf[p]; ok {
			count[b]++
		}
	}
	var bad []string
	names := make([]string, len(t.Players))
	for i, p := range t.Players {
		b, ok := bandOf[p]
		if !ok {
			names[i] = "none"
			bad = append(bad, p)
			continue
		}
		names[i] = strconv.Itoa(b + 1)
		if count[b] > 1 {
			bad = append(bad, p)
		}
	}
	if len(bad) == 0 {
		missingShortOnly := true
		for b := range nBands {
			if count[b] == 0 && !short[b] {
				missingShortOnly = false
			}
		}
		if missingShortOnly {
			return nil
		}
		bad = slices.Clone(t.Players) // a band is missing: the whole table is at fault
	}
	return []Unmet{{Constraint: ConstraintBandMix, Table: t.Table, Players: bad,
		Detail: fmt.Sprintf("bands at table %d: %s; wanted one player of each of %d bands%s", t.Table, strings.Join(names, ", "), nBands, rule)}}
}

func ordinal(place int) string {
	if place < 1 {
		return "none"
	}
	return strconv.Itoa(place) + ordinalSuffix(place)
}

func ordinalSuffix(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
