package projections

import (
	"fmt"
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/scoring"
)

// applyRound folds the events of check-in, draws, results, rolls and
// sanctions.
func (t *Tournament) applyRound(env events.Envelope, ev events.Event, ch *Changes) error {
	switch e := ev.(type) {
	case events.ReserveDesignated:
		p, ok := t.Players[e.Player]
		if !ok {
			p = &Player{ID: e.Player, Name: e.Name, Club: e.Club, Region: e.Region, Rank: e.Rank, Registered: env.Seq}
			t.Players[e.Player] = p
			t.Order = append(t.Order, e.Player)
		}
		if p.Reserve || p.Status != events.StatusActive && ok {
			return fmt.Errorf("player %s (%s) cannot become a reserve", e.Player, p.Status)
		}
		p.Reserve, p.Status = true, events.StatusReserve
		t.Reserves = append(t.Reserves, e.Player)
		ch.player(e.Player)
	case events.PlayerCheckedIn:
		if _, ok := t.Players[e.Player]; !ok {
			return fmt.Errorf("check-in of unknown player %s", e.Player)
		}
		if t.CheckIns == nil {
			t.CheckIns = map[int]map[string]*CheckIn{}
		}
		if t.CheckIns[e.Round] == nil {
			t.CheckIns[e.Round] = map[string]*CheckIn{}
		}
		t.CheckIns[e.Round][e.Player] = &CheckIn{MinutesLate: e.MinutesLate, Admitted: e.Admitted, Absent: e.Absent, Rule: e.Rule, Seq: env.Seq}
		ch.player(e.Player)
	case events.ReserveSubstituted:
		res, ok := t.Players[e.Reserve]
		if !ok || res.Status != events.StatusReserve {
			return fmt.Errorf("%s is not an unseated reserve", e.Reserve)
		}
		if e.Table == 0 {
			if t.Pending == nil {
				t.Pending = map[int]map[string]string{}
			}
			if t.Pending[e.Round] == nil {
				t.Pending[e.Round] = map[string]string{}
			}
			t.Pending[e.Round][e.Absent] = e.Reserve
		} else {
			tb := t.Round(e.Round).Table(e.Table)
			i := -1
			if tb != nil {
				i = slices.Index(tb.Players, e.Absent)
			}
			if i < 0 || tb.Report != nil {
				return fmt.Errorf("%s is not seated at an open table %d of round %d", e.Absent, e.Table, e.Round)
			}
			tb.Players[i] = e.Reserve
			tb.TurnOrder = nil
			res.Status = events.StatusActive
			ch.table(e.Round, e.Table)
		}
		ch.player(e.Reserve)
		ch.player(e.Absent)
	case events.TablesDrawn:
		if e.Round != len(t.Rounds)+1 {
			return fmt.Errorf("round %d drawn after round %d", e.Round, len(t.Rounds))
		}
		r := &Round{Number: e.Round, Phase: e.Phase, Algorithm: e.Algorithm, Version: e.Version, Seed: e.Seed,
			Unmet: e.Unmet, ReservesSeated: e.ReservesSeated, Seeds: e.Seeds, Byes: e.Byes, Labels: e.Labels, Drawn: env.Seq, DrawnAt: env.At}
		for _, dt := range e.Tables {
			r.Tables = append(r.Tables, &Table{Number: dt.Table, Players: slices.Clone(dt.Players)})
			ch.table(e.Round, dt.Table)
		}
		for _, id := range e.ReservesSeated {
			p, ok := t.Players[id]
			if !ok || p.Status != events.StatusReserve {
				return fmt.Errorf("seats %s, who is not an unseated reserve", id)
			}
			p.Status = events.StatusActive
			ch.player(id)
		}
		for _, res := range t.Pending[e.Round] {
			if p := t.Players[res]; p != nil && p.Status == events.StatusReserve {
				p.Status = events.StatusActive
				ch.player(res)
			}
		}
		t.Rounds = append(t.Rounds, r)
		ch.round(e.Round)
	case events.TurnOrderSet:
		tb := t.Round(e.Round).Table(e.Table)
		if tb == nil {
			return fmt.Errorf("no table %d in round %d", e.Table, e.Round)
		}
		tb.TurnOrder = slices.Clone(e.Order)
		ch.table(e.Round, e.Table)
	case events.ResultRecorded:
		tb := t.Round(e.Round).Table(e.Table)
		if tb == nil || tb.Report != nil {
			return fmt.Errorf("no open table %d in round %d", e.Table, e.Round)
		}
		rep := e
		tb.Report, tb.Reported, tb.ReportedAt = &rep, env.Seq, env.At
		if e.Proposal != "" {
			p, _, ptb := t.Proposal(e.Proposal)
			if p == nil || ptb != tb {
				return fmt.Errorf("records proposal %s, which is not one of table %d of round %d", e.Proposal, e.Table, e.Round)
			}
			p.Recorded = env.Seq
		}
		if err := t.score(e.Round, tb); err != nil {
			return err
		}
		ch.table(e.Round, e.Table)
	case events.TieBreakRolled:
		t.Rolls = append(t.Rolls, e)
		t.Acts = append(t.Acts, Act{Seq: env.Seq, Type: events.TypeTieBreakRolled, Players: slices.Clone(e.Players)})
	case events.SanctionImposed:
		for _, s := range t.Sanctions {
			if s.Sanction == e.Sanction {
				return fmt.Errorf("sanction %s imposed twice", e.Sanction)
			}
		}
		t.Sanctions = append(t.Sanctions, &Sanction{SanctionImposed: e, Seq: env.Seq, At: env.At})
		if err := t.sanctionEffects(e.Player, e.Round, e.Table, e.Kind, ch); err != nil {
			return err
		}
	default:
		return t.applyKnockout(env, ev, ch)
	}
	return nil
}

// Rules returns the placement and scoring rules of the tournament's ruleset.
func (t *Tournament) Rules() scoring.Rules {
	rs := t.Ruleset
	return scoring.Rules{Edition: t.ScoringEdition(), Formula: rs.Scoring, TieChain: rs.TieChain, TieAtTop: rs.TieAtTop, Bonus: rs.Bonus}
}

// ScoringTable turns a table report into the scorer's input, with the
// table-points penalties in force for that table.
func (t *Tournament) ScoringTable(round int, rep *events.ResultRecorded) scoring.Table {
	// What a disqualification makes of a player's game (docs/rules.md#4-placement-at-a-table, §10):
	// placed last with 0 points, or, where the ruleset equates the two
	// (rur-2015 art. 29: "Il giocatore squalificato è equiparato al
	// giocatore ritirato (vedi art. 31)"), placed and scored like a
	// withdrawn player, by his recorded table points (art. 31: "gli saranno
	// assegnati quelli relativi alla posizione ottenuta").
	disqualified := events.SeatDisqualified
	if t.Ruleset.DisqualifiedAsWithdrawn() {
		disqualified = events.SeatWithdrawn
	}
	st := scoring.Table{Winner: rep.Winner, Risiko: rep.Risiko, Rolls: rep.Rolls}
	if len(rep.Players) > 0 {
		st.Players = make([]scoring.Seat, 0, len(rep.Players))
	}
	for _, p := range rep.Players {
		status := p.Status
		if status == events.SeatDisqualified {
			status = disqualified
		}
		st.Players = append(st.Players, scoring.Seat{Player: p.Player, Turn: p.Turn, TablePoints: p.TablePoints,
			OffObjectivePoints: p.OffObjectivePoints, ObjectiveTerritories: p.ObjectiveTerritories, Territories: p.Territories,
			Armies: p.Armies, ObjectiveArmies: p.ObjectiveArmies, Cards: p.Cards, Status: status,
			EliminatedOrder: p.EliminatedOrder})
	}
	for _, s := range t.Sanctions {
		if s.Revoked || s.Round != round || s.Table != rep.Table {
			continue
		}
		switch s.Kind {
		case events.SanctionTablePoints:
			if st.Penalties == nil {
				st.Penalties = map[string]int{}
			}
			st.Penalties[s.Player] += s.Amount
		case events.SanctionDisqualification:
			// Out of the game: no RisiKo! of his stands. Equated to a
			// withdrawn player, one eliminated before he was disqualified
			// stays eliminated: a withdrawn player later eliminated is
			// placed as eliminated (art. 31: "se non è stato nel proseguo
			// della partita eliminato"). Where the article applied also
			// expels (the expulsion caused by this disqualification: art.
			// 19, 32, 33 third time, 34), he is not equated to a withdrawn
			// player: out of the game with 0 points, placed last
			// (docs/rules.md#103-pinned-disqualification-depends-on-the-rulebook;
			// docs/rules.md#12-annulled-game: art. 34's culprit is "out of it
			// with 0 points").
			status := disqualified
			if t.expelledBy(s.Sanction) {
				status = events.SeatDisqualified
			}
			for i := range st.Players {
				seat := &st.Players[i]
				if seat.Player != s.Player || status == events.SeatWithdrawn && seat.Status == events.SeatEliminated {
					continue
				}
				seat.Status, seat.EliminatedOrder = status, 0
				if st.Winner == s.Player {
					st.Winner, st.Risiko = "", false
				}
			}
		}
	}
	return st
}

// expelledBy reports whether an expulsion in force was caused by sanction id
// (the expulsion an article appends to its disqualification).
func (t *Tournament) expelledBy(id string) bool {
	for _, x := range t.Sanctions {
		if !x.Revoked && x.Kind == events.SanctionExpulsion && x.Cause == id {
			return true
		}
	}
	return false
}

// score (re)computes a reported table's placement and scores.
func (t *Tournament) score(round int, tb *Table) error {
	res, err := scoring.Score(t.Rules(), t.ScoringTable(round, tb.Report))
	if err != nil {
		return fmt.Errorf("table %d of round %d: %w", tb.Number, round, err)
	}
	tb.Results = res
	return nil
}
