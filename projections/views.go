package projections

import (
	"maps"
	"slices"
	"time"

	"github.com/referto/referto/events"
)

// Summary is the public view of GET /v1/tournaments/{t}.
type Summary struct {
	ID                 string         `json:"id"`
	Name               string         `json:"name"`
	Ruleset            events.Ruleset `json:"ruleset"`
	Phase              events.Phase   `json:"phase"`
	Rounds             int            `json:"rounds"`
	Seq                uint64         `json:"seq"`
	RegistrationClosed bool           `json:"registration_closed"`
	Players            int            `json:"players"`
	Created            time.Time      `json:"created"`
	Updated            time.Time      `json:"updated"`
	// Closed is set once the tournament is closed: only contestations and
	// their rulings change it then.
	Closed bool `json:"closed,omitempty"`
	// Organizer and Venue are the organizing club, as the national ranking
	// spells clubs ("CITY [Name]"), and the venue (OrganizerDeclared).
	Organizer string `json:"organizer,omitempty"`
	Venue     string `json:"venue,omitempty"`
}

// SummaryView renders the tournament summary.
func (t *Tournament) SummaryView() Summary {
	n := len(t.Players) - t.refused
	if !t.refusedCounted {
		n = len(t.Players) - t.countRefused()
	}
	return Summary{ID: t.ID, Name: t.Name, Ruleset: t.Ruleset, Phase: t.Phase(), Rounds: len(t.Rounds),
		Seq: t.Seq, RegistrationClosed: t.RegistrationClosed, Players: n, Created: t.Created, Updated: t.Updated, Closed: t.Closed,
		Organizer: t.Organizer, Venue: t.Venue}
}

// countRefused counts the players whose registration was refused.
func (t *Tournament) countRefused() int {
	n := 0
	for _, p := range t.Players {
		if p.Status == events.StatusRefused {
			n++
		}
	}
	return n
}

// PlayerRow is one line of the public entry list.
type PlayerRow struct {
	Player     string              `json:"player"`
	Name       string              `json:"name"`
	Club       string              `json:"club,omitempty"`
	Region     string              `json:"region,omitempty"`
	Rank       int                 `json:"rank,omitempty"`
	Status     events.PlayerStatus `json:"status"`
	Reserve    bool                `json:"reserve,omitempty"`
	Reason     string              `json:"reason,omitempty"`
	Registered uint64              `json:"registered"`
	// CheckIns by round.
	CheckIns map[int]*CheckIn `json:"check_ins,omitempty"`
}

// PlayerView renders one player's entry-list row.
func (t *Tournament) PlayerView(id string) (PlayerRow, bool) {
	p, ok := t.Players[id]
	if !ok {
		return PlayerRow{}, false
	}
	row := PlayerRow{Player: p.ID, Name: p.Name, Club: p.Club, Region: p.Region, Rank: p.Rank,
		Status: p.Status, Reserve: p.Reserve, Reason: p.Reason, Registered: p.Registered}
	for r, byPlayer := range t.CheckIns {
		if c, ok := byPlayer[id]; ok {
			if row.CheckIns == nil {
				row.CheckIns = map[int]*CheckIn{}
			}
			row.CheckIns[r] = c
		}
	}
	return row, true
}

// TournamentView is the whole tournament in one view, as it stands or as it stood
// after an event: what the web UI renders and an appeals committee reads.
type TournamentView struct {
	Summary       Summary         `json:"summary"`
	Players       []PlayerRow     `json:"players"`
	Rounds        []*Round        `json:"rounds"`
	Sanctions     []*Sanction     `json:"sanctions"`
	Contestations []*Contestation `json:"contestations"`
	Publications  []Publication   `json:"publications"`
	Standings     Standings       `json:"standings"`
	// Next is who would qualify for the next knockout phase if it were
	// drawn now, when the ruleset has one.
	Next *NextPhase `json:"next,omitempty"`
	// Published is the last published classification, as its event
	// states it (rows and signed checkpoint).
	Published *events.ClassificationPublished `json:"published,omitempty"`
}

// NextPhase is the cut for the next knockout phase.
type NextPhase struct {
	Phase   events.Phase `json:"phase,omitempty"`
	Players []string     `json:"players,omitempty"`
	// Note says why no cut can be told yet.
	Note string `json:"note,omitempty"`
}

// StateView renders the tournament's whole state (without Next, which the
// command side decides). It shares no memory the fold changes: a view
// taken at one seq stays as it was while later events are applied.
func (t *Tournament) StateView() TournamentView {
	s := TournamentView{Summary: t.SummaryView(), Players: []PlayerRow{}, Rounds: make([]*Round, len(t.Rounds)),
		Sanctions: make([]*Sanction, len(t.Sanctions)), Contestations: make([]*Contestation, len(t.Contestations)),
		Publications: slices.Clone(t.Publications), Standings: t.Standings(), Published: t.Published}
	for _, id := range t.Order {
		if row, ok := t.PlayerView(id); ok {
			s.Players = append(s.Players, row)
		}
	}
	for i, r := range t.Rounds {
		s.Rounds[i] = r.clone()
	}
	for i, x := range t.Sanctions {
		c := *x
		s.Sanctions[i] = &c
	}
	for i, x := range t.Contestations {
		c := *x
		s.Contestations[i] = &c
	}
	if s.Publications == nil {
		s.Publications = []Publication{}
	}
	return s
}

// clone is a copy of r that shares nothing the fold changes: the tables,
// their reports' lists, the proposals and their confirmations.
func (r *Round) clone() *Round {
	c := *r
	c.Unmet, c.ReservesSeated = slices.Clone(r.Unmet), slices.Clone(r.ReservesSeated)
	c.Seeds, c.Byes, c.Labels = slices.Clone(r.Seeds), slices.Clone(r.Byes), maps.Clone(r.Labels)
	c.Tables = make([]*Table, len(r.Tables))
	for i, tb := range r.Tables {
		t := *tb
		t.Players, t.TurnOrder, t.Results, t.Withdrew = slices.Clone(tb.Players), slices.Clone(tb.TurnOrder), slices.Clone(tb.Results), slices.Clone(tb.Withdrew)
		t.Proposed = maps.Clone(tb.Proposed)
		if tb.Proposals != nil {
			t.Proposals = make([]*Proposal, len(tb.Proposals))
			for j, p := range tb.Proposals {
				q := *p
				q.Problems, q.Disputes, q.Confirmed = slices.Clone(p.Problems), slices.Clone(p.Disputes), maps.Clone(p.Confirmed)
				t.Proposals[j] = &q
			}
		}
		c.Tables[i] = &t
	}
	return &c
}
