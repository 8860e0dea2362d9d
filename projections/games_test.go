package projections_test

import (
	"reflect"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/scoring"
)

// TestGamesOfAnnulledTables pins docs/rules.md#12-annulled-game in Games: a player not at
// fault at an annulled table scores what they scored in the next round (the
// previous one when the last round was annulled), and is left out until
// that score exists; the culprit scores 0, eliminated.
func TestGamesOfAnnulledTables(t *testing.T) {
	played := func(n int, scores map[string]int64, order ...string) *projections.Table {
		tb := &projections.Table{Number: n, Players: order}
		for i, p := range order {
			tb.Results = append(tb.Results, scoring.Result{Player: p, Place: i + 1, Score: scores[p], TablePoints: int(scores[p] / 10)})
		}
		return tb
	}
	annulled := func(n, round int, culprit string, players ...string) *projections.Table {
		return &projections.Table{Number: n, Players: players, Annulled: &events.GameAnnulled{Round: round, Table: n, Culprit: culprit, Reason: "irregular"}}
	}
	q := events.PhaseQualifying
	tr := projections.New("t1")
	tr.Ruleset.QualifyingRounds = 3
	tr.Rounds = []*projections.Round{
		{Number: 1, Phase: q, Tables: []*projections.Table{played(1, map[string]int64{"p1": 1000, "p2": 2000, "p3": 3000, "p4": 4000}, "p1", "p2", "p3", "p4")}},
		{Number: 2, Phase: q, Tables: []*projections.Table{annulled(1, 2, "p2", "p1", "p2", "p3", "p4"), played(2, map[string]int64{"p5": 500, "p6": 600}, "p5", "p6")}},
		{Number: 3, Phase: q, Tables: []*projections.Table{played(1, map[string]int64{"p1": 1100, "p3": 3300}, "p1", "p3"), annulled(2, 3, "", "p5", "p6")}},
		{Number: 4, Phase: "final", Tables: []*projections.Table{played(1, map[string]int64{"p1": 9900}, "p1")}},
	}
	g := func(p string, round, table, place int, score int64) scoring.Game {
		return scoring.Game{Player: p, Round: round, Table: table, Place: place, Score: score, TablePoints: int(score / 10)}
	}
	want := []scoring.Game{
		g("p1", 1, 1, 1, 1000), g("p2", 1, 1, 2, 2000), g("p3", 1, 1, 3, 3000), g("p4", 1, 1, 4, 4000),
		g("p5", 2, 2, 1, 500), g("p6", 2, 2, 2, 600),
		g("p1", 3, 1, 1, 1100), g("p3", 3, 1, 2, 3300),
		// Round 2, table 1: the next round's scores; p4 has none yet.
		g("p1", 2, 1, 0, 1100), {Player: "p2", Round: 2, Table: 1, Eliminated: true}, g("p3", 2, 1, 0, 3300),
		// Round 3 is the last: the previous round's scores.
		g("p5", 3, 2, 0, 500), g("p6", 3, 2, 0, 600),
	}
	if got := tr.Games(); !reflect.DeepEqual(got, want) {
		t.Errorf("Games:\n got %+v\nwant %+v", got, want)
	}
}
