package draw

import (
	"fmt"
	"slices"
	"testing"
)

// ranked returns n players whose national rank is given by rank(i) (0 = unranked), with ids in
// the reverse order of i, all of one club.
func ranked(n int, rank func(i int) int) []Entrant {
	es := make([]Entrant, n)
	for i := range es {
		es[i] = Entrant{Player: fmt.Sprintf("x%03d", n-i), Rank: rank(i), Club: "same"}
	}
	return es
}

func rankOf(es []Entrant) map[string]int {
	m := map[string]int{}
	for _, e := range es {
		m[e.Player] = e.Rank
	}
	return m
}

func TestSeededRound1Serpentine(t *testing.T) {
	es := ranked(12, func(i int) int { return i + 1 })
	res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 1, Entrants: es, Sizes: []int{4, 5}, SmallTableMax: 11, Seed: "s"})
	rank := rankOf(es)
	want := [][]int{{1, 6, 7, 12}, {2, 5, 8, 11}, {3, 4, 9, 10}}
	for i, tb := range res.Tables {
		var got []int
		for _, p := range tb.Players {
			got = append(got, rank[p])
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("table %d seeds %v, want %v", tb.Table, got, want[i])
		}
	}
	if len(res.Unmet) != 0 {
		t.Errorf("seeded draw reported %v; the algorithm has no soft constraints", res.Unmet)
	}
}

func TestSeededRound1FifthSeats(t *testing.T) {
	// 13 players: 4 4 5. Rows 1–4 serpentine over 3 tables, the 5th seat only at table 3.
	es := ranked(13, func(i int) int { return i + 1 })
	res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 1, Entrants: es, Sizes: []int{4, 5}, SmallTableMax: 11, Seed: "s"})
	rank := rankOf(es)
	want := [][]int{{1, 6, 7, 12}, {2, 5, 8, 11}, {3, 4, 9, 10, 13}}
	for i, tb := range res.Tables {
		var got []int
		for _, p := range tb.Players {
			got = append(got, rank[p])
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("table %d seeds %v, want %v", tb.Table, got, want[i])
		}
	}
}

// TestSeededRound1Unranked: unranked players take the last seeds, in a drawn order.
func TestSeededRound1Unranked(t *testing.T) {
	es := ranked(12, func(i int) int {
		if i < 8 {
			return 8 - i
		}
		return 0
	})
	rank := rankOf(es)
	seen := map[string]bool{}
	for k := range 40 {
		res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 1, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k)})
		want := [][]int{{1, 6, 7, 0}, {2, 5, 8, 0}, {3, 4, 0, 0}}
		var layout string
		for i, tb := range res.Tables {
			var got []int
			for _, p := range tb.Players {
				got = append(got, rank[p])
			}
			if !slices.Equal(got, want[i]) {
				t.Fatalf("seed %d: table %d ranks %v, want %v", k, tb.Table, got, want[i])
			}
			layout += fmt.Sprint(tb.Players)
		}
		seen[layout] = true
	}
	if len(seen) < 5 {
		t.Fatalf("unranked players placed only %d ways in 40 draws; their order should be drawn", len(seen))
	}
}

// scores builds Past for round r from a score per player index.
func scores(es []Entrant, r int, score func(i int) int64) []Past {
	var past []Past
	for i, e := range es {
		past = append(past, Past{Player: e.Player, Round: r, Table: 1, Place: 1, Score: score(i)})
	}
	return past
}

func TestSeededLaterRoundsSlices(t *testing.T) {
	es := players(12, nil, nil)
	// Round 2 scores: p001 lowest … p012 highest. Round 1 is ignored when there are no ties.
	past := append(scores(es, 1, func(i int) int64 { return int64(100 * i) }),
		scores(es, 2, func(i int) int64 { return int64(20000 - 100*(11-i)) })...)
	res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 3, Entrants: es, Sizes: []int{4}, Seed: "s", Past: past})
	want := []Table{
		{Table: 1, Players: []string{"p012", "p011", "p010", "p009"}},
		{Table: 2, Players: []string{"p008", "p007", "p006", "p005"}},
		{Table: 3, Players: []string{"p004", "p003", "p002", "p001"}},
	}
	if !slices.EqualFunc(res.Tables, want, func(a, b Table) bool { return a.Table == b.Table && slices.Equal(a.Players, b.Players) }) {
		t.Fatalf("tables %v, want %v", res.Tables, want)
	}
}

// TestSeededTieBreaks: p004 and p005 tie in round 2 across the boundary of tables 1 and 2.
// In round 3 the round-1 score decides; with round-1 scores equal too, the draw decides.
func TestSeededTieBreaks(t *testing.T) {
	es := players(8, nil, nil)
	last := func(i int) int64 {
		if i == 3 || i == 4 {
			return 5000
		}
		return int64(9000 - 1000*i)
	}
	t.Run("second-to-last game", func(t *testing.T) {
		past := append(scores(es, 2, last), scores(es, 1, func(i int) int64 {
			if i == 4 {
				return 300 // p005 did better in round 1
			}
			return 100
		})...)
		for k := range 20 {
			res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 3, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: past})
			if at := tableOf(res.Tables); at["p005"] != 1 || at["p004"] != 2 {
				t.Fatalf("seed %d: p005 at %d, p004 at %d; p005 wins the tie on round 1", k, at["p005"], at["p004"])
			}
		}
	})
	for _, tc := range []struct {
		name  string
		round int
		past  []Past
	}{
		{"tie in round 1 too", 3, append(scores(es, 2, last), scores(es, 1, func(int) int64 { return 100 })...)},
		{"round 2 has no second-to-last game", 2, scores(es, 1, last)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := map[string]int{}
			for k := range 40 {
				res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: tc.round, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Past: tc.past})
				at := tableOf(res.Tables)
				if at["p001"] != 1 || at["p008"] != 2 || at["p004"]+at["p005"] != 3 {
					t.Fatalf("seed %d: tables %v", k, res.Tables)
				}
				if at["p004"] == 1 {
					first["p004"]++
				} else {
					first["p005"]++
				}
			}
			if first["p004"] == 0 || first["p005"] == 0 {
				t.Fatalf("the tie was never drawn both ways in 40 draws: %v", first)
			}
		})
	}
}

// TestSeededMissingGames: the last game played counts, whatever its round; a player with no
// game comes last.
func TestSeededMissingGames(t *testing.T) {
	es := players(8, nil, nil)
	past := []Past{
		{Player: "p001", Round: 1, Score: 9000}, // missed round 2: round 1 is its last game
		{Player: "p002", Round: 2, Score: 8000},
		{Player: "p003", Round: 2, Score: 100},
		{Player: "p004", Round: 2, Score: 200},
		{Player: "p005", Round: 2, Score: 300},
		{Player: "p006", Round: 2, Score: 400},
		{Player: "p007", Round: 2, Score: -500}, // a penalty can make a score negative
		// p008 has never played: last.
	}
	res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 3, Entrants: es, Sizes: []int{4}, Seed: "s", Past: past})
	want := []string{"p001", "p002", "p006", "p005", "p004", "p003", "p007", "p008"}
	if got := slices.Concat(res.Tables[0].Players, res.Tables[1].Players); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestSeeded2003Sizes(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{10, []int{5, 5}}, {7, []int{4, 3}}, {6, []int{3, 3}}, {13, []int{4, 4, 5}}} {
		es := ranked(tc.n, func(i int) int { return i + 1 })
		res := mustDraw(t, Request{Algorithm: AlgSeeded2003, Round: 1, Entrants: es, Sizes: []int{4, 5}, SmallTableMax: 11, Seed: "s"})
		if got := sizesOf(res.Tables); !slices.Equal(got, tc.want) {
			t.Errorf("%d players: sizes %v, want %v", tc.n, got, tc.want)
		}
	}
}
