package scoring

import (
	"slices"
	"strconv"

	"github.com/referto/referto/events"
)

// Settlement says how two rows with the same standing before the tie-breaks
// were put in order: which rule of the chain told them apart, and what each
// had by that rule (docs/rules.md#6-standings).
type Settlement struct {
	// Rule is the step that decided: wins, medals (Place: the place whose
	// count differed), best_score (the best scores differ), scores (a later
	// score differs, the lists compared; edition 1: the lists) and earlier
	// (a score obtained in an earlier round) of the rur-2015 art. 1 chain,
	// cirki_wins, cirki_games, cirki_out and cirki_others_out (cirki-2001
	// §14), or roll (a die roll: Roll is its index among the rolls given).
	Rule string `json:"rule"`
	// Source is where the rule comes from: StandingsRules.Source, or for
	// a roll StandingsRules.RollSource.
	Source string `json:"source"`
	// Above and Below are what the row ranked higher and the row ranked
	// lower had by Rule.
	Above string `json:"above"`
	Below string `json:"below"`
	Place int    `json:"place,omitempty"`
	Roll  int    `json:"-"`
}

// Explain tells how above came to rank right before below, when both have
// the same standing by their totals (and wins, for the formulas ranking by
// wins first), neither awaits a roll, and the chain or a die separated
// them. ok is false when the totals alone decided, or nothing did.
func Explain(r StandingsRules, above, below Row, rolls []Roll) (s Settlement, ok bool) {
	if above.TieUnresolved || below.TieUnresolved {
		return Settlement{}, false
	}
	byWins := r.Formula == events.FormulaWins || r.Formula == events.FormulaTriestino || r.Formula == events.FormulaMedals
	if !byWins && above.Total != below.Total {
		return Settlement{}, false // the totals decided: the common case, at no cost
	}
	a, b := keysOf(above), keysOf(below)
	switch r.Formula {
	case events.FormulaWins, events.FormulaTriestino:
		if a.wins != b.wins {
			return Settlement{Rule: "wins", Source: "rtu", Above: itoa(a.wins), Below: itoa(b.wins)}, true
		}
		if above.Total != below.Total {
			return Settlement{}, false
		}
	case events.FormulaMedals:
		for k := range max(len(a.medals), len(b.medals)) {
			if at(a.medals, k) != at(b.medals, k) {
				return Settlement{Rule: "medals", Source: "rtu", Place: k + 1, Above: itoa(at(a.medals, k)), Below: itoa(at(b.medals, k))}, true
			}
		}
	default:
		if above.Total != below.Total {
			return Settlement{}, false
		}
	}
	switch {
	case r.Tiebreak == events.TiebreakCirki:
		for _, step := range []struct {
			rule         string
			above, below int
		}{{"cirki_wins", a.wins, b.wins}, {"cirki_games", len(above.Games), len(below.Games)},
			{"cirki_out", a.elims, b.elims}, {"cirki_others_out", a.outWon, b.outWon}} {
			if step.above != step.below {
				return Settlement{Rule: step.rule, Source: r.chainSource(), Above: itoa(step.above), Below: itoa(step.below)}, true
			}
		}
	case r.Edition == Edition1:
		if c := cmpRURStandingsEdition1(a, b); c != 0 {
			return Settlement{Rule: "scores", Source: r.chainSource(), Above: scoresText(a.scores), Below: scoresText(b.scores)}, true
		}
	case r.Edition == Edition2:
		if len(a.scores) > 0 && len(b.scores) > 0 {
			if a.scores[0] != b.scores[0] {
				return Settlement{Rule: "best_score", Source: r.chainSource(), Above: pointsText(a.scores[0]), Below: pointsText(b.scores[0])}, true
			}
			if a.rounds[0] != b.rounds[0] {
				return Settlement{Rule: "earlier", Source: r.chainSource(), Above: itoa(a.rounds[0]), Below: itoa(b.rounds[0])}, true
			}
		}
	default:
		// The step that told them apart: the best score, a later score
		// (the lists compared), or the round a score was obtained in.
		for k := range min(len(a.scores), len(b.scores)) {
			switch {
			case a.scores[k] != b.scores[k] && k == 0:
				return Settlement{Rule: "best_score", Source: r.chainSource(), Above: pointsText(a.scores[0]), Below: pointsText(b.scores[0])}, true
			case a.scores[k] != b.scores[k]:
				return Settlement{Rule: "scores", Source: r.chainSource(), Above: scoresText(a.scores), Below: scoresText(b.scores)}, true
			case a.rounds[k] != b.rounds[k]:
				return Settlement{Rule: "earlier", Source: r.chainSource(), Above: itoa(a.rounds[k]), Below: itoa(b.rounds[k])}, true
			}
		}
		if len(a.scores) != len(b.scores) && len(a.scores) > 0 && len(b.scores) > 0 {
			return Settlement{Rule: "scores", Source: r.chainSource(), Above: scoresText(a.scores), Below: scoresText(b.scores)}, true
		}
	}
	// The die: the last roll that gave both a value, and differs.
	for k := len(rolls) - 1; k >= 0; k-- {
		ra, oka := rollOf(rolls[k], above.Player)
		rb, okb := rollOf(rolls[k], below.Player)
		if oka && okb && ra != rb {
			return Settlement{Rule: "roll", Source: r.rollSource(), Above: itoa(ra), Below: itoa(rb), Roll: k}, true
		}
	}
	return Settlement{}, false
}

// keysOf computes a row's comparison keys as Rank does.
func keysOf(r Row) *standing {
	s := &standing{row: Row{Player: r.Player, Games: slices.Clone(r.Games)}}
	s.tally(0)
	return s
}

func rollOf(r Roll, player string) (int, bool) {
	if len(r.Players) != len(r.Rolls) {
		return 0, false
	}
	i := slices.Index(r.Players, player)
	if i < 0 {
		return 0, false
	}
	return r.Rolls[i], true
}

func itoa(n int) string { return strconv.Itoa(n) }

// pointsText renders a score in hundredths as the views do: 112, 86.5.
func pointsText(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	s := sign + strconv.FormatInt(v/100, 10)
	if f := v % 100; f != 0 {
		d := strconv.FormatInt(f+100, 10)[1:]
		if d[1] == '0' {
			d = d[:1]
		}
		s += "." + d
	}
	return s
}

func scoresText(scores []int64) string {
	out := make([]string, len(scores))
	for i, v := range scores {
		out[i] = pointsText(v)
	}
	return joinComma(out)
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
