package scoring

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// fieldErrors flattens what Validate returned into *FieldError values, failing the test
// on anything else.
func fieldErrors(t testing.TB, err error) []*FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []*FieldError
	for _, e := range errs {
		fe, ok := e.(*FieldError)
		if !ok {
			t.Fatalf("Validate returned %T (%v), want *FieldError", e, e)
		}
		out = append(out, fe)
	}
	return out
}

// TestValidate proves each validation rule of docs/rules.md#3-table-report-referto (and the §4 placement check
// on the winner): given a report breaking one rule, when it is validated, then exactly
// the listed fields are reported, citing the rule.
func TestValidate(t *testing.T) {
	good := func() Table {
		return Table{Players: []Seat{fin("A", 1, 60), fin("B", 2, 40), wd("C", 3, 30), elim("D", 4, 1)}}
	}
	cases := []struct {
		name   string
		mutate func(*Table)
		fields []string // want, in order
		rule   string   // every error cites it
	}{
		{"a valid report passes", func(*Table) {}, nil, ""},
		{"a valid report with risiko, penalties and rolls passes", func(t *Table) {
			t.Winner, t.Risiko = "B", true
			t.Penalties = map[string]int{"A": 7}
			t.Rolls = map[string]int{"A": 6, "B": 1}
		}, nil, ""},
		{"a table seats 3 to 5 players: too few", func(t *Table) { t.Players = t.Players[:2]; t.Players[1] = fin("B", 2, 40) },
			[]string{"players"}, "docs/rules.md#1-glossary"},
		{"a table seats 3 to 5 players: too many", func(t *Table) {
			t.Players = append(t.Players, fin("E", 5, 1), fin("F", 6, 1))
		}, []string{"players"}, "docs/rules.md#1-glossary"},
		{"every seated player appears: name empty", func(t *Table) { t.Players[1].Player = "" },
			[]string{"players[1].player"}, "docs/rules.md#3-table-report-referto"},
		{"every seated player appears exactly once", func(t *Table) { t.Players[2].Player = "A" },
			[]string{"players[2].player"}, "docs/rules.md#3-table-report-referto"},
		{"turn orders are a permutation of 1..n: out of range", func(t *Table) { t.Players[0].Turn = 5 },
			[]string{"players[0].turn"}, "docs/rules.md#3-table-report-referto"},
		{"turn orders are a permutation of 1..n: zero", func(t *Table) { t.Players[0].Turn = 0 },
			[]string{"players[0].turn"}, "docs/rules.md#3-table-report-referto"},
		{"turn orders are a permutation of 1..n: repeated", func(t *Table) { t.Players[3].Turn = 2 },
			[]string{"players[3].turn"}, "docs/rules.md#3-table-report-referto"},
		{"table points ≥ 0", func(t *Table) { t.Players[1].TablePoints = -1 },
			[]string{"players[1].table_points"}, "docs/rules.md#3-table-report-referto"},
		{"counts ≥ 0", func(t *Table) {
			t.Players[0].OffObjectivePoints = -1
			t.Players[0].Cards = -2
		}, []string{"players[0].off_objective_points", "players[0].cards"}, "docs/rules.md#3-table-report-referto"},
		// Objective territories above the territories held are a board
		// bound the ledger checks (commands, board-bounds), not the scorer.
		{"objective armies not above the armies", func(t *Table) {
			t.Players[0].Armies, t.Players[0].ObjectiveArmies = 20, 21
		}, []string{"players[0].objective_armies"}, "docs/rules.md#3-table-report-referto"},
		{"exactly one known status", func(t *Table) { t.Players[1].Status = "asleep" },
			[]string{"players[1].status"}, "docs/rules.md#3-table-report-referto"},
		{"an eliminated player has 0 table points", func(t *Table) { t.Players[3].TablePoints = 4 },
			[]string{"players[3].table_points"}, "docs/rules.md#3-table-report-referto"},
		{"elimination orders are 1..k without gaps", func(t *Table) { t.Players[3].EliminatedOrder = 2 },
			[]string{"players[3].eliminated_order"}, "docs/rules.md#3-table-report-referto"},
		{"elimination orders are 1..k: missing", func(t *Table) { t.Players[3].EliminatedOrder = 0 },
			[]string{"players[3].eliminated_order"}, "docs/rules.md#3-table-report-referto"},
		{"elimination orders are 1..k: repeated", func(t *Table) { t.Players[2] = elim("C", 3, 1) },
			[]string{"players[3].eliminated_order"}, "docs/rules.md#3-table-report-referto"},
		{"only the eliminated have an elimination order", func(t *Table) { t.Players[0].EliminatedOrder = 1 },
			[]string{"players[0].eliminated_order"}, "docs/rules.md#3-table-report-referto"},
		{"somebody finished the game", func(t *Table) {
			t.Players = []Seat{wd("A", 1, 3), elim("B", 2, 1), dq("C", 3, 0)}
		}, []string{"players"}, "docs/rules.md#3-table-report-referto"},
		{"the winner is seated", func(t *Table) { t.Winner = "Z" }, []string{"winner"}, "docs/rules.md#3-table-report-referto"},
		{"the winner is finished: not withdrawn", func(t *Table) { t.Winner = "C" }, []string{"winner"}, "docs/rules.md#3-table-report-referto"},
		{"the winner is finished: not eliminated", func(t *Table) { t.Winner, t.Risiko = "D", true }, []string{"winner"}, "docs/rules.md#3-table-report-referto"},
		{"without risiko the winner is placed first by table points", func(t *Table) { t.Winner = "B" },
			[]string{"winner"}, "docs/rules.md#4-placement-at-a-table"},
		{"risiko implies the winner", func(t *Table) { t.Risiko = true }, []string{"risiko"}, "docs/rules.md#3-table-report-referto"},
		{"penalties: only seated players, positive amounts", func(t *Table) { t.Penalties = map[string]int{"A": 0, "Z": 5} },
			[]string{"penalties.A", "penalties.Z"}, "docs/rules.md#10-sanctions"},
		{"rolls: only seated players, 1 to 6", func(t *Table) { t.Rolls = map[string]int{"A": 7, "Z": 3} },
			[]string{"rolls.A", "rolls.Z"}, "docs/rules.md#4-placement-at-a-table"},
		{"every problem is reported at once", func(t *Table) {
			t.Players[0].Turn = 9
			t.Players[1].TablePoints = -5
			t.Risiko = true
		}, []string{"players[0].turn", "players[1].table_points", "risiko"}, "docs/rules.md#3-table-report-referto"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := good()
			tc.mutate(&tab)
			err := Validate(Rules{Formula: "tp_bonus"}, tab)
			fes := fieldErrors(t, err)
			var fields []string
			for _, fe := range fes {
				fields = append(fields, fe.Field)
				if fe.Rule != tc.rule || fe.Msg == "" {
					t.Errorf("%s: rule %q msg %q, want rule %q and a message", fe.Field, fe.Rule, fe.Msg, tc.rule)
				}
				if !errors.Is(fe, ErrInvalidReport) || !strings.HasPrefix(fe.Error(), "scoring: "+fe.Field+": ") {
					t.Errorf("%s: Error() = %q, errors.Is(ErrInvalidReport) = %v", fe.Field, fe.Error(), errors.Is(fe, ErrInvalidReport))
				}
			}
			if !slices.Equal(fields, tc.fields) {
				t.Errorf("got fields %q, want %q (%v)", fields, tc.fields, err)
			}
			if (err == nil) != (len(tc.fields) == 0) {
				t.Errorf("got %v", err)
			}
		})
	}
}

// TestFieldErrorWithoutRule: a FieldError with no rule prints without the parentheses.
func TestFieldErrorWithoutRule(t *testing.T) {
	got := (&FieldError{Field: "winner", Msg: "bad"}).Error()
	if want := "scoring: winner: bad"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestValidateWinnerAfterWithdrawal: given a withdrawn player with more recorded
// table points than the finished player named winner, then under conv2003 the
// report is valid (campionato-2003: "dal momento del ritiro tutti i suoi territori
// diverranno neutrali", so he left the game and the winner is the best of the
// others), and under tp_bonus it is refused (rur-2015 art. 31: he keeps "la
// posizione ottenuta", ahead of the named winner).
func TestValidateWinnerAfterWithdrawal(t *testing.T) {
	tab := Table{Players: []Seat{wd("A", 1, 70), fin("B", 2, 65), fin("C", 3, 50), fin("D", 4, 35)}, Winner: "B"}
	if err := Validate(Rules{Formula: "conv2003", TieChain: "2003"}, tab); err != nil {
		t.Errorf("conv2003: got %v, want the report accepted", err)
	}
	fes := fieldErrors(t, Validate(Rules{Formula: "tp_bonus"}, tab))
	if len(fes) != 1 || fes[0].Field != "winner" {
		t.Errorf("tp_bonus: got %v, want one problem at winner", fes)
	}
	res := mustScore(t, Rules{Formula: "conv2003", TieChain: "2003"}, tab)
	if res[0].Player != "B" || !res[0].Win || res[0].Score != 20015 {
		t.Errorf("conv2003: got %+v first, want B winning with 200.15", res[0])
	}
}
