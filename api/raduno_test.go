package api_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
)

// TestRaduno136ClassifiesByTheRulebook runs a whole Raduno of 136 entrants
// (rur-2015, quarterfinals since more than 130 played game 1) over HTTP and
// checks the published classification group by group against sums the test
// computes from the per-game scores the API serves. rur-2015 art. 1: "La
// classifica finale del torneo sarà determinata dall'esito della finale, poi
// seguiranno i giocatori sconfitti in semifinale sommando i punti ottenuti
// nelle prime due partite e nella semifinale. A seguire i giocatori sconfitti
// negli eventuali quarti di finale sommando i punti ottenuti nelle loro tre
// partite giocate. Infine ci saranno i giocatori che hanno giocato solo le due
// partite del sabato." A direct semifinalist renounces after the quarterfinal
// draw: he played only the two Saturday games and ranks in the last group.
func TestRaduno136ClassifiesByTheRulebook(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	const tour = "raduno"
	arb := s.create(tour, "rur-2015")
	cmds := "/v1/tournaments/" + tour + "/commands"
	rng := rand.New(rand.NewPCG(136, 2026))
	for i := 1; i <= 136; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"Player %d","club":"Club %d","region":"R%d"}`, i, i, i%23, i%7))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	sm, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}

	// draw draws a round, recording the die rolls a tie at a cut asks for.
	draw := func(round int) drawnRound {
		t.Helper()
		for range 10 {
			r := s.do("POST", cmds, arb, fmt.Sprintf(`{"type":"DrawTables","round":%d,"seed":"raduno-%d"}`, round, round))
			if r.status == 201 {
				var out struct {
					Events []struct {
						Type string     `json:"type"`
						Data drawnRound `json:"data"`
					} `json:"events"`
				}
				if err := json.Unmarshal(r.body, &out); err != nil {
					t.Fatal(err)
				}
				for _, ev := range out.Events {
					if ev.Type == "TablesDrawn" {
						return ev.Data
					}
				}
				t.Fatalf("draw of round %d: no TablesDrawn in %s", round, r.body)
			}
			if r.status != 422 || r.json(t)["rule"] != "rur-2015 art. 1" {
				t.Fatalf("draw of round %d: %d %s", round, r.status, r.body)
			}
			s.rollTies(tour, arb, rng)
			s.rollView(tour, "classification", arb, rng)
		}
		t.Fatalf("draw of round %d: still refused after 10 rounds of rolls", round)
		return drawnRound{}
	}

	for round := 1; round <= 2; round++ {
		draw(round)
		s.playRound(tour, arb, round, sm, rng)
	}
	quarters := draw(3)
	if quarters.Phase != "quarterfinal" || len(quarters.Byes) != 10 || len(quarters.Tables) != 6 {
		t.Fatalf("round 3: %s with %d byes and %d tables, want the quarterfinals: 10 byes, 6 tables", quarters.Phase, len(quarters.Byes), len(quarters.Tables))
	}
	renouncer := quarters.Byes[3]
	s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"Renounce","player":%q,"phase":"semifinal","reason":"a family matter"}`, renouncer))
	s.playRound(tour, arb, 3, sm, rng)
	semis := draw(4)
	if semis.Phase != "semifinal" || len(semis.Tables) != 4 {
		t.Fatalf("round 4: %s with %d tables, want 4 semifinals", semis.Phase, len(semis.Tables))
	}
	s.playRound(tour, arb, 4, sm, rng)
	if final := draw(5); final.Phase != "final" {
		t.Fatalf("round 5: %s, want the final", final.Phase)
	}
	s.playRound(tour, arb, 5, sm, rng)
	for range 10 {
		r := s.do("POST", cmds, arb, `{"type":"PublishClassification","final":true}`)
		if r.status == 201 {
			break
		}
		if r.status != 422 {
			t.Fatalf("publish: %d %s", r.status, r.body)
		}
		s.rollView(tour, "classification", arb, rng)
	}

	// Every game's score as the API serves it, in hundredths.
	scores := map[string]map[int]int64{} // player → round → score
	sat := map[int]map[string]bool{}     // round → who sat there
	for round := 1; round <= 5; round++ {
		sat[round] = map[string]bool{}
		for _, tb := range s.tablesWithResults(tour, round) {
			for _, p := range tb.Players {
				sat[round][p] = true
			}
			for _, pl := range tb.Result.Placement {
				if scores[pl.Player] == nil {
					scores[pl.Player] = map[int]int64{}
				}
				scores[pl.Player][round] = hundredths(pl.Score)
			}
		}
	}
	var cl struct {
		Final bool `json:"final"`
		Rows  []struct {
			Rank   int     `json:"rank"`
			Player string  `json:"player"`
			Phase  string  `json:"phase"`
			Total  float64 `json:"total"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+tour+"/classification", "", nil).body, &cl); err != nil {
		t.Fatal(err)
	}
	if !cl.Final || len(cl.Rows) != 136 {
		t.Fatalf("classification: final %v with %d rows, want the published 136", cl.Final, len(cl.Rows))
	}

	// The groups, as the rulebook composes them, and the games each sums.
	type group struct {
		phase   string
		players []string
		rounds  []int // the rounds whose games the group's total sums
	}
	var semiLosers, quarterLosers, rest []string
	for p := range scores {
		switch {
		case sat[5][p]:
		case sat[4][p]:
			semiLosers = append(semiLosers, p)
		case sat[3][p]:
			quarterLosers = append(quarterLosers, p)
		default:
			rest = append(rest, p)
		}
	}
	groups := []group{
		{"semifinal", semiLosers, []int{1, 2, 4}},
		{"quarterfinal", quarterLosers, []int{1, 2, 3}},
		{"qualifying", rest, []int{1, 2}},
	}
	// 24 played the quarterfinals: 6 won, and the renouncer's seat went
	// to the best second, who lost no quarterfinal either.
	if len(semiLosers) != 12 || len(quarterLosers) != 17 || !slices.Contains(rest, renouncer) {
		t.Fatalf("%d semifinal losers, %d quarterfinal losers, renouncer %s in the last group %v: want 12, 17, true",
			len(semiLosers), len(quarterLosers), renouncer, slices.Contains(rest, renouncer))
	}
	at := 4 // rows 1-4 are the final's
	for _, g := range groups {
		rows := cl.Rows[at : at+len(g.players)]
		at += len(g.players)
		got := make([]string, len(rows))
		for i, r := range rows {
			got[i] = r.Player
			if r.Phase != g.phase {
				t.Errorf("rank %d (%s): phase %s, want %s", r.Rank, r.Player, r.Phase, g.phase)
			}
			var want int64
			for _, round := range g.rounds {
				want += scores[r.Player][round]
			}
			if hundredths(r.Total) != want {
				t.Errorf("rank %d (%s, %s): total %v, want %s summed: %.2f", r.Rank, r.Player, g.phase, r.Total, roundsOf(g.rounds), float64(want)/100)
			}
			if i == 0 {
				continue
			}
			// Ordered by the sum, then the literal rur-2015 chain: the best
			// single score, then who obtained it first; only the die after.
			above := rows[i-1]
			bestA, roundA := best(scores[above.Player], g.rounds)
			bestB, roundB := best(scores[r.Player], g.rounds)
			if c := cmp.Or(cmp.Compare(hundredths(r.Total), hundredths(above.Total)), cmp.Compare(bestB, bestA), cmp.Compare(roundA, roundB)); c > 0 {
				t.Errorf("rank %d (%s: %v, best %d in round %d) is ranked below rank %d (%s: %v, best %d in round %d)",
					above.Rank, above.Player, above.Total, bestA, roundA, r.Rank, r.Player, r.Total, bestB, roundB)
			}
		}
		if want := slices.Sorted(slices.Values(g.players)); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
			t.Errorf("the %s group holds %v, want %v", g.phase, got, want)
		}
	}
	// The point of the rule: a quarter winner beaten in his semifinal is
	// not lifted above the direct semifinalists by his quarterfinal game.
	lifted := 0
	for _, p := range semiLosers {
		if sat[3][p] {
			lifted++
		}
	}
	if lifted == 0 {
		t.Error("no quarter winner lost his semifinal: the seed does not exercise the rule")
	}
}

// drawnRound is what the test reads of a TablesDrawn event.
type drawnRound struct {
	Phase  string   `json:"phase"`
	Byes   []string `json:"byes"`
	Tables []struct {
		Players []string `json:"players"`
	} `json:"tables"`
}

// resultTable is a table of GET …/rounds/{r}/tables with its placement.
type resultTable struct {
	Table   int      `json:"table"`
	Players []string `json:"players"`
	Result  *struct {
		Placement []struct {
			Player string  `json:"player"`
			Score  float64 `json:"score"`
		} `json:"placement"`
	} `json:"result"`
}

// tablesWithResults reads a round's tables; each must have its result.
func (s *stack) tablesWithResults(tour string, round int) []resultTable {
	s.t.Helper()
	var v struct {
		Tables []resultTable `json:"tables"`
	}
	if err := json.Unmarshal(s.must(200, "GET", fmt.Sprintf("/v1/tournaments/%s/rounds/%d/tables", tour, round), "", nil).body, &v); err != nil {
		s.t.Fatal(err)
	}
	for _, tb := range v.Tables {
		if tb.Result == nil {
			s.t.Fatalf("round %d table %d has no result", round, tb.Table)
		}
	}
	return v.Tables
}

// best returns a player's best score among rounds and the earliest round
// he obtained it in.
func best(scores map[int]int64, rounds []int) (int64, int) {
	b, at := int64(math.MinInt64), 0
	for _, r := range rounds {
		if v, ok := scores[r]; ok && v > b {
			b, at = v, r
		}
	}
	return b, at
}

func hundredths(points float64) int64 { return int64(math.Round(points * 100)) }

func roundsOf(rounds []int) string {
	names := map[int]string{1: "game 1", 2: "game 2", 3: "the quarterfinal", 4: "the semifinal"}
	var out []string
	for _, r := range rounds {
		out = append(out, names[r])
	}
	return fmt.Sprint(out)
}
