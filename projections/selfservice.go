package projections

import (
	"fmt"
	"slices"
	"time"

	"github.com/referto/referto/events"
)

// PlayerToken is a player's personal link as the log knows it: the hash
// of the token, never the token, and the nonce the server derived it from.
type PlayerToken struct {
	TokenSHA256 string `json:"token_sha256"`
	Nonce       string `json:"nonce"`
	Issued      uint64 `json:"issued"`
	Revoked     uint64 `json:"revoked,omitempty"`
}

// Live reports whether the token still admits its player.
func (p *PlayerToken) Live() bool { return p != nil && p.Revoked == 0 }

// PlayerByToken returns the player whose live personal token hashes to
// hash.
func (t *Tournament) PlayerByToken(hash string) (string, bool) {
	for id, tok := range t.PlayerTokens {
		if tok.Live() && tok.TokenSHA256 == hash {
			return id, true
		}
	}
	return "", false
}

// Proposal is a table report proposed by a player of the table, with who
// confirmed and who disputed it (docs/rules.md#14-tables-report-themselves).
type Proposal struct {
	ID     string                `json:"id"`
	Seq    uint64                `json:"seq"`
	At     time.Time             `json:"at"`
	By     string                `json:"by"`
	Report events.ResultRecorded `json:"report"`
	// Problems are the board bounds the report breaks: it can never be
	// recorded, and flags the table.
	Problems []events.ReportProblem `json:"problems,omitempty"`
	// Confirmed maps each player who confirmed it to the seq of his
	// confirmation (the proposer's is the proposal itself).
	Confirmed map[string]uint64 `json:"confirmed,omitempty"`
	Disputes  []Dispute         `json:"disputes,omitempty"`
	// Recorded is the seq of the result that records it.
	Recorded uint64 `json:"recorded,omitempty"`
}

// Dispute is one player's objection to a proposal.
type Dispute struct {
	Player string    `json:"player"`
	Reason string    `json:"reason"`
	Seq    uint64    `json:"seq"`
	At     time.Time `json:"at"`
}

// ProposalStatus is where a proposal stands.
type ProposalStatus string

// The statuses of a proposal: waiting for confirmations, confirmed by every
// player of the table, disputed by one, breaking the board's bounds, or
// recorded as the table's result. One a later proposal replaced is no
// longer in the state (Tournament.Replaced).
const (
	ProposalPending  ProposalStatus = "pending"
	ProposalReady    ProposalStatus = "ready"
	ProposalDisputed ProposalStatus = "disputed"
	ProposalFlagged  ProposalStatus = "flagged"
	ProposalRecorded ProposalStatus = "recorded"
)

// AwaitsConfirmations reports whether the proposal waits for the other
// players of the table to confirm it.
func (s ProposalStatus) AwaitsConfirmations() bool { return s == ProposalPending }

// Recordable reports whether the arbiter may record the proposal as it
// stands: every player of the table confirmed it.
func (s ProposalStatus) Recordable() bool { return s == ProposalReady }

// ProposeAgain reports whether the table's report is to be proposed again:
// the proposal was disputed, or breaks the board's bounds.
func (s ProposalStatus) ProposeAgain() bool { return s == ProposalDisputed || s == ProposalFlagged }

// Status says where proposal p of table tb stands.
func (p *Proposal) Status(tb *Table) ProposalStatus {
	switch {
	case p.Recorded > 0:
		return ProposalRecorded
	case len(p.Problems) > 0:
		return ProposalFlagged
	case len(p.Disputes) > 0:
		return ProposalDisputed
	case len(p.Waiting(tb)) == 0:
		return ProposalReady
	}
	return ProposalPending
}

// Waiting lists the players of the table who have not confirmed p yet, in
// seating order.
func (p *Proposal) Waiting(tb *Table) []string {
	var out []string
	for _, id := range tb.Players {
		if _, ok := p.Confirmed[id]; !ok && id != p.By {
			out = append(out, id)
		}
	}
	return out
}

// Current is the table's latest proposal, nil when none was made.
func (tb *Table) Current() *Proposal {
	if n := len(tb.Proposals); n > 0 {
		return tb.Proposals[n-1]
	}
	return nil
}

// Flagged reports a table without a result whose latest proposal is
// disputed or breaks the board's bounds: the arbiter must look at it.
func (tb *Table) Flagged() bool {
	if tb.Report != nil || tb.Annulled != nil {
		return false
	}
	p := tb.Current()
	return p != nil && (len(p.Problems) > 0 || len(p.Disputes) > 0)
}

// ProposalID is the id of the n-th proposal (from 1) for table of round.
func ProposalID(round, table, n int) string { return fmt.Sprintf("r%dt%d-%d", round, table, n) }

// ProposalsMade is how many proposals the table's players made.
func (tb *Table) ProposalsMade() int {
	n := 0
	for _, c := range tb.Proposed {
		n += c
	}
	return n
}

// Replaced reports whether id names a proposal a later one for its table
// replaced (no longer in the state, but made), and that table.
func (t *Tournament) Replaced(id string) (table int, ok bool) {
	var round, n int
	if _, err := fmt.Sscanf(id, "r%dt%d-%d", &round, &table, &n); err != nil || ProposalID(round, table, n) != id {
		return 0, false
	}
	tb := t.Round(round).Table(table)
	return table, tb != nil && n >= 1 && n <= tb.ProposalsMade() && (tb.Current() == nil || tb.Current().ID != id)
}

// Proposal finds a proposal by id, with its round and table: the latest
// of its table (Replaced says whether an id not found was replaced).
func (t *Tournament) Proposal(id string) (*Proposal, *Round, *Table) {
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			for _, p := range tb.Proposals {
				if p.ID == id {
					return p, r, tb
				}
			}
		}
	}
	return nil, nil, nil
}

// applySelfService folds the events of personal links and proposals.
func (t *Tournament) applySelfService(env events.Envelope, ev events.Event, ch *Changes) error {
	switch e := ev.(type) {
	case events.PlayerTokenIssued:
		if _, ok := t.Players[e.Player]; !ok {
			return fmt.Errorf("token for unknown player %s", e.Player)
		}
		if t.PlayerTokens == nil {
			t.PlayerTokens = map[string]*PlayerToken{}
		}
		t.PlayerTokens[e.Player] = &PlayerToken{TokenSHA256: e.TokenSHA256, Nonce: e.Nonce, Issued: env.Seq}
	case events.PlayerTokenRevoked:
		tok := t.PlayerTokens[e.Player]
		if !tok.Live() {
			return fmt.Errorf("no live token of %s to revoke", e.Player)
		}
		tok.Revoked = env.Seq
	case events.ResultProposed:
		tb := t.Round(e.Report.Round).Table(e.Report.Table)
		if tb == nil || tb.Report != nil || !slices.Contains(tb.Players, e.Player) {
			return fmt.Errorf("proposal %s for no open table of %s", e.Proposal, e.Player)
		}
		if _, replaced := t.Replaced(e.Proposal); replaced {
			return fmt.Errorf("proposal %s made twice", e.Proposal)
		}
		if p, _, _ := t.Proposal(e.Proposal); p != nil {
			return fmt.Errorf("proposal %s made twice", e.Proposal)
		}
		tb.Proposals = []*Proposal{{ID: e.Proposal, Seq: env.Seq, At: env.At, By: e.Player,
			Report: e.Report, Problems: e.Problems, Confirmed: map[string]uint64{}}}
		if tb.Proposed == nil {
			tb.Proposed = map[string]int{}
		}
		tb.Proposed[e.Player]++
		t.ProposalCount++
		ch.table(e.Report.Round, e.Report.Table)
	case events.ProposalConfirmed:
		p, r, tb := t.Proposal(e.Proposal)
		if p == nil || !slices.Contains(tb.Players, e.Player) {
			return fmt.Errorf("confirmation of %s by %s, who is not at its table", e.Proposal, e.Player)
		}
		p.Confirmed[e.Player] = env.Seq
		ch.table(r.Number, tb.Number)
	case events.ProposalDisputed:
		p, r, tb := t.Proposal(e.Proposal)
		if p == nil || !slices.Contains(tb.Players, e.Player) {
			return fmt.Errorf("dispute of %s by %s, who is not at its table", e.Proposal, e.Player)
		}
		p.Disputes = append(p.Disputes, Dispute{Player: e.Player, Reason: e.Reason, Seq: env.Seq, At: env.At})
		ch.table(r.Number, tb.Number)
	default:
		return t.applyWorkbook(env, ev, ch)
	}
	return nil
}
