package sim_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/projections/board"
	"github.com/referto/referto/projections/scoring"
)

// TestReportsAreConsistent: every simulated report, for 3, 4 and 5 players,
// passes the scorer's validation, and its figures are what the board says
// the holdings are worth.
func TestReportsAreConsistent(t *testing.T) {
	s, err := sim.New(sim.Options{BoardChecked: 0.5, Risiko: 0.2, Elimination: 0.3, Withdrawal: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := board.Default()
	set, _ := board.DefaultObjectives(m)
	rng := rand.New(rand.NewPCG(9, 9))
	kinds := map[string]int{}
	for k := range 2000 {
		n := 3 + k%3
		var players []string
		for i := range n {
			players = append(players, fmt.Sprintf("p%d", i))
		}
		rep := s.Report(rng, 1, 1, players)
		tb := scoring.Table{Winner: rep.Winner, Risiko: rep.Risiko}
		for _, p := range rep.Players {
			seat := scoring.Seat{Player: p.Player, Turn: p.Turn, Status: p.Status, EliminatedOrder: p.EliminatedOrder,
				Armies: p.Armies, ObjectiveArmies: p.ObjectiveArmies, Cards: p.Cards}
			if p.TablePoints != nil {
				seat.TablePoints, seat.OffObjectivePoints = *p.TablePoints, *p.OffObjectivePoints
				seat.ObjectiveTerritories, seat.Territories = *p.ObjectiveTerritories, *p.Territories
				kinds["figures"]++
			} else {
				c, err := set.Compute(m, board.Holding{Objective: p.Objective, Territories: p.TerritoriesHeld})
				if err != nil {
					t.Fatalf("report %d: %v", k, err)
				}
				seat.TablePoints, seat.OffObjectivePoints, seat.ObjectiveTerritories, seat.Territories =
					c.TablePoints, c.OffObjectivePoints, c.ObjectiveTerritories, c.Territories
				kinds["board"]++
			}
			tb.Players = append(tb.Players, seat)
			kinds[string(p.Status)]++
		}
		if rep.Risiko {
			kinds["risiko"]++
		}
		if err := scoring.Validate(scoring.Rules{Formula: "tp_bonus"}, tb); err != nil {
			b, _ := json.Marshal(rep)
			t.Fatalf("report %d does not validate: %v\n%s", k, err, b)
		}
	}
	for _, want := range []string{"figures", "board", "finished", "eliminated", "withdrawn", "risiko"} {
		if kinds[want] == 0 {
			t.Errorf("2000 reports never produced %s: %v", want, kinds)
		}
	}
}

func TestSameSeedSameReports(t *testing.T) {
	s, _ := sim.New(sim.Options{})
	a := s.Report(rand.New(rand.NewPCG(1, 2)), 1, 1, []string{"a", "b", "c", "d"})
	b := s.Report(rand.New(rand.NewPCG(1, 2)), 1, 1, []string{"a", "b", "c", "d"})
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different reports")
	}
}
