package scoring

import (
	"errors"
	"fmt"
	"sort"

	"github.com/referto/referto/events"
)

// ErrInvalidReport is what every [FieldError] wraps: the table report breaks a rule of
// docs/rules.md#3-table-report-referto to #4-placement-at-a-table and must be refused.
var ErrInvalidReport = errors.New("scoring: invalid table report")

// FieldError is one problem of a table report.
type FieldError struct {
	// Field is the JSON path in the RecordResult payload, e.g. "players[2].turn",
	// "winner", "risiko"; penalties and rolls are "penalties.<player>" and
	// "rolls.<player>".
	Field string
	// Msg says, in English, what is wrong and what is allowed.
	Msg string
	// Rule is the rule cited, e.g. "docs/rules.md#3-table-report-referto" or "rur-2015 art. 31"; it may be empty.
	Rule string
}

// Error returns "scoring: <field>: <msg> (<rule>)".
func (e *FieldError) Error() string {
	if e.Rule == "" {
		return fmt.Sprintf("scoring: %s: %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("scoring: %s: %s (%s)", e.Field, e.Msg, e.Rule)
}

// Unwrap returns ErrInvalidReport.
func (e *FieldError) Unwrap() error { return ErrInvalidReport }

// Table sizes (docs/rules.md#1-glossary: "a table of 3–5 players").
const (
	MinPlayers = 3
	MaxPlayers = 5
)

// Validate checks a table report field by field (docs/rules.md#3-table-report-referto and the placement rules of
// §4) without knowing the draw: every problem is reported, joined with errors.Join,
// each as a *FieldError. It returns nil for a valid report.
//
// It checks: 3 to 5 seats; every player named once; turn orders a permutation of 1..n;
// table points and the other counts not negative, and the objective part of territories
// and armies not above the whole; a known status; elimination orders 1..k without gaps
// on the eliminated players only; 0 table points for an eliminated player; at least one
// player finished; the winner, if named, seated, finished and (without risiko) not
// behind another player still in the game in recorded table points (a withdrawn
// player is in it unless r's formula has him leave the game, as conv2003 does); risiko only with
// a winner; penalties positive and on seated players; rolls 1..6 and on seated players.
// Whether the table exists in the draw and has no result yet is the command's business.
func Validate(r Rules, t Table) error {
	n := len(t.Players)
	v := &validation{t: t, n: n, leave: formulas[r.Formula].withdrawnLeave && r.Edition != Edition1,
		seated: make(map[string]int, n), turns: make(map[int]int, n), orders: make(map[int]int, n)}
	if n < MinPlayers || n > MaxPlayers {
		v.add("players", "docs/rules.md#1-glossary", "a table seats %d to %d players, the report has %d", MinPlayers, MaxPlayers, n)
	}
	for _, s := range t.Players {
		if s.Status == events.SeatEliminated {
			v.eliminated++
		}
	}
	for i, s := range t.Players {
		f := func(name string) string { return fmt.Sprintf("players[%d].%s", i, name) }
		v.identity(i, s, f)
		v.figures(s, f)
		v.status(i, s, f)
	}
	if n > 0 && v.finished == 0 {
		v.add("players", "docs/rules.md#3-table-report-referto", "nobody finished the game; at least one player is finished")
	}
	v.winner()
	v.penaltiesAndRolls()
	return errors.Join(v.errs...)
}

// validation is a table report being checked: the problems found so far,
// and what the seats checked so far hold.
type validation struct {
	t     Table
	n     int
	leave bool // a withdrawn player leaves the game (Rules' formula)
	errs  []error
	// seated, turns and orders give the seat that named each player, turn
	// and elimination order first.
	seated               map[string]int
	turns, orders        map[int]int
	eliminated, finished int
}

func (v *validation) add(field, rule, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...), Rule: rule})
}

// identity checks that seat i names its player and turn once.
func (v *validation) identity(i int, s Seat, f func(string) string) {
	switch j, dup := v.seated[s.Player]; {
	case s.Player == "":
		v.add(f("player"), "docs/rules.md#3-table-report-referto", "player is empty; every seat names its player")
	case dup:
		v.add(f("player"), "docs/rules.md#3-table-report-referto", "player %q already appears at players[%d]; every seated player appears exactly once", s.Player, j)
	default:
		v.seated[s.Player] = i
	}
	switch j, dup := v.turns[s.Turn]; {
	case s.Turn < 1 || s.Turn > v.n:
		v.add(f("turn"), "docs/rules.md#3-table-report-referto", "turn %d is out of range; turn orders are a permutation of 1..%d", s.Turn, v.n)
	case dup:
		v.add(f("turn"), "docs/rules.md#3-table-report-referto", "turn %d is also players[%d]'s; turn orders are a permutation of 1..%d", s.Turn, j, v.n)
	default:
		v.turns[s.Turn] = i
	}
}

// figures checks that a seat's counts are not negative, and the armies on
// objective territories not above the armies. (Objective territories above
// the territories held are a board bound, checked by the ledger where a
// proposal is flagged rather than refused: commands.boardBounds.)
func (v *validation) figures(s Seat, f func(string) string) {
	if s.TablePoints < 0 {
		v.add(f("table_points"), "docs/rules.md#3-table-report-referto", "table points %d are negative; they must be 0 or more", s.TablePoints)
	}
	for _, c := range []struct {
		name string
		v    int
	}{
		{"off_objective_points", s.OffObjectivePoints},
		{"objective_territories", s.ObjectiveTerritories},
		{"territories", s.Territories},
		{"armies", s.Armies},
		{"objective_armies", s.ObjectiveArmies},
		{"cards", s.Cards},
	} {
		if c.v < 0 {
			v.add(f(c.name), "docs/rules.md#3-table-report-referto", "%s is %d; it must be 0 or more", c.name, c.v)
		}
	}
	if s.Armies > 0 && s.ObjectiveArmies > s.Armies {
		v.add(f("objective_armies"), "docs/rules.md#3-table-report-referto", "armies on objective territories %d exceed the %d armies", s.ObjectiveArmies, s.Armies)
	}
}

// status checks seat i's status, and the table points and elimination
// order it allows.
func (v *validation) status(i int, s Seat, f func(string) string) {
	switch s.Status {
	case events.SeatFinished:
		v.finished++
	case events.SeatWithdrawn, events.SeatDisqualified:
	case events.SeatEliminated:
		if s.TablePoints != 0 {
			v.add(f("table_points"), "docs/rules.md#3-table-report-referto", "an eliminated player has 0 table points, not %d", s.TablePoints)
		}
		switch j, dup := v.orders[s.EliminatedOrder]; {
		case s.EliminatedOrder < 1 || s.EliminatedOrder > v.eliminated:
			v.add(f("eliminated_order"), "docs/rules.md#3-table-report-referto", "elimination order %d is out of range; the %d eliminated players are numbered 1..%d without gaps", s.EliminatedOrder, v.eliminated, v.eliminated)
		case dup:
			v.add(f("eliminated_order"), "docs/rules.md#3-table-report-referto", "elimination order %d is also players[%d]'s; the eliminated players are numbered 1..%d without gaps", s.EliminatedOrder, j, v.eliminated)
		default:
			v.orders[s.EliminatedOrder] = i
		}
	default:
		v.add(f("status"), "docs/rules.md#3-table-report-referto", "status %q is unknown; it is one of finished, eliminated, withdrawn, disqualified", s.Status)
	}
	if s.Status != events.SeatEliminated && s.EliminatedOrder != 0 {
		v.add(f("eliminated_order"), "docs/rules.md#3-table-report-referto", "only an eliminated player has an elimination order; this player is %s", s.Status)
	}
}

// winner checks the named winner: seated, finished and, without risiko,
// not behind another player still in the game; and risiko only with one.
func (v *validation) winner() {
	t := v.t
	if t.Winner != "" {
		i, ok := v.seated[t.Winner]
		switch {
		case !ok:
			v.add("winner", "docs/rules.md#3-table-report-referto", "winner %q is not seated at this table", t.Winner)
		case t.Players[i].Status != events.SeatFinished:
			v.add("winner", "docs/rules.md#3-table-report-referto", "winner %q is %s; the winner is a finished player", t.Winner, t.Players[i].Status)
		case !t.Risiko:
			w := t.Players[i]
			for j, s := range t.Players {
				if (s.Status == events.SeatFinished || s.Status == events.SeatWithdrawn && !v.leave) && s.TablePoints > w.TablePoints {
					v.add("winner", "docs/rules.md#4-placement-at-a-table", "winner %q has %d table points but players[%d] (%q) has %d; without risiko the winner is the player placed first by table points", t.Winner, w.TablePoints, j, s.Player, s.TablePoints)
					break
				}
			}
		}
	}
	if t.Risiko && t.Winner == "" {
		v.add("risiko", "docs/rules.md#3-table-report-referto", "risiko is set but no winner is named; risiko implies the winner")
	}
}

// penaltiesAndRolls checks that penalties are positive and rolls 1..6, each
// on a seated player.
func (v *validation) penaltiesAndRolls() {
	for _, p := range sortedKeys(v.t.Penalties) {
		if _, ok := v.seated[p]; !ok {
			v.add("penalties."+p, "docs/rules.md#10-sanctions", "penalty for %q, who is not seated at this table", p)
		}
		if x := v.t.Penalties[p]; x <= 0 {
			v.add("penalties."+p, "docs/rules.md#10-sanctions", "table-points penalty %d must be positive", x)
		}
	}
	for _, p := range sortedKeys(v.t.Rolls) {
		if _, ok := v.seated[p]; !ok {
			v.add("rolls."+p, "docs/rules.md#4-placement-at-a-table", "die roll for %q, who is not seated at this table", p)
		}
		if x := v.t.Rolls[p]; x < 1 || x > 6 {
			v.add("rolls."+p, "docs/rules.md#4-placement-at-a-table", "die roll %d must be 1 to 6", x)
		}
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
