package projections

import (
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/scoring"
)

// GameView is one scored game in a standings row.
type GameView struct {
	Round       int    `json:"round"`
	Table       int    `json:"table"`
	Place       int    `json:"place"`
	TablePoints int    `json:"table_points"`
	Score       Points `json:"score"`
	Discarded   bool   `json:"discarded,omitempty"`
}

// StandingsRow is one line of GET …/standings.
type StandingsRow struct {
	Rank          int        `json:"rank"`
	Player        string     `json:"player"`
	Name          string     `json:"name"`
	Club          string     `json:"club,omitempty"`
	Total         Points     `json:"total"`
	Games         []GameView `json:"games"`
	Penalties     Points     `json:"penalties,omitempty"`
	Status        string     `json:"status"`
	TieUnresolved bool       `json:"tie_unresolved,omitempty"`
	// TieGroup is the rank of the first row of the unresolved tie this row
	// is in: rows with the same tie_group roll the die together.
	TieGroup int `json:"tie_group,omitempty"`
}

// Standings is the qualifying classification as it stands.
type Standings struct {
	Tournament string         `json:"tournament"`
	Seq        uint64         `json:"seq"`
	Phase      string         `json:"phase"`
	Rounds     int            `json:"rounds"`
	Rows       []StandingsRow `json:"rows"`
	// Unresolved reports that some row awaits a die roll.
	Unresolved bool `json:"unresolved,omitempty"`
}

// StandingsRules returns the standings rules of the tournament's ruleset.
func (t *Tournament) StandingsRules() scoring.StandingsRules {
	rs := t.Ruleset
	return scoring.StandingsRules{Formula: rs.Scoring, Tiebreak: rs.Tiebreak, Discards: rs.Discards, TieChain: rs.TieChain}
}

// Ranked returns the ids of the players the standings rank: entrants who
// are active or withdrew, in registration order. Refused registrations and
// unseated reserves are not ranked.
func (t *Tournament) Ranked() []string {
	var out []string
	for _, id := range t.Order {
		switch t.Players[id].Status {
		case StatusActive, StatusWithdrawn:
			out = append(out, id)
		}
	}
	return out
}

// Games returns every scored game of the qualifying rounds.
func (t *Tournament) Games() []scoring.Game {
	var games []scoring.Game
	for _, r := range t.Rounds {
		if r.Phase != PhaseQualifying {
			continue
		}
		for _, tb := range r.Tables {
			for _, res := range tb.Results {
				games = append(games, scoring.Game{Player: res.Player, Round: r.Number, Table: tb.Number, Place: res.Place,
					Score: res.Score, TablePoints: res.TablePoints, Win: res.Win, Eliminated: res.Out, OthersOut: res.OthersOut})
			}
		}
	}
	return games
}

// ClassificationPenalties returns the classification penalties in force, in
// hundredths by player.
func (t *Tournament) ClassificationPenalties() map[string]int64 {
	pen := map[string]int64{}
	for _, s := range t.Sanctions {
		if !s.Revoked && s.Kind == "classification_points" {
			pen[s.Player] += int64(s.Amount) * 100
		}
	}
	return pen
}

// StandingRows ranks the qualifying rounds (RULES.md §6).
func (t *Tournament) StandingRows() []scoring.Row {
	rolls := make([]scoring.Roll, len(t.Rolls))
	for i, r := range t.Rolls {
		rolls[i] = scoring.Roll{Players: r.Players, Rolls: r.Rolls}
	}
	return scoring.Rank(t.StandingsRules(), t.Ranked(), t.Games(), t.ClassificationPenalties(), rolls)
}

// Standings renders the standings view.
func (t *Tournament) Standings() Standings {
	rows := t.StandingRows()
	pen := t.ClassificationPenalties()
	out := Standings{Tournament: t.ID, Seq: t.Seq, Phase: t.Phase(), Rows: make([]StandingsRow, 0, len(rows))}
	for _, r := range t.Rounds {
		if r.Phase == PhaseQualifying {
			out.Rounds++
		}
	}
	for _, r := range rows {
		p := t.Players[r.Player]
		row := StandingsRow{Rank: r.Rank, Player: r.Player, Name: p.Name, Club: p.Club, Total: Points(r.Total),
			Games: make([]GameView, 0, len(r.Games)), Penalties: Points(pen[r.Player]), Status: p.Status, TieUnresolved: r.TieUnresolved, TieGroup: r.TieGroup}
		for _, g := range r.Games {
			row.Games = append(row.Games, GameView{Round: g.Round, Table: g.Table, Place: g.Place, TablePoints: g.TablePoints,
				Score: Points(g.Score), Discarded: slices.Contains(r.Discarded, g.Round)})
		}
		out.Unresolved = out.Unresolved || r.TieUnresolved
		out.Rows = append(out.Rows, row)
	}
	return out
}

// TieGroups returns the groups of players currently tied unresolved in the
// standings, each in rank order.
func (t *Tournament) TieGroups() [][]string {
	var groups [][]string
	at := map[int]int{}
	for _, r := range t.StandingRows() {
		if r.TieGroup == 0 {
			continue
		}
		i, ok := at[r.TieGroup]
		if !ok {
			i = len(groups)
			at[r.TieGroup] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r.Player)
	}
	return groups
}

// RoundView is the public view of a drawn round (without its tables).
type RoundView struct {
	Round          int                      `json:"round"`
	Phase          string                   `json:"phase"`
	Algorithm      string                   `json:"algorithm"`
	Version        int                      `json:"version"`
	Seed           string                   `json:"seed"`
	Unmet          []events.UnmetConstraint `json:"unmet,omitempty"`
	ReservesSeated []string                 `json:"reserves_seated,omitempty"`
	Drawn          uint64                   `json:"drawn"`
}

// TableView is one table in GET …/rounds/{r}/tables.
type TableView struct {
	Table     int         `json:"table"`
	Players   []string    `json:"players"`
	TurnOrder []string    `json:"turn_order,omitempty"`
	Result    *ResultView `json:"result"`
}

// ResultView is a recorded report with its placement and scores.
type ResultView struct {
	events.ResultRecorded
	Seq       uint64          `json:"seq"`
	Placement []PlacementView `json:"placement"`
}

// PlacementView is one player's outcome at a table.
type PlacementView struct {
	Player      string `json:"player"`
	Place       int    `json:"place"`
	TablePoints int    `json:"table_points"`
	Score       Points `json:"score"`
	Win         bool   `json:"win,omitempty"`
	Out         bool   `json:"out,omitempty"`
	Unresolved  bool   `json:"unresolved,omitempty"`
}

// RoundView renders round n's header, false if not drawn.
func (t *Tournament) RoundView(n int) (RoundView, bool) {
	r := t.Round(n)
	if r == nil {
		return RoundView{}, false
	}
	return RoundView{Round: r.Number, Phase: r.Phase, Algorithm: r.Algorithm, Version: r.Version, Seed: r.Seed,
		Unmet: r.Unmet, ReservesSeated: r.ReservesSeated, Drawn: r.Drawn}, true
}

// TableView renders table n of round r, false if there is none.
func (t *Tournament) TableView(r, n int) (TableView, bool) {
	tb := t.Round(r).Table(n)
	if tb == nil {
		return TableView{}, false
	}
	v := TableView{Table: tb.Number, Players: tb.Players, TurnOrder: tb.TurnOrder}
	if tb.Report != nil {
		rv := &ResultView{ResultRecorded: *tb.Report, Seq: tb.Reported}
		for _, res := range tb.Results {
			rv.Placement = append(rv.Placement, PlacementView{Player: res.Player, Place: res.Place, TablePoints: res.TablePoints,
				Score: Points(res.Score), Win: res.Win, Out: res.Out, Unresolved: res.Unresolved})
		}
		v.Result = rv
	}
	return v, true
}
