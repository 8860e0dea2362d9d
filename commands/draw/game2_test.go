package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// game2Instance builds a round-2 request from a hidden valid answer: tables of 4 whose
// players have places 1st…4th in round 1 and four different clubs, so that the place mix and
// club avoidance can both be met. In round 1, the player of place s from hidden table h sat at
// table (h+s) mod tables, so every round-1 table had a 1st, 2nd, 3rd and 4th.
func game2Instance(r *rand.Rand, tables, clubs int) ([]Entrant, []Past) {
	var es []Entrant
	var past []Past
	for h := range tables {
		cs := r.Perm(clubs)[:4]
		for seat := range 4 {
			p := fmt.Sprintf("p%03d", 4*h+seat+1)
			es = append(es, Entrant{Player: p, Club: fmt.Sprintf("club-%d", cs[seat]), Region: fmt.Sprintf("region-%d", r.IntN(3))})
			past = append(past, Past{Player: p, Round: 1, Table: (h+seat)%tables + 1, Place: seat + 1, Score: int64(r.IntN(15000))})
		}
	}
	return shuffled(es, r.Uint64()), past
}

func placesAt(past []Past, tb Table) []int {
	place := map[string]int{}
	for _, p := range past {
		place[p.Player] = p.Place
	}
	out := make([]int, len(tb.Players))
	for i, p := range tb.Players {
		out[i] = place[p]
	}
	return out
}

func TestRURGame2PlaceMix(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := range 140 {
		tables := 2 + k%35
		es, past := game2Instance(r, tables, 4+r.IntN(tables+4))
		req := Request{Algorithm: AlgRURGame2, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past}
		res := mustDraw(t, req)
		for _, tb := range res.Tables {
			if got := placesAt(past, tb); !slices.Equal(got, []int{1, 2, 3, 4}) {
				t.Fatalf("instance %d: table %d has places %v, want 1st 2nd 3rd 4th in order", k, tb.Table, got)
			}
		}
		if got := pairs(es, res.Tables, club); got != 0 {
			t.Fatalf("instance %d (%d tables): %d same-club pairs, avoidable", k, tables, got)
		}
		if n := countUnmet(res.Unmet, ConstraintPlaceMix) + countUnmet(res.Unmet, ConstraintSameClub); n != 0 {
			t.Fatalf("instance %d: unmet %v", k, res.Unmet)
		}
	}
}

// TestRURGame2Withdrawals: 40 played game 1, the four 4ths of tables 1–4 withdrew. 9 tables,
// 10 firsts, 10 seconds, 10 thirds, 6 fourths: every table gets a 1st, 2nd and 3rd, and three
// tables get the spare 1st, 2nd and 3rd instead of a 4th.
func TestRURGame2Withdrawals(t *testing.T) {
	all := players(40, func(i int) string { return fmt.Sprintf("club-%d", i%13) }, nil)
	past := game1(all)
	var es []Entrant
	for i, e := range all {
		if i%4 == 3 && i < 16 {
			continue
		}
		es = append(es, e)
	}
	for k := range 50 {
		res := mustDraw(t, Request{Algorithm: AlgRURGame2, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past})
		for _, tb := range res.Tables {
			got := placesAt(past, tb)
			for _, pl := range []int{1, 2, 3} {
				if !slices.Contains(got, pl) {
					t.Fatalf("seed %d: table %d has places %v, no %d", k, tb.Table, got, pl)
				}
			}
		}
		if got := countUnmet(res.Unmet, ConstraintPlaceMix); got != 3 {
			t.Fatalf("seed %d: %d place_mix unmet, want 3: %v", k, got, res.Unmet)
		}
		for _, u := range res.Unmet {
			if u.Constraint == ConstraintPlaceMix && (len(u.Players) != 2 || !strings.Contains(u.Detail, "places in round 1")) {
				t.Fatalf("seed %d: %+v, want the two players sharing a place", k, u)
			}
		}
	}
}

// TestRURGame2Newcomers: 4 players did not play game 1. With 9 1sts for 10 tables, one table
// has no 1st; the newcomers are listed wherever they sit.
func TestRURGame2Newcomers(t *testing.T) {
	es := players(40, nil, nil)
	past := game1(es[:36])
	for k := range 30 {
		res := mustDraw(t, Request{Algorithm: AlgRURGame2, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past})
		noFirst := 0
		for _, tb := range res.Tables {
			if !slices.Contains(placesAt(past, tb), 1) {
				noFirst++
			}
		}
		if noFirst != 1 {
			t.Fatalf("seed %d: %d tables without a 1st, want 1", k, noFirst)
		}
		listed := map[string]bool{}
		for _, u := range res.Unmet {
			for _, p := range u.Players {
				listed[p] = true
			}
		}
		for _, e := range es[36:] {
			if !listed[e.Player] {
				t.Fatalf("seed %d: newcomer %s not listed in %v", k, e.Player, res.Unmet)
			}
		}
	}
}

// TestRURGame2ClubWithinMix: clubs are avoided without breaking the place mix.
func TestRURGame2ClubWithinMix(t *testing.T) {
	// Game 1: p001–p004 at table 1 … . The four 1sts are all of club A: they must be spread,
	// and each must avoid the other A players, who were 2nd at tables 1 and 2.
	es := players(16, func(i int) string {
		if i%4 == 0 || i == 1 || i == 5 {
			return "A"
		}
		return fmt.Sprintf("club-%d", i)
	}, nil)
	for k := range 30 {
		res := mustDraw(t, Request{Algorithm: AlgRURGame2, Round: 2, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: game1(es)})
		if got := pairs(es, res.Tables, club); got != 2 {
			t.Fatalf("seed %d: %d same-club pairs, want 2 (six A players, four tables)", k, got)
		}
		if got := countUnmet(res.Unmet, ConstraintPlaceMix); got != 0 {
			t.Fatalf("seed %d: place mix broken for clubs: %v", k, res.Unmet)
		}
	}
}
