package scoring

import (
	"fmt"
	"testing"

	"github.com/referto/referto/events"
)

// byteReader hands out fuzz bytes, then zeros.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

// small returns a value in [lo, lo+span).
func (r *byteReader) small(lo, span int) int { return lo + r.next()%span }

var (
	fuzzStatuses = []events.SeatStatus{events.SeatFinished, events.SeatFinished, events.SeatEliminated, events.SeatWithdrawn, events.SeatDisqualified, "bogus", ""}
	fuzzChains   = append(events.TieChains(), "")
	fuzzTops     = append(events.TieAtTops(), "")
)

// fuzzTable builds a table (and rules) from fuzz bytes. Values are kept small so that
// ties, collisions and edge cases are frequent. Three times in four the table is built
// well-formed (it may still break a rule, e.g. a named winner who is not first);
// otherwise every field is arbitrary.
func fuzzTable(data []byte) (Rules, Table) {
	r := &byteReader{b: data}
	formulas := events.Formulas()
	rules := Rules{
		Formula:  formulas[r.next()%len(formulas)],
		TieChain: fuzzChains[r.next()%len(fuzzChains)],
		TieAtTop: fuzzTops[r.next()%len(fuzzTops)],
		Bonus:    r.small(-5, 80),
	}
	if r.next()%4 == 0 {
		return rules, chaoticTable(r)
	}

	n := r.small(MinPlayers, MaxPlayers-MinPlayers+1)
	turns := make([]int, n)
	for i := range turns {
		turns[i] = i + 1
	}
	for i := n - 1; i > 0; i-- {
		j := r.next() % (i + 1)
		turns[i], turns[j] = turns[j], turns[i]
	}
	t := Table{}
	eliminated := 0
	for i := range n {
		objT, objA := r.small(0, 6), r.small(0, 20)
		s := Seat{
			Player:               fmt.Sprintf("p%d", i),
			Turn:                 turns[i],
			TablePoints:          r.small(0, 4) * 10, // few values: many ties
			OffObjectivePoints:   r.small(0, 3),
			ObjectiveTerritories: objT,
			Territories:          objT + r.small(0, 3),
			ObjectiveArmies:      objA,
			Armies:               objA + r.small(0, 3),
			Cards:                r.small(0, 2),
			Status:               []events.SeatStatus{events.SeatFinished, events.SeatFinished, events.SeatFinished, events.SeatEliminated, events.SeatWithdrawn, events.SeatDisqualified}[r.next()%6],
		}
		if i == 0 {
			s.Status = events.SeatFinished
		}
		if s.Status == events.SeatEliminated {
			s.TablePoints = 0
			eliminated++
			s.EliminatedOrder = eliminated
		}
		t.Players = append(t.Players, s)
	}
	// Shuffle the elimination orders among the eliminated.
	var el []int
	for i, s := range t.Players {
		if s.Status == events.SeatEliminated {
			el = append(el, i)
		}
	}
	for k := len(el) - 1; k > 0; k-- {
		j := r.next() % (k + 1)
		a, b := &t.Players[el[k]], &t.Players[el[j]]
		a.EliminatedOrder, b.EliminatedOrder = b.EliminatedOrder, a.EliminatedOrder
	}
	switch r.next() % 3 {
	case 0: // risiko by a finished player
		for k := range n {
			if p := t.Players[(k+r.next())%n]; p.Status == events.SeatFinished {
				t.Winner, t.Risiko = p.Player, true
				break
			}
		}
	case 1: // a named winner, right or wrong
		t.Winner = fmt.Sprintf("p%d", r.small(0, n))
	}
	for range r.small(0, 3) {
		if t.Penalties == nil {
			t.Penalties = map[string]int{}
		}
		t.Penalties[fmt.Sprintf("p%d", r.small(0, n))] = r.small(1, 30)
	}
	for range r.small(0, 4) {
		if t.Rolls == nil {
			t.Rolls = map[string]int{}
		}
		t.Rolls[fmt.Sprintf("p%d", r.small(0, n))] = r.small(1, 6)
	}
	return rules, t
}

// chaoticTable builds a table whose every field is arbitrary.
func chaoticTable(r *byteReader) Table {
	n := r.small(0, 8)
	t := Table{}
	for i := range n {
		s := Seat{
			Player:               fmt.Sprintf("p%d", r.small(0, n+1)),
			Turn:                 r.small(-1, n+3),
			TablePoints:          r.small(-3, 110),
			OffObjectivePoints:   r.small(-1, 8),
			ObjectiveTerritories: r.small(-1, 6),
			Territories:          r.small(-1, 12),
			Armies:               r.small(-1, 40),
			ObjectiveArmies:      r.small(-1, 20),
			Cards:                r.small(-1, 5),
			Status:               fuzzStatuses[r.next()%len(fuzzStatuses)],
			EliminatedOrder:      r.small(-1, n+2),
		}
		if r.next()%4 != 0 {
			s.Player, s.Turn = fmt.Sprintf("p%d", i), i+1
		}
		t.Players = append(t.Players, s)
	}
	if w := r.small(-1, n+2); w >= 0 {
		t.Winner = fmt.Sprintf("p%d", w)
	}
	t.Risiko = r.next()%3 == 0
	for range r.small(0, 3) {
		if t.Penalties == nil {
			t.Penalties = map[string]int{}
		}
		t.Penalties[fmt.Sprintf("p%d", r.small(0, n+1))] = r.small(-2, 30)
	}
	for range r.small(0, 4) {
		if t.Rolls == nil {
			t.Rolls = map[string]int{}
		}
		t.Rolls[fmt.Sprintf("p%d", r.small(0, n+1))] = r.small(-1, 9)
	}
	return t
}

// FuzzScoreAndValidate builds arbitrary tables and checks that nothing panics, that
// Validate either accepts or returns only *FieldError values with a field and a
// message, and that Score on an accepted table returns one Result per player with
// places in 1..n, in placement order. The results are then ranked, which must not panic
// either.
func FuzzScoreAndValidate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 50, 4, 0, 0, 62, 12, 3, 5, 20, 9, 1, 0, 0})
	f.Add([]byte{8, 2, 2, 0, 5, 1, 1, 50, 3, 3, 3, 3, 3, 3, 0, 0, 1, 1, 1, 50, 3, 3, 3, 3, 3, 3, 0, 0, 1})
	f.Add([]byte("a table report, more or less random"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rules, tab := fuzzTable(data)
		err := Validate(rules, tab)
		for _, fe := range fieldErrors(t, err) {
			if fe == nil || fe.Field == "" || fe.Msg == "" {
				t.Fatalf("FieldError without field or message: %#v", fe)
			}
		}

		rs, scoreErr := Score(rules, tab)
		if scoreErr == nil && len(rs) != len(tab.Players) {
			t.Fatalf("Score returned %d results for %d players", len(rs), len(tab.Players))
		}
		if err != nil {
			return
		}
		if scoreErr != nil {
			t.Fatalf("Score refused a valid table: %v\nrules %+v\ntable %+v", scoreErr, rules, tab)
		}
		n := len(tab.Players)
		seen := map[string]bool{}
		for i, r := range rs {
			if r.Place < 1 || r.Place > n {
				t.Fatalf("%s: place %d outside 1..%d\n%s", r.Player, r.Place, n, placing(rs))
			}
			if i > 0 && r.Place < rs[i-1].Place {
				t.Fatalf("results not in placement order: %s", placing(rs))
			}
			if seen[r.Player] {
				t.Fatalf("%s appears twice: %s", r.Player, placing(rs))
			}
			seen[r.Player] = true
		}
		if tab.Risiko && (rs[0].Player != tab.Winner || rs[0].Place != 1) {
			t.Fatalf("risiko winner %s not first: %s", tab.Winner, placing(rs))
		}

		var games []Game
		var players []string
		for _, r := range rs {
			players = append(players, r.Player)
			games = append(games, Game{Player: r.Player, Round: 1, Place: r.Place, Score: r.Score,
				TablePoints: r.TablePoints, Win: r.Win, Eliminated: r.Out, OthersOut: r.OthersOut})
		}
		rows := Rank(StandingsRules{Formula: rules.Formula, Tiebreak: "cirki", Discards: 1}, players, games, nil, nil)
		if len(rows) != len(players) {
			t.Fatalf("Rank returned %d rows for %d players", len(rows), len(players))
		}
	})
}
