package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// The sanction regimes of RULES.md §10, one per ruleset "sanctions" value.
// Each checks a sanction against its rules and returns it with the
// escalations it triggers, all appended in one commit.
type sanctionRegime interface {
	impose(t *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error)
	// due reports whether an automatic escalation is still justified when
	// the sanctions in revoked no longer count.
	due(t *projections.Tournament, s *projections.Sanction, revoked map[string]bool) bool
}

// noLadder is embedded by regimes without automatic escalations.
type noLadder struct{}

func (noLadder) due(*projections.Tournament, *projections.Sanction, map[string]bool) bool {
	return true
}

func regime(id string) sanctionRegime {
	switch id {
	case "master":
		return masterLadder{}
	case "2003":
		return bounds2003{}
	case "rur":
		return rurArt33{}
	}
	return arbiterOnly{}
}

// arbiterOnly (cirki-2001 §15): the arbiter's authority decides; nothing
// beyond the general checks.
type arbiterOnly struct{ noLadder }

func (arbiterOnly) impose(_ *projections.Tournament, _ *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	return []events.Event{s}, nil
}

// bounds2003 (campionato-2003 "PENALITA'"): "una penalità da un minimo da
// –10 punti ad un massimo di –150 punti per la classifica generale ed
// invece da - 7 punti a - 25 per i punti tavolo".
type bounds2003 struct{ noLadder }

const rule2003 = "campionato-2003 §penalità"

func (bounds2003) impose(_ *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	switch {
	case c.Kind == "classification_points" && (c.Amount < 10 || c.Amount > 150):
		return nil, ruleErr(rule2003, "a classification penalty is 10 to 150 points, not %d", c.Amount)
	case c.Kind == "table_points" && (c.Amount < 7 || c.Amount > 25):
		return nil, ruleErr(rule2003, "a table-points penalty is 7 to 25 points, not %d", c.Amount)
	}
	return []events.Event{s}, nil
}

// rurArt33 (rur-2015 art. 33): agreements, advice, threats, anger and
// blasphemy are sanctioned in succession within a game: the first time a
// verbal warning (a reminder), the second time the loss of cards or armies,
// the third time exclusion from the game and expulsion from the tournament.
// Other rur-2015 sanctions are the arbiters' (art. 16-19).
type rurArt33 struct{ noLadder }

const ruleArt33 = "rur-2015 art. 33"

func (rurArt33) impose(t *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	if !strings.Contains(c.Article, "art. 33") {
		return []events.Event{s}, nil
	}
	if c.Table == 0 {
		return nil, fieldErr("table", "rur-2015 art. 33 counts offences at one game: name the table")
	}
	n := 1
	for _, x := range t.Sanctions {
		if !x.Revoked && x.Player == c.Player && x.Round == c.Round && x.Table == c.Table && strings.Contains(x.Article, "art. 33") {
			n++
		}
	}
	want := map[int][]string{1: {"reminder"}, 2: {"card_loss", "army_loss"}}[n]
	if n >= 3 {
		want = []string{"disqualification"}
	}
	if !slices.Contains(want, c.Kind) {
		return nil, ruleErr(ruleArt33, "offence %d of %s at this game is sanctioned with %s, not %s", n, c.Player, strings.Join(want, " or "), c.Kind)
	}
	return []events.Event{s}, nil
}

// masterLadder (Tornei Master, "Richiamo", "Ammonizione", "Penalità"):
// the third reminder becomes a warning; warnings last the whole tournament;
// the second warning carries a penalty in table or classification points;
// the third expels. A classification penalty is at most 25% of the points
// available in that round; in knockout games disqualification is the only
// sanction allowed.
type masterLadder struct{}

const ruleMaster = "master §penalità"

func (masterLadder) impose(t *projections.Tournament, c *ImposeSanction, s events.SanctionImposed) ([]events.Event, error) {
	if r := t.Round(c.Round); r != nil && r.Phase != projections.PhaseQualifying && c.Kind != "disqualification" {
		return nil, ruleErr(ruleMaster, "in knockout games (the %s) disqualification is the only sanction", describePhase(r.Phase))
	}
	capOf := func(amount int) error {
		limit := maxRoundPoints(t.Ruleset.Scoring) / 4
		if int64(amount)*100 > limit {
			return ruleErr(ruleMaster, "a classification penalty is at most 25%% of the points available in the round (%s of %s under %s), not %d",
				projections.Points(limit), projections.Points(maxRoundPoints(t.Ruleset.Scoring)), t.Ruleset.Scoring, amount)
		}
		return nil
	}
	if c.Kind == "classification_points" {
		if err := capOf(c.Amount); err != nil {
			return nil, err
		}
	}
	out := []events.Event{s}
	count := func(kind string) int {
		n := 0
		for _, x := range t.Sanctions {
			if !x.Revoked && x.Player == c.Player && x.Kind == kind {
				n++
			}
		}
		return n
	}
	k := 1
	next := func(kind, article, reason string, amount int) events.SanctionImposed {
		e := events.SanctionImposed{Sanction: nextSanctionID(t, k), Player: c.Player, Round: c.Round, Table: c.Table,
			Kind: kind, Amount: amount, Article: article, Reason: reason, Automatic: true, Cause: s.Sanction}
		k++
		return e
	}
	warning := c.Kind == "warning"
	if c.Kind == "reminder" && (count("reminder")+1)%3 == 0 {
		w := next("warning", ruleMaster+" (richiamo)", fmt.Sprintf("reminder %d: every third reminder is a warning", count("reminder")+1), 0)
		out = append(out, w)
		s = w
		warning = true
	}
	if warning {
		switch warnings := count("warning") + 1; warnings {
		case 2:
			if c.Penalty == nil {
				return nil, &FieldError{Field: "penalty", Rule: ruleMaster, Msg: fmt.Sprintf("this is %s's second warning, which carries a penalty: give penalty.kind (table_points or classification_points) and penalty.amount", c.Player)}
			}
			if c.Penalty.Kind == "classification_points" {
				if err := capOf(c.Penalty.Amount); err != nil {
					return nil, err
				}
			}
			pen := next(c.Penalty.Kind, ruleMaster+" (ammonizione)", "second warning", c.Penalty.Amount)
			pen.Cause = s.Sanction
			out = append(out, pen)
		case 3:
			exp := next("expulsion", ruleMaster+" (ammonizione)", "third warning", 0)
			exp.Cause = s.Sanction
			out = append(out, exp)
		}
	}
	return out, nil
}

// due recounts the ladder up to an escalation's cause: a warning from a
// reminder needs that reminder to be a third one; a penalty needs its
// warning to be the second; an expulsion, the third.
func (masterLadder) due(t *projections.Tournament, s *projections.Sanction, revoked map[string]bool) bool {
	reminders, warnings := 0, 0
	for _, x := range t.Sanctions {
		if x.Player != s.Player || x.Revoked || revoked[x.Sanction] {
			continue
		}
		switch x.Kind {
		case "reminder":
			reminders++
		case "warning":
			warnings++
		}
		if x.Sanction != s.Cause {
			continue
		}
		switch {
		case s.Kind == "warning":
			return x.Kind == "reminder" && reminders%3 == 0
		case s.Kind == "expulsion":
			return x.Kind == "warning" && warnings == 3
		default: // the penalty of a second warning
			return x.Kind == "warning" && warnings == 2
		}
	}
	return false
}

// maxRoundPoints is the most one player can score in one game under a
// formula, in hundredths: the "points available in that round" of the
// master 25% cap (pinned reading).
func maxRoundPoints(formula string) int64 {
	switch formula {
	case "tp_bonus", "wins":
		return 15000 // a RisiKo! scores 150
	case "conv150":
		return 15100
	case "conv200", "conv2003":
		return 20100
	case "standard":
		return 1300
	case "faentino":
		return 11000
	case "spartaco", "veronese":
		return 18600
	case "maialino":
		return 10300 // 86/2 + 60
	case "triestino":
		return 50000
	case "cirki":
		return 300
	}
	return 0
}
