package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/referto/referto/events"
)

// The event log, as the appeals committee reads it: each event a line of
// the tournament's record, in the page's language, with the names of the
// people it concerns and the figures of the command that made it, never
// its JSON.

// record is one event of the log as the page shows it.
type record struct {
	Seq uint64
	At  time.Time
	// Who made it: an official by name and role, a player by name, the
	// ledger on its own.
	Who string
	// What is the event's name; Text what it says; Lines its figures, one
	// a line (a table's report, a draw's tables).
	What, Text string
	Lines      []string
}

// officialNames are the appointed officials' names and roles, by id.
type officialNames map[string]struct{ Name, Role string }

// records says envs as the log's lines.
func (p *page) records(envs []events.Envelope, officials officialNames) []record {
	out := make([]record, 0, len(envs))
	for _, env := range envs {
		out = append(out, p.record(env, officials))
	}
	return out
}

func (p *page) record(env events.Envelope, officials officialNames) record {
	ev, err := events.Decode(env)
	if err != nil {
		r := p.recordHead(env, officials)
		r.Text = tr(p.Lang, "ev_unreadable")
		return r
	}
	return p.recordOf(env, ev, officials)
}

// recordHead is what a record says of env's header: its seq, time, who
// and what.
func (p *page) recordHead(env events.Envelope, officials officialNames) record {
	r := record{Seq: env.Seq, At: env.At, Who: p.actor(env.Actor, officials), What: tr(p.Lang, "ev_"+env.Type)}
	if !hasLabel("ev_" + env.Type) {
		r.What = tr(p.Lang, "ev_unknown")
	}
	return r
}

// recordOf is the record of ev, decoded already, under env's header (its
// Data is not read).
func (p *page) recordOf(env events.Envelope, ev events.Event, officials officialNames) record {
	r := p.recordHead(env, officials)
	f := func(key string, args ...any) string { return trf(p.Lang, key, args...) }
	n := p.Name
	switch e := ev.(type) {
	case events.TournamentCreated:
		r.Text = f("rec_created", e.Name, string(e.Ruleset.Preset))
		for _, row := range p.Params(e.Ruleset) {
			r.Lines = append(r.Lines, row.Label+": "+row.Value)
		}
	case events.RulesetAmended:
		r.Text = f("rec_ruleset_amended", p.Say(e.Reason))
		for _, row := range p.Params(e.Ruleset) {
			r.Lines = append(r.Lines, row.Label+": "+row.Value)
		}
	case events.OfficialAppointed:
		r.Text = f("rec_appointed", e.Name, tr(p.Lang, e.Role))
	case events.PlayerRegistered:
		r.Text = f("rec_registered", e.Name, e.Player)
		for _, s := range []string{e.Club, e.Region} {
			if s != "" {
				r.Text += " · " + s
			}
		}
		if e.NationalID != "" {
			r.Text += " · " + tr(p.Lang, "national_id") + " " + e.NationalID
		}
		if e.Minor {
			r.Text += " · " + f("rec_minor", e.Waiver)
		}
	case events.RegistrationRefused:
		r.Text = f("rec_refused", cmpOr(e.Name, n(e.Player)), e.Reason)
	case events.RegistrationClosed:
		r.Text = f("rec_registration_closed")
	case events.ReserveDesignated:
		r.Text = f("rec_reserve", cmpOr(e.Name, n(e.Player)))
	case events.PlayerCheckedIn:
		switch {
		case e.Absent:
			r.Text = f("rec_absent", n(e.Player), e.Round)
		case !e.Admitted:
			r.Text = f("rec_late_refused", n(e.Player), e.Round, e.MinutesLate, ruleText(p.Lang, e.Rule))
		case e.MinutesLate > 0:
			r.Text = f("rec_late", n(e.Player), e.Round, e.MinutesLate)
		default:
			r.Text = f("rec_present", n(e.Player), e.Round)
		}
	case events.ReserveSubstituted:
		r.Text = f("rec_substituted", n(e.Reserve), n(e.Absent), e.Round)
	case events.TablesDrawn:
		r.Text = f("rec_drawn", e.Round, tr(p.Lang, string(e.Phase)), len(e.Tables), e.Seed)
		if e.Algorithm == "manual" {
			r.Text = f("rec_drawn_by_hand", e.Round, tr(p.Lang, string(e.Phase)), len(e.Tables))
		}
		for _, tb := range e.Tables {
			r.Lines = append(r.Lines, tr(p.Lang, "table")+" "+strconv.Itoa(tb.Table)+": "+p.Names(tb.Players))
		}
		if len(e.ReservesSeated) > 0 {
			r.Lines = append(r.Lines, f("rec_reserves_seated", p.Names(e.ReservesSeated)))
		}
		for _, u := range e.Unmet {
			r.Lines = append(r.Lines, p.Unmet(u))
		}
	case events.TurnOrderSet:
		r.Text = f("rec_turn_order", e.Table, e.Round, p.Names(e.Order))
	case events.ResultRecorded:
		r.Text, r.Lines = p.reportRecord("rec_result", e)
	case events.ResultAmended:
		r.Text, r.Lines = p.reportRecord("rec_amended", e.ResultRecorded)
		if e.Contestation != "" {
			r.Text += " · " + f("rec_by_ruling", e.Contestation)
		}
	case events.ResultProposed:
		r.Text, r.Lines = p.reportRecord("rec_proposed", e.Report)
		r.Text = n(e.Player) + ": " + r.Text
		for _, pr := range e.Problems {
			r.Lines = append(r.Lines, tr(p.Lang, "status_flagged")+": "+p.Say(pr.Detail))
		}
	case events.ProposalConfirmed:
		r.Text = f("rec_confirmed", n(e.Player), e.Proposal)
	case events.ProposalDisputed:
		r.Text = f("rec_disputed", n(e.Player), e.Proposal, e.Reason)
	case events.TieBreakRolled:
		var rolls []string
		for i, pl := range e.Players {
			if i < len(e.Rolls) {
				rolls = append(rolls, n(pl)+" "+strconv.Itoa(e.Rolls[i]))
			}
		}
		r.Text = f("rec_rolled", strings.Join(rolls, ", "))
	case events.SanctionImposed:
		kind := tr(p.Lang, string(e.Kind))
		if e.Amount > 0 {
			kind += " (" + strconv.Itoa(e.Amount) + ")"
		}
		r.Text = f("rec_sanction", kind, n(e.Player), e.Round, ruleText(p.Lang, e.Article))
		if e.Table > 0 {
			r.Text += " · " + tr(p.Lang, "table") + " " + strconv.Itoa(e.Table)
		}
		if e.Reason != "" {
			r.Text += " · " + p.Say(e.Reason)
		}
		if e.Automatic {
			r.Text += " · " + tr(p.Lang, "automatic")
			if e.Cause != "" {
				r.Text += " " + f("rec_caused_by", e.Cause)
			}
		}
	case events.SanctionRevoked:
		r.Text = f("rec_revoked", e.Sanction, e.Ruling)
	case events.PlayerWithdrew:
		if e.Scope == "game" {
			r.Text = f("rec_withdrew_game", n(e.Player), e.Round, tr(p.Lang, e.Reason))
		} else {
			r.Text = f("rec_withdrew", n(e.Player), tr(p.Lang, e.Reason))
		}
		if e.Detail != "" {
			r.Text += " · " + e.Detail
		}
	case events.Renounced:
		r.Text = f("rec_renounced", n(e.Player), tr(p.Lang, string(e.Phase)), tr(p.Lang, "renounce_"+e.Effect))
		if e.Reason != "" {
			r.Text += " · " + p.Say(e.Reason)
		}
	case events.Repechaged:
		r.Text = f("rec_repechaged", n(e.Player), n(e.Replaces), tr(p.Lang, string(e.Phase)), ruleText(p.Lang, e.Rule))
		for _, c := range e.Candidates {
			line := n(c.Player) + " (" + p.Say(c.From) + ")"
			if c.Skipped != "" {
				line += ": " + f("rec_skipped", p.Say(c.Skipped))
			} else {
				line += ": " + tr(p.Lang, "rec_chosen")
			}
			r.Lines = append(r.Lines, line)
		}
	case events.GameAnnulled:
		r.Text = f("rec_annulled", e.Table, e.Round, e.Reason)
		if e.Culprit != "" {
			r.Text += " · " + f("rec_culprit", n(e.Culprit))
		}
	case events.ContestationFiled:
		verdict := tr(p.Lang, "inadmissible")
		if e.Admissible {
			verdict = tr(p.Lang, "admissible")
		}
		r.Text = f("rec_contested", e.Contestation, e.Against, e.Claim, verdict, ruleText(p.Lang, e.Rule))
		if e.By != "" {
			r.Text += " · " + tr(p.Lang, "by") + " " + n(e.By)
		}
	case events.ContestationRuled:
		verdict := tr(p.Lang, "rejected")
		if e.Upheld {
			verdict = tr(p.Lang, "upheld")
		}
		r.Text = f("rec_ruled", e.Contestation, verdict, e.Ruling, e.Corrections)
	case events.ClassificationPublished:
		key := "rec_published_provisional"
		if e.Final {
			key = "rec_published_final"
		}
		r.Text = f(key, len(e.Rows))
		for i, row := range e.Rows {
			if i == 8 {
				r.Lines = append(r.Lines, "…")
				break
			}
			r.Lines = append(r.Lines, fmt.Sprintf("%d. %s %s", row.Rank, row.Name, points(p.Lang, row.Total)))
		}
	case events.TournamentClosed:
		r.Text = f("rec_closed", e.Reason)
	case events.PlayerTokenIssued:
		r.Text = f("rec_link", n(e.Player))
	case events.PlayerTokenRevoked:
		r.Text = f("rec_link_revoked", n(e.Player), e.Reason)
	default:
		r.Text = ""
	}
	return r
}

// actor says who made an event.
func (p *page) actor(a events.Actor, officials officialNames) string {
	switch a.Role {
	case events.RoleSystem:
		return tr(p.Lang, "actor_system")
	case events.RoleAdmin:
		return tr(p.Lang, "admin")
	case events.RolePlayer:
		return p.Name(a.ID) + " (" + tr(p.Lang, "player_role") + ")"
	}
	if o, ok := officials[a.ID]; ok {
		return o.Name + " (" + tr(p.Lang, o.Role) + ")"
	}
	return tr(p.Lang, a.Role)
}

// reportRecord says a table's report: the table, how the game closed, the
// winner, and each player's line with every figure.
func (p *page) reportRecord(key string, e events.ResultRecorded) (string, []string) {
	text := trf(p.Lang, key, e.Table, e.Round, tr(p.Lang, string(e.ClosedBy)))
	if e.Winner != "" {
		text += " · " + tr(p.Lang, "winner") + " " + p.Name(e.Winner)
	}
	if e.Risiko {
		text += " · RisiKo!"
	}
	if e.Proposal != "" {
		text += " · " + tr(p.Lang, "from_proposal")
	}
	var lines []string
	for _, s := range e.Players {
		parts := []string{p.Name(s.Player), tr(p.Lang, "turn") + " " + strconv.Itoa(s.Turn),
			tr(p.Lang, "table_points") + " " + strconv.Itoa(s.TablePoints)}
		for _, fig := range []struct {
			key string
			n   int
		}{{"off_objective_points", s.OffObjectivePoints}, {"objective_territories", s.ObjectiveTerritories},
			{"territories", s.Territories}, {"armies", s.Armies}, {"cards", s.Cards}, {"eliminated_order", s.EliminatedOrder}} {
			if fig.n != 0 {
				parts = append(parts, tr(p.Lang, fig.key)+" "+strconv.Itoa(fig.n))
			}
		}
		status := tr(p.Lang, string(s.Status))
		if s.Withdrawal != "" {
			status += " (" + tr(p.Lang, s.Withdrawal) + ")"
		}
		if roll, ok := e.Rolls[s.Player]; ok {
			parts = append(parts, tr(p.Lang, "die")+" "+strconv.Itoa(roll))
		}
		lines = append(lines, strings.Join(append(parts, status), " · "))
	}
	return text, lines
}
