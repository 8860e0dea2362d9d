// Package sim makes plausible RisiKo! table reports (and entrants:
// names.go) for demos, property tests and benchmark logs: the 42 territories are dealt among the players
// still in the game, each player holds a distinct objective of the default
// set, and the figures are what the board says those holdings are worth, so
// every report is consistent and passes the ledger's checks. Everything is
// drawn from the *rand.Rand passed in: the same seed gives the same reports.
package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/board"
)

// Options tunes how often the rarer outcomes happen, as probabilities.
type Options struct {
	Risiko       float64 // the winner completes the objective; default 0.08
	Elimination  float64 // one player is eliminated; default 0.15
	Withdrawal   float64 // one player withdraws; default 0.03
	BoardChecked float64 // a line gives objective + territories instead of figures; default 0.25
	Time         float64 // the game closes on time rather than by the closing roll; default 0.2
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *Options) EnsureDefaults() {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.Risiko, 0.08)
	def(&o.Elimination, 0.15)
	def(&o.Withdrawal, 0.03)
	def(&o.BoardChecked, 0.25)
	def(&o.Time, 0.2)
}

// Simulator deals games on the default board.
type Simulator struct {
	m    *board.Map
	set  *board.ObjectiveSet
	opts Options
}

// New returns a simulator over the embedded board and objective set.
func New(opts Options) (*Simulator, error) {
	opts.EnsureDefaults()
	m, err := board.Default()
	if err != nil {
		return nil, err
	}
	set, err := board.DefaultObjectives(m)
	if err != nil {
		return nil, err
	}
	return &Simulator{m: m, set: set, opts: opts}, nil
}

// Report plays out one table and returns its report.
func (s *Simulator) Report(rng *rand.Rand, round, table int, players []string) commands.RecordResult {
	n := len(players)
	turns := rng.Perm(n)
	objs := rng.Perm(len(s.set.Objectives))[:n]
	out := commands.RecordResult{Round: round, Table: table, ClosedBy: events.ClosingRoll}
	if rng.Float64() < s.opts.Time {
		out.ClosedBy = events.ClosingTime
	}

	// Who leaves the game early.
	eliminated := map[int]int{} // seat → elimination order
	if n >= 4 && rng.Float64() < s.opts.Elimination {
		eliminated[rng.IntN(n)] = 1
	}
	withdrawn := -1
	if rng.Float64() < s.opts.Withdrawal {
		if w := rng.IntN(n); eliminated[w] == 0 {
			withdrawn = w
		}
	}
	var inGame []int
	for i := range n {
		if eliminated[i] == 0 {
			inGame = append(inGame, i)
		}
	}

	// Deal the territories. A risiko winner first takes their whole objective.
	held := make([][]string, n)
	owner := map[string]bool{}
	winner := -1
	if rng.Float64() < s.opts.Risiko {
		winner = inGame[rng.IntN(len(inGame))]
		if winner == withdrawn {
			withdrawn = -1
		}
		for _, id := range s.set.Objectives[objs[winner]].Territories {
			held[winner] = append(held[winner], id)
			owner[id] = true
		}
		out.Risiko, out.ClosedBy = true, events.ClosingObjective
	}
	ids := s.m.IDs()
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	k := 0
	for _, id := range ids {
		if owner[id] {
			continue
		}
		p := inGame[k%len(inGame)]
		if rng.IntN(3) == 0 {
			p = inGame[rng.IntN(len(inGame))]
		}
		k++
		held[p] = append(held[p], id)
	}

	for i, id := range players {
		line := commands.SeatInput{Player: id, Turn: turns[i] + 1, Status: events.SeatFinished, Objective: s.set.Objectives[objs[i]].ID}
		if o := eliminated[i]; o > 0 {
			line.Status, line.EliminatedOrder = events.SeatEliminated, o
		} else if i == withdrawn {
			// Taken ill: a withdrawal the report records, which expels
			// under no ruleset.
			line.Status, line.Withdrawal = events.SeatWithdrawn, events.WithdrawalForceMajeure
		}
		comp, err := s.set.Compute(s.m, board.Holding{Objective: line.Objective, Territories: held[i]})
		if err != nil {
			panic(fmt.Sprintf("sim: the embedded board rejects its own deal: %v", err)) // the board is fixed data
		}
		line.Armies = comp.Territories + rng.IntN(2*comp.Territories+3)
		line.ObjectiveArmies = min(line.Armies, comp.ObjectiveTerritories+rng.IntN(comp.ObjectiveTerritories+1))
		if line.Status != events.SeatEliminated {
			line.Cards = rng.IntN(6)
		} else {
			// Eliminated, he has no territory left, nor armies on the board.
			line.Armies, line.ObjectiveArmies = 0, 0
		}
		if line.Status != events.SeatEliminated && rng.Float64() < s.opts.BoardChecked {
			line.TerritoriesHeld = held[i]
		} else {
			line.Objective = 0
			line.TablePoints, line.OffObjectivePoints = ptr(comp.TablePoints), ptr(comp.OffObjectivePoints)
			line.ObjectiveTerritories, line.Territories = ptr(comp.ObjectiveTerritories), ptr(comp.Territories)
		}
		out.Players = append(out.Players, line)
	}
	if winner >= 0 {
		out.Winner = players[winner]
	}
	return out
}

func ptr(v int) *int { return &v }

// Rolls returns a die roll per player, all different, as an arbiter records
// when a table's tie chain runs out.
func Rolls(rng *rand.Rand, players []string) map[string]int {
	faces := rng.Perm(6)
	out := map[string]int{}
	for i, p := range players {
		out[p] = faces[i%6] + 1
	}
	return out
}
