package scoring

import (
	"errors"
	"testing"

	"github.com/referto/referto/events"
)

// TestPlacement proves the placement rules and pinned readings of docs/rules.md#4-placement-at-a-table. Each
// case: given a table and rules, when it is scored, then the placement order with
// places and scores is as written (player:place:score, "?" = unresolved).
func TestPlacement(t *testing.T) {
	tpBonus := Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rur"}
	split := Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu", TieAtTop: events.TieAtTopSplitBonus}
	cases := []struct {
		name  string
		rules Rules
		table Table
		want  string
	}{
		{
			name:  "by table points descending",
			rules: tpBonus,
			table: Table{Players: []Seat{fin("A", 1, 20), fin("B", 2, 60), fin("C", 3, 40), fin("D", 4, 10)}},
			want:  "B:1:11000 C:2:4000 A:3:2000 D:4:1000",
		},
		{
			name:  "risiko winner always first",
			rules: tpBonus,
			table: Table{Players: []Seat{fin("A", 1, 80), fin("B", 2, 20), fin("C", 3, 40), fin("D", 4, 10)}, Winner: "B", Risiko: true},
			want:  "B:1:15000 A:2:8000 C:3:4000 D:4:1000",
		},
		{
			name:  "eliminated after all others, last eliminated highest",
			rules: Rules{Formula: "conv150"},
			table: Table{Players: []Seat{elim("A", 1, 1), fin("B", 2, 3), elim("C", 3, 3), elim("D", 4, 2), fin("E", 5, 0)}},
			want:  "B:1:15003 E:2:9700 C:3:3000 D:4:2000 A:5:1000",
		},
		{
			name:  "withdrawn placed by recorded table points like finished (rur-2015 art. 31)",
			rules: tpBonus,
			table: Table{Players: []Seat{fin("A", 1, 30), wd("B", 2, 50), fin("C", 3, 40), elim("D", 4, 1)}},
			want:  "B:1:10000 C:2:4000 A:3:3000 D:4:0",
		},
		{
			name:  "disqualified placed last, after the eliminated, whatever his table points",
			rules: tpBonus,
			table: Table{Players: []Seat{dq("A", 1, 90), fin("B", 2, 30), elim("C", 3, 1), fin("D", 4, 20)}},
			want:  "B:1:8000 D:2:2000 C:3:0 A:4:0",
		},
		{
			name:  "two disqualified share the last place",
			rules: tpBonus,
			table: Table{Players: []Seat{dq("A", 1, 90), fin("B", 2, 30), dq("C", 3, 10), fin("D", 4, 20)}},
			want:  "B:1:8000 D:2:2000 A:3:0 C:3:0",
		},
		{
			name:  "art. 36 exclusion recorded as eliminated first: placed last, scored as first eliminated",
			rules: Rules{Formula: "conv150"},
			table: Table{Players: []Seat{elim("A", 1, 1), fin("B", 2, 50), elim("C", 3, 2), fin("D", 4, 40)}},
			want:  "B:1:15010 D:2:9000 C:3:2000 A:4:1000",
		},
		{
			name:  "rur chain: off-objective points first",
			rules: tpBonus,
			table: Table{Players: []Seat{off(fin("A", 1, 50), 20), off(fin("B", 2, 50), 10), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "A:1:10000 B:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rur chain: then reverse turn order (criterio del colore)",
			rules: tpBonus,
			table: Table{Players: []Seat{off(fin("A", 1, 50), 10), off(fin("B", 2, 50), 10), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "master chain is the rur chain",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: masterChain()},
			table: Table{Players: []Seat{off(fin("A", 1, 50), 10), off(fin("B", 2, 50), 10), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "2003 chain: objective territories held",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "2003"},
			table: Table{Players: []Seat{
				{Player: "A", Turn: 1, TablePoints: 50, ObjectiveTerritories: 5, Territories: 20, OffObjectivePoints: 30, Status: events.SeatFinished},
				{Player: "B", Turn: 2, TablePoints: 50, ObjectiveTerritories: 6, Territories: 10, Status: events.SeatFinished},
				fin("C", 3, 10), fin("D", 4, 5)}},
			want: "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "2003 chain: then territories held",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "2003"},
			table: Table{Players: []Seat{
				{Player: "A", Turn: 1, TablePoints: 50, ObjectiveTerritories: 5, Territories: 12, Armies: 10, Status: events.SeatFinished},
				{Player: "B", Turn: 2, TablePoints: 50, ObjectiveTerritories: 5, Territories: 11, Armies: 90, Status: events.SeatFinished},
				fin("C", 3, 10), fin("D", 4, 5)}},
			want: "A:1:10000 B:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "2003 chain: then armies + 3 × cards",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "2003"},
			table: Table{Players: []Seat{
				{Player: "A", Turn: 1, TablePoints: 50, ObjectiveTerritories: 5, Territories: 12, Armies: 40, Cards: 0, Status: events.SeatFinished},
				{Player: "B", Turn: 2, TablePoints: 50, ObjectiveTerritories: 5, Territories: 12, Armies: 32, Cards: 3, Status: events.SeatFinished},
				fin("C", 3, 10), fin("D", 4, 5)}},
			want: "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "2003 chain exhausted: unresolved without rolls",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "2003"},
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "A:1:10000? B:2:5000? C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: off-objective points",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{rtuSeat("A", 1, 9, 0, 0, 0, 0, 0), rtuSeat("B", 2, 10, 0, 0, 0, 0, 0), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: then armies in objective",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{rtuSeat("A", 1, 9, 21, 0, 0, 0, 0), rtuSeat("B", 2, 9, 20, 50, 7, 9, 9), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "A:1:10000 B:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: then armies outside the objective",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{rtuSeat("A", 1, 9, 20, 11, 0, 0, 0), rtuSeat("B", 2, 9, 20, 12, 0, 0, 0), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: then cards",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{rtuSeat("A", 1, 9, 20, 12, 4, 0, 0), rtuSeat("B", 2, 9, 20, 12, 3, 9, 9), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "A:1:10000 B:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: then objective territories",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{rtuSeat("A", 1, 9, 20, 12, 4, 6, 9), rtuSeat("B", 2, 9, 20, 12, 4, 7, 0), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: then other territories",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{rtuSeat("A", 1, 9, 20, 12, 4, 6, 3), rtuSeat("B", 2, 9, 20, 12, 4, 6, 2), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "A:1:10000 B:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: then the recorded die roll, highest first",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Rolls: map[string]int{"A": 2, "B": 5}},
			want:  "B:1:10000 A:2:5000 C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: no roll recorded leaves the tie unresolved",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Rolls: map[string]int{"A": 2}},
			want:  "A:1:10000? B:2:5000? C:3:1000 D:4:500",
		},
		{
			name:  "rtu chain: equal rolls stay unresolved",
			rules: Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "rtu"},
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Rolls: map[string]int{"A": 4, "B": 4}},
			want:  "A:1:10000? B:2:5000? C:3:1000 D:4:500",
		},
		{
			name:  "split_bonus: two tied first share the bonus (25 + 25) and the place",
			rules: split,
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "A:1:7500 B:1:7500 C:3:1000 D:4:500",
		},
		{
			name:  "split_bonus: three or more tied first get no bonus",
			rules: split,
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 50), fin("D", 4, 5)}},
			want:  "A:1:5000 B:1:5000 C:1:5000 D:4:500",
		},
		{
			name:  "split_bonus: a tie below the top goes through the chain",
			rules: split,
			table: Table{Players: []Seat{fin("A", 1, 60), off(fin("B", 2, 50), 3), off(fin("C", 3, 50), 4), fin("D", 4, 5)}},
			want:  "A:1:11000 C:2:5000 B:3:5000 D:4:500",
		},
		{
			name:  "split_bonus: a risiko winner is first alone",
			rules: split,
			table: Table{Players: []Seat{off(fin("A", 1, 50), 9), off(fin("B", 2, 50), 8), fin("C", 3, 10), fin("D", 4, 5)}, Winner: "C", Risiko: true},
			want:  "C:1:15000 A:2:5000 B:3:5000 D:4:500",
		},
		{
			name:  "split_bonus: halves an odd bonus exactly",
			rules: Rules{Formula: "tp_bonus", TieAtTop: events.TieAtTopSplitBonus, Bonus: 25},
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:6250 A:1:6250 C:3:1000 D:4:500",
		},
		{
			name:  "split_bonus: formulas without a winner bonus use the chain",
			rules: Rules{Formula: "conv150", TieChain: "rur", TieAtTop: events.TieAtTopSplitBonus},
			table: Table{Players: []Seat{fin("A", 1, 50), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}},
			want:  "B:1:15000 A:2:10000 C:3:6000 D:4:4000",
		},
		{
			name:  "penalty lowers table points before placement (pinned)",
			rules: tpBonus,
			table: Table{Players: []Seat{fin("A", 1, 60), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Penalties: map[string]int{"A": 15}},
			want:  "B:1:10000 A:2:4500 C:3:1000 D:4:500",
		},
		{
			// W = 100 − 25 = 75: A 150 + (75 − 50)/100; B 100 − 25 → at least 80.
			name:  "penalty: the risiko winner stays first, his W lowered by it (pinned)",
			rules: Rules{Formula: "conv150"},
			table: Table{Players: []Seat{fin("A", 1, 20), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Winner: "A", Risiko: true, Penalties: map[string]int{"A": 25}},
			want:  "A:1:15025 B:2:8000 C:3:6000 D:4:4000",
		},
		{
			name:  "edition 1: a penalty did not touch the risiko winner's score",
			rules: Rules{Edition: Edition1, Formula: "conv150"},
			table: Table{Players: []Seat{fin("A", 1, 20), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Winner: "A", Risiko: true, Penalties: map[string]int{"A": 25}},
			want:  "A:1:15050 B:2:8000 C:3:6000 D:4:4000",
		},
		{
			name:  "penalty may take table points below zero",
			rules: Rules{Formula: "veronese"},
			table: Table{Players: []Seat{fin("A", 1, 20), fin("B", 2, 50), fin("C", 3, 10), fin("D", 4, 5)}, Penalties: map[string]int{"C": 25}},
			want:  "B:1:15000 A:2:8000 D:3:4500 C:4:500",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := placing(mustScore(t, tc.rules, tc.table)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// rtuSeat builds a finished seat with 50 table points and the rtu chain's fields: off,
// objective armies, armies outside the objective, cards, objective territories, other
// territories.
func rtuSeat(name string, turn, offObj, objArmies, outArmies, cards, objTerr, otherTerr int) Seat {
	return Seat{Player: name, Turn: turn, TablePoints: 50, OffObjectivePoints: offObj,
		ObjectiveArmies: objArmies, Armies: objArmies + outArmies, Cards: cards,
		ObjectiveTerritories: objTerr, Territories: objTerr + otherTerr, Status: events.SeatFinished}
}

// TestResultFields: given a table with players out, when it is scored, then Win, Out,
// OthersOut and TablePoints (after penalties) are reported per player.
func TestResultFields(t *testing.T) {
	rs := mustScore(t, Rules{Formula: "tp_bonus", Bonus: 50}, Table{
		Players:   []Seat{fin("A", 1, 60), wd("B", 2, 30), elim("C", 3, 1), dq("D", 4, 5), fin("E", 5, 40)},
		Penalties: map[string]int{"E": 10},
	})
	type fields struct {
		win, out         bool
		othersOut, tp, p int
	}
	want := map[string]fields{
		"A": {true, false, 3, 60, 1},
		"E": {false, false, 3, 30, 2},
		"B": {false, true, 2, 30, 3},
		"C": {false, true, 2, 0, 4},
		"D": {false, true, 2, 5, 5},
	}
	for _, r := range rs {
		got := fields{r.Win, r.Out, r.OthersOut, r.TablePoints, r.Place}
		if got != want[r.Player] {
			t.Errorf("%s: got %+v, want %+v", r.Player, got, want[r.Player])
		}
	}
}

// TestScoreErrors: given rules or a table Score cannot score, then it returns the
// matching sentinel and no results.
func TestScoreErrors(t *testing.T) {
	ok := Table{Players: []Seat{fin("A", 1, 10), fin("B", 2, 5), fin("C", 3, 1)}}
	cases := []struct {
		name  string
		rules Rules
		table Table
		want  error
	}{
		{"unknown formula", Rules{Formula: "bogus"}, ok, ErrUnknownFormula},
		{"empty formula", Rules{}, ok, ErrUnknownFormula},
		{"unknown tie chain", Rules{Formula: "tp_bonus", Bonus: 50, TieChain: "x"}, ok, ErrUnknownTieChain},
		{"unknown tie at top", Rules{Formula: "tp_bonus", TieAtTop: "x"}, ok, ErrUnknownTieAtTop},
		{"no players", Rules{Formula: "tp_bonus", Bonus: 50}, Table{}, ErrNoPlayers},
		{"unknown status", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: []Seat{{Player: "A", Turn: 1, Status: "gone"}}}, ErrUnknownStatus},
		{"risiko without a winner", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: ok.Players, Risiko: true}, ErrRisikoWinner},
		{"risiko winner not seated", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: ok.Players, Risiko: true, Winner: "Z"}, ErrRisikoWinner},
		{"risiko winner withdrawn", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: []Seat{fin("A", 1, 10), wd("B", 2, 1), fin("C", 3, 1)}, Risiko: true, Winner: "B"}, ErrRisikoWinner},
		{"risiko winner eliminated", Rules{Formula: "tp_bonus", Bonus: 50}, Table{Players: []Seat{fin("A", 1, 10), elim("B", 2, 1), fin("C", 3, 1)}, Risiko: true, Winner: "B"}, ErrRisikoWinner},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Score(tc.rules, tc.table)
			if !errors.Is(err, tc.want) || rs != nil {
				t.Errorf("got %v, %v; want %v", rs, err, tc.want)
			}
		})
	}
}

// TestSharedPlaceOrder: given two players sharing first place under
// split_bonus, then the place and the bonus stay shared, and the order within
// the place is the tie chain's, then the recorded die rolls'; players neither
// separates are Level (a knockout report must then carry the rolls).
func TestSharedPlaceOrder(t *testing.T) {
	rules := Rules{Formula: "tp_bonus", TieChain: events.TieChainRTU, TieAtTop: events.TieAtTopSplitBonus, Bonus: 50}
	seats := func(offA, offB int) []Seat {
		a, b := fin("A", 1, 60), fin("B", 2, 60)
		a.OffObjectivePoints, b.OffObjectivePoints = offA, offB
		return []Seat{a, b, fin("C", 3, 30), fin("D", 4, 10)}
	}
	for _, tc := range []struct {
		name      string
		table     Table
		want      string
		wantLevel bool
	}{
		{"the chain orders the shared place: B's off-objective points", Table{Players: seats(5, 20)}, "B:1:8500 A:1:8500 C:3:3000 D:4:1000", false},
		{"level on the whole chain: the report's order, Level", Table{Players: seats(5, 5)}, "A:1:8500 B:1:8500 C:3:3000 D:4:1000", true},
		{"level on the chain: the rolls order it", Table{Players: seats(5, 5), Rolls: map[string]int{"A": 2, "B": 6}}, "B:1:8500 A:1:8500 C:3:3000 D:4:1000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustScore(t, rules, tc.table)
			if got := placing(res); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			for _, r := range res[:2] {
				if r.Level != tc.wantLevel || r.Unresolved || r.Win {
					t.Errorf("%s: level %v unresolved %v win %v, want level %v, resolved, no single winner", r.Player, r.Level, r.Unresolved, r.Win, tc.wantLevel)
				}
			}
		})
	}
}

// masterChain is the tie chain of the master preset: rur-2015's, by name.
func masterChain() events.TieChain {
	rs, _ := events.Preset(events.PresetMaster)
	return rs.TieChain
}
