package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// clubInstance builds n players whose clubs all have at most limit members (so same-club
// tables are avoidable when limit ≤ tables), in a test-chosen random layout.
func clubInstance(r *rand.Rand, n, limit int) []Entrant {
	es := players(n, nil, nil)
	club := 0
	for i := 0; i < n; {
		size := 1 + r.IntN(limit)
		for j := 0; j < size && i < n; j++ {
			if size > 1 {
				es[i].Club = fmt.Sprintf("club-%d", club)
			}
			es[i].Region = fmt.Sprintf("region-%d", r.IntN(6))
			i++
		}
		club++
	}
	return shuffled(es, r.Uint64())
}

func TestRURGame1AvoidsClubsWhenPossible(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := range 300 {
		tables := 2 + k%30
		n := 4 * tables
		es := clubInstance(r, n, tables)
		req := Request{Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprintf("seed-%d", k)}
		res := mustDraw(t, req)
		if got := pairs(es, res.Tables, club); got != 0 {
			t.Fatalf("instance %d (%d tables): %d same-club pairs, avoidable", k, tables, got)
		}
		if got := countUnmet(res.Unmet, ConstraintSameClub); got != 0 {
			t.Fatalf("instance %d: %d same_club unmet", k, got)
		}
	}
}

// TestRURGame1TightClubs: every club exactly as large as the number of tables, so each table
// must hold exactly one player of each club.
func TestRURGame1TightClubs(t *testing.T) {
	for _, tables := range []int{3, 10, 35} {
		es := players(4*tables, func(i int) string { return fmt.Sprintf("club-%d", i%4) }, nil)
		for k := range 40 {
			req := Request{Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k)}
			res := mustDraw(t, req)
			if got := pairs(es, res.Tables, club); got != 0 {
				t.Fatalf("%d tables, seed %d: %d same-club pairs", tables, k, got)
			}
		}
	}
}

func TestRandomMixedSizesAvoidsClubs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := range 200 {
		n := 12 + r.IntN(120)
		sizes, err := Plan(n, []int{4, 5}, 0)
		if err != nil {
			t.Fatal(err)
		}
		es := clubInstance(r, n, len(sizes))
		res := mustDraw(t, Request{Algorithm: AlgRandom, Round: 1, Entrants: es, Sizes: []int{4, 5}, Seed: fmt.Sprint(k)})
		if got := pairs(es, res.Tables, club); got != 0 {
			t.Fatalf("instance %d (%d players): %d same-club pairs, avoidable", k, n, got)
		}
		if !slices.Equal(sizesOf(res.Tables), sizes) {
			t.Fatalf("sizes %v, want %v", sizesOf(res.Tables), sizes)
		}
	}
}

// TestRURGame1AvoidsRegions: regions no larger than the number of tables, clubs inside
// regions: both constraints can be met at once.
func TestRURGame1AvoidsRegions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := range 100 {
		tables := 3 + k%20
		es := clubInstance(r, 4*tables, tables)
		// Regions of up to `tables` players, each a union of whole clubs.
		slices.SortFunc(es, func(a, b Entrant) int { return strings.Compare(a.Club, b.Club) })
		reg, filled := 0, 0
		for i := 0; i < len(es); {
			j := i + 1
			for j < len(es) && es[i].Club != "" && es[j].Club == es[i].Club {
				j++
			}
			if filled+(j-i) > tables {
				reg, filled = reg+1, 0
			}
			for ; i < j; i++ {
				es[i].Region = fmt.Sprintf("region-%d", reg)
				filled++
			}
		}
		res := mustDraw(t, Request{Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k)})
		if got := pairs(es, res.Tables, region); got != 0 {
			t.Fatalf("instance %d (%d tables): %d same-region pairs, avoidable; unmet %v", k, tables, got, res.Unmet)
		}
		if len(res.Unmet) != 0 {
			t.Fatalf("instance %d: unmet %v", k, res.Unmet)
		}
	}
}

func TestRURGame1UnavoidableClub(t *testing.T) {
	// 5 tables, club "big" has 6 players: one table must hold two of them, and only one.
	es := players(20, func(i int) string {
		if i < 6 {
			return "big"
		}
		return fmt.Sprintf("club-%d", i)
	}, nil)
	for k := range 50 {
		res := mustDraw(t, Request{Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k)})
		if len(res.Unmet) != 1 {
			t.Fatalf("seed %d: unmet %v, want one same_club", k, res.Unmet)
		}
		u := res.Unmet[0]
		at := tableOf(res.Tables)
		if u.Constraint != ConstraintSameClub || len(u.Players) != 2 || at[u.Players[0]] != u.Table || at[u.Players[1]] != u.Table {
			t.Fatalf("seed %d: unmet %+v", k, u)
		}
		if want := fmt.Sprintf(`2 players of club "big" at table %d (rur-2015 art. 8)`, u.Table); u.Detail != want {
			t.Fatalf("detail %q, want %q", u.Detail, want)
		}
	}
	// 11 players of one club at 5 tables: 3+2+2+2+2 is the best, 3+1+1+1+1 = 7 pairs, every table listed.
	es = players(20, func(i int) string {
		if i < 11 {
			return "big"
		}
		return ""
	}, nil)
	res := mustDraw(t, Request{Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}, Seed: "s"})
	if got := pairs(es, res.Tables, club); got != 7 {
		t.Errorf("11 of one club at 5 tables: %d pairs, want 7", got)
	}
	if got := countUnmet(res.Unmet, ConstraintSameClub); got != 5 {
		t.Errorf("%d same_club unmet, want 5: %v", got, res.Unmet)
	}
}

// TestClubBeforeRegion: two players of club A can avoid each other only by each sitting with
// another player of their region; the club wins.
func TestClubBeforeRegion(t *testing.T) {
	es := []Entrant{
		{Player: "a1", Club: "A", Region: "X"}, {Player: "a2", Club: "A", Region: "X"},
		{Player: "b1", Club: "B", Region: "X"}, {Player: "c1", Club: "C", Region: "X"},
		{Player: "d1", Club: "D", Region: "Y"}, {Player: "e1", Club: "E", Region: "Y"},
		{Player: "f1", Club: "F", Region: "Y"}, {Player: "g1", Club: "G", Region: "Y"},
	}
	for k := range 30 {
		res := mustDraw(t, Request{Algorithm: AlgRandom, Round: 1, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k)})
		if got := countUnmet(res.Unmet, ConstraintSameClub); got != 0 {
			t.Fatalf("seed %d: same club at a table: %v", k, res.Tables)
		}
		if got := countUnmet(res.Unmet, ConstraintSameRegion); got != 4 {
			t.Fatalf("seed %d: %d same_region unmet, want 4 (2 per region): %v", k, got, res.Unmet)
		}
		for _, u := range res.Unmet {
			if strings.Contains(u.Detail, "rur-2015") {
				t.Fatalf("random cites rur-2015: %q", u.Detail)
			}
		}
	}
}

// TestSameRegionSkipsOneClub: a region group made of one club only is reported once, as
// same_club.
func TestSameRegionSkipsOneClub(t *testing.T) {
	es := []Entrant{
		{Player: "a1", Club: "A", Region: "X"}, {Player: "a2", Club: "A", Region: "X"},
		{Player: "a3", Club: "A", Region: "X"}, {Player: "a4", Club: "A", Region: "X"},
		{Player: "a5", Club: "A", Region: "X"},
	}
	us, err := CheckManual(Request{Algorithm: AlgRandom, Round: 1, Entrants: es, Sizes: []int{5}},
		[]Table{{Table: 1, Players: []string{"a1", "a2", "a3", "a4", "a5"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 1 || us[0].Constraint != ConstraintSameClub || len(us[0].Players) != 5 {
		t.Fatalf("unmet %v, want one same_club of 5", us)
	}
}

// TestAvoidsRematches: in round 2, nobody meets a round-1 opponent again when it can be
// avoided (16 tables: plenty of room).
func TestAvoidsRematches(t *testing.T) {
	es := players(64, func(i int) string { return fmt.Sprintf("club-%d", i%16) }, nil)
	past := game1(es)
	for _, alg := range []string{AlgRandom, AlgRURGame1, AlgRURGame2} {
		for k := range 30 {
			res := mustDraw(t, Request{Algorithm: alg, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past})
			if len(res.Unmet) != 0 {
				t.Fatalf("%s seed %d: unmet %v", alg, k, res.Unmet)
			}
		}
	}
}

// TestRematchLastPriority: with 2 tables of 4 and a round-1 history that makes rematches
// unavoidable, clubs are still kept apart.
func TestRematchLastPriority(t *testing.T) {
	es := players(8, func(i int) string { return []string{"A", "A", "B", "B", "C", "C", "D", "D"}[i] }, nil)
	past := game1(es) // p001–p004 at table 1, p005–p008 at table 2
	for k := range 20 {
		res := mustDraw(t, Request{Algorithm: AlgRandom, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past})
		if got := countUnmet(res.Unmet, ConstraintSameClub); got != 0 {
			t.Fatalf("seed %d: %v", k, res.Unmet)
		}
		// Each table holds two players from each round-1 table at best: 2 rematches a
		// table. Rematches are a preference of the search, not a rule, so they are
		// counted here rather than reported as unmet.
		r, err := prepare(Request{Algorithm: AlgRandom, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, tb := range res.Tables {
			got += len(rematches(tb, r.meetings()))
		}
		if got != 4 {
			t.Fatalf("seed %d: %d rematches, want 4", k, got)
		}
		if n := countUnmet(res.Unmet, ConstraintRematch); n != 0 {
			t.Fatalf("seed %d: rematches reported as unmet constraints: %v", k, res.Unmet)
		}
	}
}

// rematches reports each pair at the table who already sat together in an earlier round.
func rematches(t Table, met map[[2]string][]string) []Unmet {
	var out []Unmet
	for i, p := range t.Players {
		for _, q := range t.Players[i+1:] {
			if where := met[[2]string{p, q}]; len(where) > 0 {
				out = append(out, Unmet{Constraint: ConstraintRematch, Table: t.Table, Players: []string{p, q},
					Detail: fmt.Sprintf("%s and %s already met at %s", p, q, strings.Join(where, ", "))})
			}
		}
	}
	return out
}
