package projections

import (
	"fmt"
	"slices"

	"github.com/referto/referto/events"
)

// Expels reports whether a sanction of this kind puts the player out of the
// tournament: an expulsion always; a disqualification unless the ruleset
// equates the disqualified player to a withdrawn one, who stays (docs/rules.md#10-sanctions,
// rur-2015 art. 29); an offence that also expels then appends its
// expulsion.
func (t *Tournament) Expels(kind events.SanctionKind) bool {
	return kind == events.SanctionExpulsion || kind == events.SanctionDisqualification && t.Ruleset.DisqualificationExpels()
}

// applyKnockout folds renunciations, repechages, withdrawals, revocations,
// annulments and the classification.
func (t *Tournament) applyKnockout(env events.Envelope, ev events.Event, ch *Changes) error {
	switch e := ev.(type) {
	case events.Renounced:
		if _, ok := t.Players[e.Player]; !ok {
			return fmt.Errorf("renunciation of unknown player %s", e.Player)
		}
		if t.Renounced == nil {
			t.Renounced = map[string]events.Phase{}
		}
		if _, done := t.Renounced[e.Player]; !done {
			t.Renounced[e.Player] = e.Phase
		}
		t.Acts = append(t.Acts, Act{Seq: env.Seq, Type: events.TypeRenounced, Players: []string{e.Player}, Phase: e.Phase})
		ch.player(e.Player)
	case events.Repechaged:
		t.Repechages = append(t.Repechages, e)
		concerned := []string{e.Replaces}
		if e.Player != "" {
			concerned = append(concerned, e.Player)
		}
		for _, c := range e.Candidates {
			if !slices.Contains(concerned, c.Player) {
				concerned = append(concerned, c.Player)
			}
		}
		t.Acts = append(t.Acts, Act{Seq: env.Seq, Type: events.TypeRepechaged, Players: concerned, Phase: e.Phase, Round: e.Round})
		if e.Table > 0 && e.Player != "" {
			tb := t.Round(e.Round).Table(e.Table)
			i := -1
			if tb != nil {
				i = slices.Index(tb.Players, e.Replaces)
			}
			if i < 0 || tb.Report != nil {
				return fmt.Errorf("%s is not seated at open table %d of round %d", e.Replaces, e.Table, e.Round)
			}
			tb.Players[i] = e.Player
			tb.TurnOrder = nil
			ch.table(e.Round, e.Table)
		}
		ch.player(e.Player)
	case events.PlayerWithdrew:
		p, ok := t.Players[e.Player]
		if !ok {
			return fmt.Errorf("withdrawal of unknown player %s", e.Player)
		}
		act := Act{Seq: env.Seq, Type: events.TypePlayerWithdrew, Players: []string{e.Player}, Round: e.Round}
		if e.Scope == "tournament" {
			act.Round = t.openRound()
		}
		t.Acts = append(t.Acts, act)
		switch e.Scope {
		case "tournament":
			p.Withdrawn = true
			t.refreshStatus(e.Player)
		case "game":
			tb := t.Round(e.Round).Table(e.Table)
			if tb == nil || !slices.Contains(tb.Players, e.Player) {
				return fmt.Errorf("%s is not seated at table %d of round %d", e.Player, e.Table, e.Round)
			}
			tb.Withdrew = append(tb.Withdrew, e.Player)
			ch.table(e.Round, e.Table)
		default:
			return fmt.Errorf("unknown withdrawal scope %q", e.Scope)
		}
		ch.player(e.Player)
	case events.SanctionRevoked:
		var s *Sanction
		for _, x := range t.Sanctions {
			if x.Sanction == e.Sanction {
				s = x
			}
		}
		if s == nil || s.Revoked {
			return fmt.Errorf("no sanction %s in force", e.Sanction)
		}
		s.Revoked = true
		if err := t.sanctionEffects(s.Player, s.Round, s.Table, s.Kind, ch); err != nil {
			return err
		}
	case events.GameAnnulled:
		tb := t.Round(e.Round).Table(e.Table)
		if tb == nil || tb.Annulled != nil {
			return fmt.Errorf("no table %d in round %d to annul", e.Table, e.Round)
		}
		ann := e
		tb.Annulled = &ann
		ch.table(e.Round, e.Table)
	case events.ClassificationPublished:
		pub := e
		t.Published, t.Imported = &pub, nil
		t.Publications = append(t.Publications, Publication{Seq: env.Seq, At: env.At, Final: e.Final})
	case events.ContestationFiled:
		t.Contestations = append(t.Contestations, &Contestation{ContestationFiled: e, Seq: env.Seq, At: env.At})
	case events.ContestationRuled:
		c := t.Contestation(e.Contestation)
		if c == nil || c.Ruled != nil {
			return fmt.Errorf("no open contestation %s", e.Contestation)
		}
		ruled := e
		c.Ruled = &ruled
	case events.ResultAmended:
		tb := t.Round(e.Round).Table(e.Table)
		if tb == nil {
			return fmt.Errorf("no table %d in round %d", e.Table, e.Round)
		}
		rep := e.ResultRecorded
		if tb.Report == nil {
			tb.Reported, tb.ReportedAt = env.Seq, env.At
		}
		tb.Report, tb.Amended = &rep, env.Seq
		if err := t.score(e.Round, tb); err != nil {
			return err
		}
		ch.table(e.Round, e.Table)
	case events.TournamentClosed:
		t.Closed = true
	default:
		return t.applySelfService(env, ev, ch)
	}
	return nil
}

// sanctionEffects applies (or, after a revocation, undoes) what a sanction
// changes: the player's status and the placement at their table.
func (t *Tournament) sanctionEffects(player string, round, table int, kind events.SanctionKind, ch *Changes) error {
	if _, ok := t.Players[player]; !ok {
		return fmt.Errorf("sanction on unknown player %s", player)
	}
	if t.Expels(kind) {
		t.refreshStatus(player)
	}
	// An expulsion may be the one a disqualification at that table caused,
	// which changes how the disqualified player is placed (ScoringTable).
	if kind == events.SanctionTablePoints || kind == events.SanctionDisqualification || kind == events.SanctionExpulsion {
		if tb := t.Round(round).Table(table); tb != nil && tb.Report != nil {
			if err := t.score(round, tb); err != nil {
				return err
			}
			ch.table(round, table)
		}
	}
	ch.player(player)
	return nil
}

// Expelled reports whether a sanction in force expels the player.
func (t *Tournament) Expelled(player string) bool {
	for _, s := range t.Sanctions {
		if s.Player == player && !s.Revoked && t.Expels(s.Kind) {
			return true
		}
	}
	return false
}

// refreshStatus derives a player's status from expulsions and withdrawal,
// remembering the base status to return to if both are lifted.
func (t *Tournament) refreshStatus(id string) {
	p := t.Players[id]
	if p.Status == events.StatusRefused {
		return
	}
	base := p.Status
	if p.Base != "" {
		base = p.Base
	}
	switch {
	case t.Expelled(id):
		p.Base, p.Status = base, events.StatusExpelled
	case p.Withdrawn:
		p.Base, p.Status = base, events.StatusWithdrawn
	default:
		p.Status, p.Base = base, ""
	}
}

// Contestation returns a filed contestation by id, or nil.
func (t *Tournament) Contestation(id string) *Contestation {
	for _, c := range t.Contestations {
		if c.Contestation == id {
			return c
		}
	}
	return nil
}
