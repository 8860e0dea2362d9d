package commands

import (
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// PublishClassification publishes the classification (docs/rules.md#7-formats-and-the-rur-knockout). It is
// refused while a table has no result or a tie awaits a die roll; a final
// publication also needs every phase of the format played.
type PublishClassification struct {
	typed
	Final bool `json:"final"`
	// Standings, in a tournament imported from a club workbook, are the
	// file's published standings: the classification is published as the
	// file has it, marked as imported, with the rows the ruleset's
	// computation disagrees on (ClassificationImported; docs/workbook.md).
	Standings []StandingRow `json:"standings,omitempty"`
	// Checkpoint is set by the server: the signed checkpoint of the log the
	// classification was derived from.
	Checkpoint string `json:"-"`
}

func (*PublishClassification) CommandType() string { return "PublishClassification" }

func (c *PublishClassification) Check() error { return checkStandings(c.Standings) }

func (c *PublishClassification) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if t.Published != nil && t.Published.Final {
		return nil, conflict("the final classification is already published (seq %d of the log is its source)", t.Seq)
	}
	if len(c.Standings) > 0 {
		return c.importClassification(t)
	}
	cl := t.Classification()
	if len(cl.Open) > 0 {
		return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "tables without a result: %s", strings.Join(cl.Open, "; "))
	}
	if cl.Unresolved {
		var tied []string
		for _, g := range t.ClassificationTieGroups() {
			tied = append(tied, strings.Join(g, "/"))
		}
		return nil, ruleErr(dieRule(t.Ruleset), "ties awaiting a die roll: %s", strings.Join(tied, "; "))
	}
	if c.Final {
		if played := len(t.Rounds); played < t.Ruleset.QualifyingRounds+len(knockoutPhases(t)) {
			return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "the format has %d qualifying rounds and the %v; %d rounds played",
				t.Ruleset.QualifyingRounds, knockoutPhases(t), played)
		}
	}
	ev := events.ClassificationPublished{Final: c.Final, Expelled: cl.Expelled, Checkpoint: c.Checkpoint}
	for _, r := range cl.Rows {
		ev.Rows = append(ev.Rows, r.Published())
	}
	return []events.Event{ev}, nil
}

// CloseTournament ends the tournament after the final classification.
type CloseTournament struct {
	typed
	Reason string `json:"reason,omitempty"`
}

func (*CloseTournament) CommandType() string { return "CloseTournament" }

func (c *CloseTournament) Check() error { return checkText("reason", c.Reason, maxReason, false) }

func (c *CloseTournament) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if t.Published == nil || !t.Published.Final {
		return nil, ruleErr("docs/rules.md#7-formats-and-the-rur-knockout", "publish the final classification before closing the tournament")
	}
	return []events.Event{events.TournamentClosed{Reason: clean(c.Reason)}}, nil
}
