package commands

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// PenaltySpec is the penalty an arbiter sets for a master-ladder second
// warning ("alla seconda ammonizione il giocatore riceve una penalità").
type PenaltySpec struct {
	Kind   events.SanctionKind `json:"kind"`
	Amount int                 `json:"amount"`
}

// ImposeSanction imposes a sanction (docs/rules.md#10-sanctions). The ruleset's regime
// checks it and appends the escalations it triggers in the same commit.
type ImposeSanction struct {
	typed
	Player  string              `json:"player"`
	Round   int                 `json:"round"`
	Table   int                 `json:"table,omitempty"`
	Kind    events.SanctionKind `json:"kind"`
	Amount  int                 `json:"amount,omitempty"`
	Article string              `json:"article"`
	Reason  string              `json:"reason,omitempty"`
	// Offence names the rule breached, from events.Offences, when the
	// ruleset's regime gives that rule consequences of its own (the rur-2015
	// art. 33 ladder, an expulsion that goes with a disqualification). The
	// ledger reads them from this field only, never from Article, which
	// defaults to it.
	Offence string `json:"offence,omitempty"`
	// Penalty is required when the sanction is (or escalates to) a second
	// warning under the master ladder.
	Penalty *PenaltySpec `json:"penalty,omitempty"`
}

func (*ImposeSanction) CommandType() string { return "ImposeSanction" }

func (c *ImposeSanction) Check() error {
	errs := []error{checkID("player", c.Player), checkRound(c.Round), checkText("article", c.Article, 200, c.Offence == ""),
		checkText("reason", c.Reason, maxReason, false)}
	if c.Offence != "" && !slices.Contains(events.Offences(), c.Offence) {
		errs = append(errs, fieldErr("offence", "must be one of %s, not %q", strings.Join(events.Offences(), ", "), c.Offence))
	}
	if c.Table != 0 {
		errs = append(errs, checkTable(c.Table))
	}
	if !slices.Contains(events.SanctionKinds(), c.Kind) {
		errs = append(errs, fieldErr("kind", "must be one of %s", events.Join(events.SanctionKinds(), ", ")))
	}
	points := c.Kind.Points()
	switch {
	case points && (c.Amount < 1 || c.Amount > 10_000):
		errs = append(errs, fieldErr("amount", "a %s sanction needs an amount between 1 and 10000", c.Kind))
	case !points && c.Amount != 0:
		errs = append(errs, fieldErr("amount", "only table_points and classification_points sanctions carry an amount"))
	}
	if c.Kind == events.SanctionDisqualification && c.Table == 0 {
		errs = append(errs, fieldErr("table", "a disqualification is from a game: name the table"))
	}
	if c.Kind == events.SanctionTablePoints && c.Table == 0 {
		errs = append(errs, fieldErr("table", "a table-points penalty lowers the table points of one game: name the table"))
	}
	if p := c.Penalty; p != nil && (!p.Kind.Points() || p.Amount < 1 || p.Amount > 10_000) {
		errs = append(errs, fieldErr("penalty", "a table_points or classification_points penalty with an amount"))
	} else if p != nil && p.Kind == events.SanctionTablePoints && c.Table == 0 {
		errs = append(errs, fieldErr("table", "the penalty lowers the table points of one game: name the table, or choose a classification_points penalty"))
	}
	return errors.Join(errs...)
}

func (c *ImposeSanction) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	p, ok := t.Players[c.Player]
	if !ok {
		return nil, notFound("player %s", c.Player)
	}
	if p.Status == events.StatusExpelled {
		return nil, conflict("%s is already expelled", c.Player)
	}
	if c.Round > len(t.Rounds)+1 {
		return nil, ruleErr("docs/rules.md#10-sanctions", "round %d has not begun", c.Round)
	}
	if c.Table != 0 {
		tb := t.Round(c.Round).Table(c.Table)
		if tb == nil || !slices.Contains(tb.Players, c.Player) {
			return nil, fieldErr("table", "%s is not seated at table %d of round %d", c.Player, c.Table, c.Round)
		}
		if tb.Report != nil && c.Kind != events.SanctionTablePoints && c.Kind != events.SanctionDisqualification && c.Kind != events.SanctionClassificationPoints && c.Kind != events.SanctionExpulsion && c.Kind != events.SanctionReminder && c.Kind != events.SanctionWarning {
			return nil, ruleErr("docs/rules.md#10-sanctions", "the game at table %d is over: a %s can no longer be applied at the table", c.Table, c.Kind)
		}
	}
	if c.Offence != "" && !slices.Contains(t.Ruleset.Sanctions.Offences(), c.Offence) {
		return nil, fieldErr("offence", "%s has no consequences of its own under this tournament's %s sanction regime: leave offence empty and cite the article",
			c.Offence, t.Ruleset.Sanctions)
	}
	article := clean(c.Article)
	if article == "" {
		article = c.Offence
	}
	first := events.SanctionImposed{Sanction: nextSanctionID(t, 0), Player: c.Player, Round: c.Round, Table: c.Table,
		Kind: c.Kind, Amount: c.Amount, Article: article, Reason: clean(c.Reason), Offence: c.Offence}
	evs, err := regimeOf(t.Ruleset).impose(t, c, first)
	if err != nil {
		return nil, err
	}
	// An expulsion frees a qualifier's place: the repechage follows at once.
	for _, ev := range evs {
		if s, ok := ev.(events.SanctionImposed); ok && t.Expels(s.Kind) {
			more, err := vacate(t, c.Player)
			if err != nil {
				return nil, err
			}
			return append(evs, more...), nil
		}
	}
	return evs, nil
}

// vacate runs the repechage for a player leaving the tournament while
// qualified for the next knockout phase.
func vacate(t *projections.Tournament, player string) ([]events.Event, error) {
	ph := nextPhase(t)
	if ph == "" || !anyKnockoutDrawn(t) && len(t.Rounds) <= t.Ruleset.QualifyingRounds && !qualifiesByCut(t, player) {
		return nil, nil
	}
	effect, more, err := replaceQualifier(t, ph, player)
	if err != nil || effect == "cut_recomputed" || effect == "recorded" {
		return nil, nil
	}
	return more, nil
}

// RevokeSanction withdraws a sanction by ruling, and the escalations it caused.
type RevokeSanction struct {
	typed
	Sanction string `json:"sanction"`
	Ruling   string `json:"ruling"`
}

func (*RevokeSanction) CommandType() string { return "RevokeSanction" }

func (c *RevokeSanction) Check() error {
	return errors.Join(checkRequired("sanction", c.Sanction), checkText("ruling", c.Ruling, maxReason, true))
}

func (c *RevokeSanction) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	var target *projections.Sanction
	for _, s := range t.Sanctions {
		if s.Sanction == c.Sanction {
			target = s
		}
	}
	if target == nil {
		return nil, notFound("sanction %s", c.Sanction)
	}
	if target.Revoked {
		return nil, conflict("sanction %s is already revoked", c.Sanction)
	}
	out := []events.Event{events.SanctionRevoked{Sanction: c.Sanction, Ruling: clean(c.Ruling)}}
	revoked := map[string]bool{c.Sanction: true}
	// Escalations caused by it fall with it, transitively; then the ladder
	// is recounted and automatic escalations no longer due fall too. An
	// automatic sanction with no cause (a lateness penalty, the expulsion
	// of a withdrawal) climbs no ladder and stands.
	for changed := true; changed; {
		changed = false
		for _, s := range t.Sanctions {
			if s.Revoked || revoked[s.Sanction] || !s.Automatic || s.Cause == "" {
				continue
			}
			why := ""
			switch {
			case revoked[s.Cause]:
				why = fmt.Sprintf("escalation of revoked sanction %s", s.Cause)
			case !regimeOf(t.Ruleset).due(t, s, revoked):
				why = fmt.Sprintf("no longer due once %s is revoked", c.Sanction)
			}
			if why != "" {
				revoked[s.Sanction], changed = true, true
				out = append(out, events.SanctionRevoked{Sanction: s.Sanction, Ruling: why})
			}
		}
	}
	return out, nil
}
