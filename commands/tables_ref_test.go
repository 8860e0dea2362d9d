//go:build drawref

package commands

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/scoring"
)

// refPast and refInputsOf are frozen copies of past and inputsOf (tables.go) as they were
// before they were rewritten to preallocate. TestPastAndInputsMatchRef checks that the
// current functions build exactly what these build. Do not edit them: the inputs a
// TablesDrawn event records must not change. Like the frozen copies in commands/draw, they
// build only under the drawref tag (go test -tags drawref ./commands/, which .ci/run runs).

func refPast(t *projections.Tournament) []draw.Past {
	var out []draw.Past
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			for _, res := range tb.Results {
				out = append(out, draw.Past{Player: res.Player, Round: r.Number, Table: tb.Number, Place: res.Place, Score: res.Score})
			}
		}
	}
	return out
}

func refInputsOf(req draw.Request) events.DrawInputs {
	in := events.DrawInputs{Sizes: slices.Clone(req.Sizes), SmallTableMax: req.SmallTableMax, Bands: req.Bands, ManualAs: req.ManualAs}
	for _, e := range req.Entrants {
		in.Entrants = append(in.Entrants, events.DrawEntrant{Player: e.Player, Club: e.Club, Region: e.Region, Rank: e.Rank})
	}
	for _, p := range req.Past {
		n := len(in.Past)
		if n == 0 || in.Past[n-1].Round != p.Round || in.Past[n-1].Table != p.Table {
			in.Past = append(in.Past, events.DrawGame{Round: p.Round, Table: p.Table})
			n++
		}
		g := &in.Past[n-1]
		g.Players, g.Places, g.Scores = append(g.Players, p.Player), append(g.Places, p.Place), append(g.Scores, p.Score)
	}
	return in
}

// randomTournament is a state with rounds of tables, some without results (not reported,
// annulled) and some with an empty result list, results at tables of 1 to 6, and round and
// table numbers not always 1, 2, ….
func randomTournament(r *rand.Rand, players, rounds int) *projections.Tournament {
	t := &projections.Tournament{}
	for k := range rounds {
		rd := &projections.Round{Number: k + 1}
		if r.IntN(10) == 0 {
			rd.Number = k + 1 + r.IntN(3)
		}
		perm := r.Perm(players)
		for len(perm) > 0 {
			size := min(len(perm), 1+r.IntN(6))
			tb := &projections.Table{Number: len(rd.Tables) + 1}
			if r.IntN(20) == 0 {
				tb.Number = r.IntN(3)
			}
			switch r.IntN(10) {
			case 0: // not reported
			case 1:
				tb.Results = []scoring.Result{}
			default:
				for j, p := range perm[:size] {
					tb.Results = append(tb.Results, scoring.Result{Player: fmt.Sprintf("p%d", p), Place: j + 1 - r.IntN(2), Score: int64(r.IntN(20000) - 5000), Win: j == 0})
				}
			}
			perm = perm[size:]
			rd.Tables = append(rd.Tables, tb)
		}
		if r.IntN(15) == 0 {
			rd.Tables = nil
		}
		t.Rounds = append(t.Rounds, rd)
	}
	return t
}

// TestPastAndInputsMatchRef compares past and inputsOf with their frozen copies on random
// states and requests, nil and empty slices included (reflect.DeepEqual tells them apart).
func TestPastAndInputsMatchRef(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 3))
	cases := 400
	if testing.Short() {
		cases = 100
	}
	for i := range cases {
		players := r.IntN(60)
		if i%25 == 0 {
			players = 500 + r.IntN(1500)
		}
		st := randomTournament(r, players, r.IntN(8))
		got, want := past(st), refPast(st)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: past differs", i)
		}
		req := draw.Request{Algorithm: draw.AlgRandom, Round: len(st.Rounds) + 1, Past: got}
		if r.IntN(5) > 0 {
			req.Sizes = []int{4, 5}[:1+r.IntN(2)]
			req.SmallTableMax = r.IntN(2) * 11
		}
		if r.IntN(6) == 0 {
			req.Bands = [][]string{{"p1", "p2"}, {"p3"}}
		}
		if r.IntN(6) == 0 {
			req.ManualAs = draw.AlgRURGame2
		}
		for k := range r.IntN(players + 2) {
			req.Entrants = append(req.Entrants, draw.Entrant{Player: fmt.Sprintf("p%d", k), Club: fmt.Sprintf("c%d", r.IntN(9)), Region: fmt.Sprintf("r%d", r.IntN(4)), Rank: r.IntN(3)})
		}
		switch r.IntN(5) {
		case 0: // past games in any order: the groups are runs of one round and table
			r.Shuffle(len(req.Past), func(a, b int) { req.Past[a], req.Past[b] = req.Past[b], req.Past[a] })
		case 1:
			req.Past = []draw.Past{}
		}
		if !reflect.DeepEqual(inputsOf(req), refInputsOf(req)) {
			t.Fatalf("case %d: inputsOf differs", i)
		}
		if !inputsOf(req).Equal(refInputsOf(req)) {
			t.Fatalf("case %d: inputsOf not Equal", i)
		}
	}
}

// bigTournament is a state like the late rounds of the 1,000,000-event verify profile:
// 38,460 players who played `rounds` rounds at tables of 4 (the last of 6).
func bigTournament(players, rounds int) *projections.Tournament {
	r := rand.New(rand.NewPCG(uint64(players), uint64(rounds)))
	t := &projections.Tournament{}
	for k := range rounds {
		rd := &projections.Round{Number: k + 1}
		perm := r.Perm(players)
		for len(perm) > 0 {
			size := 4
			if len(perm) < 8 {
				size = len(perm)
			}
			tb := &projections.Table{Number: len(rd.Tables) + 1}
			for j, p := range perm[:size] {
				tb.Results = append(tb.Results, scoring.Result{Player: fmt.Sprintf("p%05d", p), Place: j + 1, Score: int64(r.IntN(20000))})
			}
			perm = perm[size:]
			rd.Tables = append(rd.Tables, tb)
		}
		t.Rounds = append(t.Rounds, rd)
	}
	return t
}

// BenchmarkPastInputsLarge times building a late draw's request Past from the state and the
// inputs its event records (38,460 players after 19 rounds: 730,740 past games): impl=ref the
// frozen copies above, impl=new the current past and inputsOf.
//
//	go test -tags drawref ./commands/ -run '^$' -bench PastInputsLarge -benchtime 5x -benchmem
func BenchmarkPastInputsLarge(b *testing.B) {
	st := bigTournament(38_460, 19)
	var es []draw.Entrant
	for k := range 38_460 {
		es = append(es, draw.Entrant{Player: fmt.Sprintf("p%05d", k), Club: fmt.Sprintf("c%d", k%4000), Region: fmt.Sprintf("r%d", k%20)})
	}
	impls := []struct {
		name   string
		past   func(*projections.Tournament) []draw.Past
		inputs func(draw.Request) events.DrawInputs
	}{{"ref", refPast, refInputsOf}, {"new", past, inputsOf}}
	for _, impl := range impls {
		b.Run("past/impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.past(st)
			}
		})
	}
	req := draw.Request{Algorithm: draw.AlgRandom, Round: 20, Sizes: []int{4}, Entrants: es, Past: past(st)}
	for _, impl := range impls {
		b.Run("inputsOf/impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				impl.inputs(req)
			}
		})
	}
}
