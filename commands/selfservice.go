package commands

import (
	"errors"
	"fmt"
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// ruleSelfReport is where the rules of players' own reports are written.
const ruleSelfReport = "docs/rules.md#14-tables-report-themselves"

// TokenGrant is one personal link a server issues: the player, the
// SHA-256 of the token and the nonce the token was derived from. The
// server fills them in (IssuePlayerTokens.Grants); a client never sends
// them.
type TokenGrant struct {
	Player      string
	TokenSHA256 string
	Nonce       string
}

// IssuePlayerTokens gives registered players their personal links (a new
// link replaces a player's previous one). It is sent to its own route,
// which derives the tokens and shows them.
type IssuePlayerTokens struct {
	typed
	// Players are the players to issue links to; none: every registered
	// player without a live link.
	Players []string `json:"players,omitempty"`
	// Grants are set by the server, one per player.
	Grants []TokenGrant `json:"-"`
}

func (*IssuePlayerTokens) CommandType() string { return "IssuePlayerTokens" }

func (c *IssuePlayerTokens) Check() error {
	var errs []error
	if len(c.Players) > 10_000 {
		errs = append(errs, fieldErr("players", "at most 10000 players at once"))
	}
	for i, p := range c.Players {
		errs = append(errs, checkID(fmt.Sprintf("players[%d]", i), p))
		if slices.Index(c.Players, p) != i {
			errs = append(errs, fieldErr(fmt.Sprintf("players[%d]", i), "%s is listed twice", p))
		}
	}
	return errors.Join(errs...)
}

func (c *IssuePlayerTokens) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if len(c.Grants) == 0 {
		return nil, fieldErr("players", "no player to give a link to: every registered player has a live one")
	}
	var out []events.Event
	var errs []error
	for i, g := range c.Grants {
		p := t.Players[g.Player]
		switch {
		case p == nil:
			errs = append(errs, &FieldError{Field: fmt.Sprintf("players[%d]", i), Msg: fmt.Sprintf("%s is not registered", g.Player)})
		case p.Status == events.StatusRefused:
			errs = append(errs, &FieldError{Field: fmt.Sprintf("players[%d]", i), Msg: fmt.Sprintf("the registration of %s was refused", g.Player)})
		}
		out = append(out, events.PlayerTokenIssued{Player: g.Player, TokenSHA256: g.TokenSHA256, Nonce: g.Nonce})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// RevokePlayerToken ends a player's personal link (a lost slip, a phone
// left behind): the link stops working at once.
type RevokePlayerToken struct {
	typed
	Player string `json:"player"`
	Reason string `json:"reason,omitempty"`
}

func (*RevokePlayerToken) CommandType() string { return "RevokePlayerToken" }

func (c *RevokePlayerToken) Check() error {
	return errors.Join(checkID("player", c.Player), checkText("reason", c.Reason, maxReason, false))
}

func (c *RevokePlayerToken) decide(t *projections.Tournament, _ Input) ([]events.Event, error) {
	if t.Players[c.Player] == nil {
		return nil, notFound("player %s", c.Player)
	}
	if !t.PlayerTokens[c.Player].Live() {
		return nil, conflict("%s has no live personal link to revoke", c.Player)
	}
	return []events.Event{events.PlayerTokenRevoked{Player: c.Player, Reason: clean(c.Reason)}}, nil
}

// seatedAt checks that player, as the actor may act for him, sits at
// table of round, the round being played, and returns the table. A
// player's link acts for that player only, and only at his own table:
// anything else is forbidden.
func seatedAt(t *projections.Tournament, in Input, player string, round, table int) (*projections.Table, error) {
	if in.Actor.Role == events.RolePlayer && in.Actor.ID != player {
		return nil, fmt.Errorf("%w: this personal link acts for %s, not for %s", ErrForbidden, in.Actor.ID, player)
	}
	if t.Players[player] == nil {
		return nil, notFound("player %s", player)
	}
	tb := t.Round(round).Table(table)
	if tb == nil {
		return nil, notFound("table %d of round %d is not in the draw", table, round)
	}
	if !slices.Contains(tb.Players, player) {
		return nil, fmt.Errorf("%w: %s does not sit at table %d of round %d", ErrForbidden, player, table, round)
	}
	if round != len(t.Rounds) {
		return nil, ruleErr(ruleSelfReport, "round %d is over: players report the tables of the round being played (%d); the arbiters correct earlier ones", round, len(t.Rounds))
	}
	if tb.Report != nil {
		return nil, conflict("table %d of round %d already has a result (seq %d): corrections go through a contestation", table, round, tb.Reported)
	}
	if tb.Annulled != nil {
		return nil, conflict("the game of table %d of round %d was annulled", table, round)
	}
	return tb, nil
}

// MaxProposals is how many times one player's link may propose the report
// of one table of a round: enough to correct a report or answer a
// dispute, never a flood of the log.
const MaxProposals = 3

// ProposeResult is a table report proposed by a player of the table from
// his phone: the payload of RecordResult and who proposes it, checked as
// RecordResult checks it. A report that breaks only the board's bounds is
// kept, flagged for the arbiter, and can never be recorded; any other
// problem refuses it. It replaces the table's earlier proposal.
type ProposeResult struct {
	typed
	Player   string         `json:"player"`
	Round    int            `json:"round"`
	Table    int            `json:"table"`
	ClosedBy events.Closing `json:"closed_by"`
	Winner   string         `json:"winner,omitempty"`
	Risiko   bool           `json:"risiko,omitempty"`
	Players  []SeatInput    `json:"players"`
	Rolls    map[string]int `json:"rolls,omitempty"`
}

func (*ProposeResult) CommandType() string { return "ProposeResult" }

func (c *ProposeResult) report() *RecordResult {
	return &RecordResult{Round: c.Round, Table: c.Table, ClosedBy: c.ClosedBy, Winner: c.Winner, Risiko: c.Risiko, Players: c.Players, Rolls: c.Rolls}
}

func (c *ProposeResult) Check() error {
	errs := []error{checkID("player", c.Player)}
	for _, e := range leaves(c.report().Check()) {
		// A proposal is always a report: RecordResult's alternative of
		// recording a proposal is not one of its fields.
		var fe *FieldError
		if !errors.As(e, &fe) || fe.Field != "proposal" {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

func (c *ProposeResult) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	tb, err := seatedAt(t, in, c.Player, c.Round, c.Table)
	if err != nil {
		return nil, err
	}
	ev, err := c.report().report(t, tb)
	var problems []events.ReportProblem
	if err != nil {
		for _, e := range leaves(err) {
			var fe *FieldError
			if !errors.As(e, &fe) || !fe.bound {
				return nil, err // not only board bounds: refused whole, as a report would be
			}
			problems = append(problems, events.ReportProblem{Field: fe.Field, Rule: fe.Rule, Detail: fe.Msg})
		}
	}
	if n := tb.Proposed[c.Player]; n >= MaxProposals {
		return nil, ruleErr(ruleSelfReport, "%s already proposed the report of table %d of round %d %d times, the most a player's link may: the arbiter records it, or another player of the table proposes it", c.Player, c.Table, c.Round, n)
	}
	id := projections.ProposalID(c.Round, c.Table, tb.ProposalsMade()+1)
	return []events.Event{events.ResultProposed{Proposal: id, Player: c.Player, Report: ev, Problems: problems}}, nil
}

// openProposal finds a proposal a player may still confirm or dispute.
func openProposal(t *projections.Tournament, in Input, player, id string) (*projections.Proposal, *projections.Table, error) {
	p, r, tb := t.Proposal(id)
	if table, replaced := t.Replaced(id); p == nil && replaced {
		return nil, nil, conflict("proposal %s was replaced by a later proposal for table %d", id, table)
	}
	if p == nil {
		return nil, nil, notFound("proposal %s", id)
	}
	if _, err := seatedAt(t, in, player, r.Number, tb.Number); err != nil {
		return nil, nil, err
	}
	switch p.Status(tb) {
	case projections.ProposalFlagged:
		return nil, nil, ruleErr("docs/rules.md#31-pinned-board-bounds", "proposal %s breaks the board's bounds and cannot be recorded: propose the report again", id)
	}
	return p, tb, nil
}

// ConfirmProposal records that a player of the table confirms a proposed
// report. When every other player of the table has confirmed it and the
// ruleset says so (self_report: confirmed), the report is recorded in the
// same commit, naming the proposal.
type ConfirmProposal struct {
	typed
	Player   string `json:"player"`
	Proposal string `json:"proposal"`
}

func (*ConfirmProposal) CommandType() string { return "ConfirmProposal" }

func (c *ConfirmProposal) Check() error {
	return errors.Join(checkID("player", c.Player), checkID("proposal", c.Proposal))
}

func (c *ConfirmProposal) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	p, tb, err := openProposal(t, in, c.Player, c.Proposal)
	if err != nil {
		return nil, err
	}
	switch {
	case p.By == c.Player:
		return nil, conflict("%s proposed %s: a proposal is its proposer's confirmation", c.Player, c.Proposal)
	case p.Confirmed[c.Player] > 0:
		return nil, conflict("%s already confirmed %s (seq %d)", c.Player, c.Proposal, p.Confirmed[c.Player])
	case len(p.Disputes) > 0:
		return nil, ruleErr(ruleSelfReport, "%s disputed proposal %s: the arbiter decides, or a player of the table proposes the report again", p.Disputes[0].Player, c.Proposal)
	}
	out := []events.Event{events.ProposalConfirmed{Proposal: c.Proposal, Player: c.Player}}
	if waiting := p.Waiting(tb); len(waiting) == 1 && waiting[0] == c.Player && t.Ruleset.RecordsConfirmed() {
		// The last confirmation: the report records itself when it still
		// holds against the tournament as it stands, and expels no one (a
		// withdrawal it records that expels is the arbiters' to record);
		// otherwise it waits, ready, for the arbiter, who sees why.
		rec := &RecordResult{Round: p.Report.Round, Table: p.Report.Table, Proposal: p.ID}
		if evs, err := rec.decide(t, in); err == nil && len(evs) == 1 {
			out = append(out, evs...)
		}
	}
	return out, nil
}

// DisputeProposal records that a player of the table disputes a proposed
// report, and why: the table is flagged, and the arbiter decides.
type DisputeProposal struct {
	typed
	Player   string `json:"player"`
	Proposal string `json:"proposal"`
	Reason   string `json:"reason"`
}

func (*DisputeProposal) CommandType() string { return "DisputeProposal" }

func (c *DisputeProposal) Check() error {
	return errors.Join(checkID("player", c.Player), checkID("proposal", c.Proposal), checkText("reason", c.Reason, maxReason, true))
}

func (c *DisputeProposal) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	p, _, err := openProposal(t, in, c.Player, c.Proposal)
	if err != nil {
		return nil, err
	}
	if p.By == c.Player {
		return nil, conflict("%s proposed %s: propose the report again instead", c.Player, c.Proposal)
	}
	for _, d := range p.Disputes {
		if d.Player == c.Player {
			return nil, conflict("%s already disputed %s (seq %d)", c.Player, c.Proposal, d.Seq)
		}
	}
	return []events.Event{events.ProposalDisputed{Proposal: c.Proposal, Player: c.Player, Reason: clean(c.Reason)}}, nil
}

// fromProposal is the RecordResult payload of a proposal's report, every
// figure stated as the proposal recorded it.
func fromProposal(p *projections.Proposal) *RecordResult {
	r := p.Report
	c := &RecordResult{Round: r.Round, Table: r.Table, ClosedBy: r.ClosedBy, Winner: r.Winner, Risiko: r.Risiko, Rolls: r.Rolls}
	for _, s := range r.Players {
		tp, off, objT, terr := s.TablePoints, s.OffObjectivePoints, s.ObjectiveTerritories, s.Territories
		c.Players = append(c.Players, SeatInput{Player: s.Player, Turn: s.Turn, TablePoints: &tp, OffObjectivePoints: &off,
			ObjectiveTerritories: &objT, Territories: &terr, Armies: s.Armies, ObjectiveArmies: s.ObjectiveArmies, Cards: s.Cards,
			Status: s.Status, EliminatedOrder: s.EliminatedOrder, Objective: s.Objective, TerritoriesHeld: slices.Clone(s.TerritoriesHeld),
			Withdrawal: s.Withdrawal})
	}
	return c
}

// recordProposal is RecordResult's decision for a proposal: its report,
// checked again against the tournament as it stands, naming it.
func (c *RecordResult) recordProposal(t *projections.Tournament) ([]events.Event, error) {
	p, r, tb := t.Proposal(c.Proposal)
	table, replaced := t.Replaced(c.Proposal)
	switch {
	case p == nil && replaced:
		return nil, conflict("proposal %s was replaced by a later proposal for table %d", c.Proposal, table)
	case p == nil:
		return nil, notFound("proposal %s", c.Proposal)
	case r.Number != c.Round || tb.Number != c.Table:
		return nil, fieldErr("proposal", "proposal %s is for table %d of round %d", c.Proposal, tb.Number, r.Number)
	}
	if _, err := openTable(t, c.Round, c.Table); err != nil {
		return nil, err
	}
	switch p.Status(tb) {
	case projections.ProposalFlagged:
		return nil, ruleErr("docs/rules.md#31-pinned-board-bounds", "proposal %s breaks the board's bounds and cannot be recorded", c.Proposal)
	}
	ev, err := fromProposal(p).report(t, tb)
	if err != nil {
		return nil, err
	}
	ev.Proposal = p.ID
	return withConsequences(t, ev, nil)
}
