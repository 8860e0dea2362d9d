package draw

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// players returns n entrants p001…, with club and region from the given functions (nil: none).
func players(n int, club, region func(i int) string) []Entrant {
	es := make([]Entrant, n)
	for i := range es {
		es[i].Player = fmt.Sprintf("p%03d", i+1)
		if club != nil {
			es[i].Club = club(i)
		}
		if region != nil {
			es[i].Region = region(i)
		}
	}
	return es
}

func mustDraw(t *testing.T, req Request) Result {
	t.Helper()
	res, err := Draw(req)
	if err != nil {
		t.Fatalf("Draw(%s, seed %q): %v", req.Algorithm, req.Seed, err)
	}
	checkSeated(t, req.Entrants, res.Tables)
	return res
}

// checkSeated fails unless every entrant sits exactly once and tables are numbered 1….
func checkSeated(t *testing.T, es []Entrant, tables []Table) {
	t.Helper()
	seen := map[string]bool{}
	for i, tb := range tables {
		if tb.Table != i+1 {
			t.Fatalf("table %d numbered %d", i+1, tb.Table)
		}
		for _, p := range tb.Players {
			if seen[p] {
				t.Fatalf("player %s seated twice", p)
			}
			seen[p] = true
		}
	}
	for _, e := range es {
		if !seen[e.Player] {
			t.Fatalf("player %s not seated", e.Player)
		}
	}
	if len(seen) != len(es) {
		t.Fatalf("%d seated, %d entrants", len(seen), len(es))
	}
}

// pairs counts pairs of players at a table sharing a non-empty key.
func pairs(es []Entrant, tables []Table, key func(Entrant) string) int {
	by := map[string]Entrant{}
	for _, e := range es {
		by[e.Player] = e
	}
	n := 0
	for _, tb := range tables {
		for i, p := range tb.Players {
			for _, q := range tb.Players[i+1:] {
				if k := key(by[p]); k != "" && k == key(by[q]) {
					n++
				}
			}
		}
	}
	return n
}

func club(e Entrant) string   { return e.Club }
func region(e Entrant) string { return e.Region }

func sizesOf(tables []Table) []int {
	out := make([]int, len(tables))
	for i, tb := range tables {
		out[i] = len(tb.Players)
	}
	return out
}

func countUnmet(us []Unmet, constraint string) int {
	n := 0
	for _, u := range us {
		if u.Constraint == constraint {
			n++
		}
	}
	return n
}

// shuffled returns a copy of es in a test-chosen order.
func shuffled(es []Entrant, seed uint64) []Entrant {
	out := slices.Clone(es)
	r := rand.New(rand.NewPCG(seed, 7))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// tableOf maps each player to its table number.
func tableOf(tables []Table) map[string]int {
	m := map[string]int{}
	for _, tb := range tables {
		for _, p := range tb.Players {
			m[p] = tb.Table
		}
	}
	return m
}
