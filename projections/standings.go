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
	// Annulled marks a game of an annulled table; Pending, one whose score
	// (from the next round) is not known yet.
	Annulled bool `json:"annulled,omitempty"`
	Pending  bool `json:"pending,omitempty"`
}

// StandingsRow is one line of GET …/standings.
type StandingsRow struct {
	Rank          int                 `json:"rank"`
	Player        string              `json:"player"`
	Name          string              `json:"name"`
	Club          string              `json:"club,omitempty"`
	Total         Points              `json:"total"`
	Games         []GameView          `json:"games"`
	Penalties     Points              `json:"penalties,omitempty"`
	Status        events.PlayerStatus `json:"status"`
	TieUnresolved bool                `json:"tie_unresolved,omitempty"`
	// TieGroup is the rank of the first row of the unresolved tie this row
	// is in: rows with the same tie_group roll the die together.
	TieGroup int `json:"tie_group,omitempty"`
}

// Standings is the qualifying classification as it stands.
type Standings struct {
	Tournament string `json:"tournament"`
	// Seq is the last event that changed the standings: they are as of it.
	Seq    uint64         `json:"seq"`
	Phase  events.Phase   `json:"phase"`
	Rounds int            `json:"rounds"`
	Rows   []StandingsRow `json:"rows"`
	// Expelled players are listed apart from the ranked rows (docs/rules.md#10-sanctions).
	Expelled []StandingsRow `json:"expelled,omitempty"`
	// Unresolved reports that some row awaits a die roll.
	Unresolved bool `json:"unresolved,omitempty"`
}

// StandingsRules returns the standings rules of the tournament's ruleset.
func (t *Tournament) StandingsRules() scoring.StandingsRules {
	rs := t.Ruleset
	chain, die := TiebreakRules(rs)
	sr := scoring.StandingsRules{Edition: t.ScoringEdition(), Formula: rs.Scoring, Tiebreak: rs.Tiebreak, Discards: rs.Discards, TieChain: rs.TieChain,
		Source: chain, RollSource: die}
	if sr.Edition == scoring.EditionCurrent {
		// Edition 3: the best qualifying rounds − discards results count.
		sr.Rounds = rs.QualifyingRounds
	}
	return sr
}

// TiebreakRules cite where the ruleset's own rulebook writes its standings
// chain and the die that ends it, or docs/rules.md where it does not: the
// rur chain is rur-2015 art. 1, and the pinned reading of
// docs/rules.md#61-pinned-rur-2015-art-1-literally under the rulesets that
// leave the tie-break to the organizer; the cirki chain is cirki-2001 §14,
// which names no die.
func TiebreakRules(rs events.Ruleset) (chain, die string) {
	const rurChain, pinned, standings = "rur-2015 art. 1", "docs/rules.md#61-pinned-rur-2015-art-1-literally", "docs/rules.md#6-standings"
	switch {
	case rs.Tiebreak == events.TiebreakCirki && rs.Preset == events.PresetCirki2001:
		return "cirki-2001 §14", standings
	case rs.Tiebreak == events.TiebreakCirki:
		return standings, standings
	case rs.Preset == events.PresetRUR2015:
		return rurChain, rurChain
	}
	return pinned, pinned
}

// ScoringEdition is the reading of the rules the tournament was created
// under (events.Ruleset.RulesEdition), as the scorer takes it.
func (t *Tournament) ScoringEdition() scoring.Edition {
	switch t.Ruleset.RulesEdition() {
	case 1:
		return scoring.Edition1
	case 2:
		return scoring.Edition2
	}
	return scoring.EditionCurrent
}

// Ranked returns the ids of the players the standings rank: entrants who
// are active or withdrew, in registration order. Refused registrations and
// unseated reserves are not ranked.
func (t *Tournament) Ranked() []string {
	var out []string
	for _, id := range t.Order {
		switch t.Players[id].Status {
		case events.StatusActive, events.StatusWithdrawn:
			out = append(out, id)
		}
	}
	return out
}

// Games returns every scored game of the qualifying rounds. A game of an
// annulled table (docs/rules.md#12-annulled-game) scores, for each player not at fault, what
// that player scored in the next round, or in the previous round when the
// annulled round was the last; it is left out until that score exists. The
// culprit scores 0.
func (t *Tournament) Games() []scoring.Game {
	// Sized first: grown by appending, the slice of a large tournament's
	// games (770,000 in the million-event benchmark) is copied and cleared
	// a dozen times over.
	n := 0
	for _, r := range t.Rounds {
		if r.Phase == events.PhaseQualifying {
			for _, tb := range r.Tables {
				n += max(len(tb.Results), len(tb.Players))
			}
		}
	}
	games := make([]scoring.Game, 0, n)
	var annulled []*Table
	var annulledRound []int
	for _, r := range t.Rounds {
		if r.Phase != events.PhaseQualifying {
			continue
		}
		for _, tb := range r.Tables {
			if tb.Annulled != nil {
				annulled, annulledRound = append(annulled, tb), append(annulledRound, r.Number)
				continue
			}
			for _, res := range tb.Results {
				games = append(games, scoring.Game{Player: res.Player, Round: r.Number, Table: tb.Number, Place: res.Place,
					Score: res.Score, TablePoints: res.TablePoints, Win: res.Win, Eliminated: res.Out, OthersOut: res.OthersOut})
			}
		}
	}
	if len(annulled) == 0 {
		return games
	}
	// The games of the players of annulled tables, by player and round.
	byRound := map[string]map[int]scoring.Game{}
	for _, tb := range annulled {
		for _, p := range tb.Players {
			byRound[p] = map[int]scoring.Game{}
		}
	}
	for _, g := range games {
		if m := byRound[g.Player]; m != nil {
			m[g.Round] = g
		}
	}
	for i, tb := range annulled {
		r := annulledRound[i]
		for _, p := range tb.Players {
			if p == tb.Annulled.Culprit {
				games = append(games, scoring.Game{Player: p, Round: r, Table: tb.Number, Eliminated: true})
				continue
			}
			if g, ok := t.annulledScore(byRound[p], r); ok {
				games = append(games, scoring.Game{Player: p, Round: r, Table: tb.Number, Score: g.Score, TablePoints: g.TablePoints})
			}
		}
	}
	return games
}

// annulledScore finds the game an annulled game of round r takes its score
// from: the next qualifying round, or the previous one when r is the last.
func (t *Tournament) annulledScore(played map[int]scoring.Game, r int) (scoring.Game, bool) {
	from := r + 1
	if r >= t.Ruleset.QualifyingRounds {
		from = r - 1
	}
	g, ok := played[from]
	return g, ok
}

// ClassificationPenalties returns the classification penalties in force, in
// hundredths by player: classification-points sanctions, and the malus of a
// ruleset that punishes leaving a game (campionato-2003: 150 points per
// game withdrawn from, never discarded).
func (t *Tournament) ClassificationPenalties() map[string]int64 {
	pen := map[string]int64{}
	for _, s := range t.Sanctions {
		if !s.Revoked && s.Kind == events.SanctionClassificationPoints {
			pen[s.Player] += int64(s.Amount) * 100
		}
	}
	if malus := int64(t.Ruleset.WithdrawalMalus) * 100; malus > 0 {
		for _, r := range t.Rounds {
			for _, tb := range r.Tables {
				if tb.Report == nil || tb.Annulled != nil {
					continue
				}
				for _, p := range tb.Report.Players {
					if p.Status == events.SeatWithdrawn {
						pen[p.Player] += malus
					}
				}
			}
		}
	}
	return pen
}

// StandingRows ranks the qualifying rounds (docs/rules.md#6-standings).
func (t *Tournament) StandingRows() []scoring.Row {
	return t.standingRows(t.Games())
}

func (t *Tournament) standingRows(games []scoring.Game) []scoring.Row {
	return scoring.Rank(t.StandingsRules(), t.Ranked(), games, t.ClassificationPenalties(), t.rolls())
}

func (t *Tournament) rolls() []scoring.Roll {
	rolls := make([]scoring.Roll, len(t.Rolls))
	for i, r := range t.Rolls {
		rolls[i] = scoring.Roll{Players: r.Players, Rolls: r.Rolls, Signatures: r.Signatures}
	}
	return rolls
}

// Standings renders the standings view.
func (t *Tournament) Standings() Standings {
	games := t.Games()
	return t.standings(games, t.standingRows(games))
}

// Rankings returns Standings and Classification, the field ranked once
// for both (the flusher stores the two together).
func (t *Tournament) Rankings() (Standings, Classification) {
	games := t.Games()
	rows := t.standingRows(games)
	return t.standings(games, rows), t.classification(games, rows)
}

// standings is Standings from the tournament's games and their ranking
// (standingRows), which it only reads.
func (t *Tournament) standings(games []scoring.Game, rows []scoring.Row) Standings {
	played := map[string]map[int]scoring.Game{}
	for _, g := range games {
		if played[g.Player] == nil {
			played[g.Player] = map[int]scoring.Game{}
		}
		played[g.Player][g.Round] = g
	}
	pen := t.ClassificationPenalties()
	annulled := t.annulledQualifying()
	out := Standings{Tournament: t.ID, Seq: t.StandingsSeq, Phase: t.Phase(), Rows: make([]StandingsRow, 0, len(rows))}
	for _, r := range t.Rounds {
		if r.Phase == events.PhaseQualifying {
			out.Rounds++
		}
	}
	for _, r := range rows {
		p := t.Players[r.Player]
		row := StandingsRow{Rank: r.Rank, Player: r.Player, Name: p.Name, Club: p.Club, Total: Points(r.Total),
			Games: make([]GameView, 0, len(r.Games)), Penalties: Points(pen[r.Player]), Status: p.Status, TieUnresolved: r.TieUnresolved, TieGroup: r.TieGroup}
		for _, g := range r.Games {
			row.Games = append(row.Games, t.gameView(g, slices.Contains(r.Discarded, g.Round)))
		}
		row.Games = append(row.Games, t.pendingGames(r.Player, played[r.Player], annulled)...)
		out.Unresolved = out.Unresolved || r.TieUnresolved
		out.Rows = append(out.Rows, row)
	}
	// Expelled players: listed apart, with the games they played.
	var expelled []string
	for _, id := range t.Order {
		if t.Players[id].Status == events.StatusExpelled {
			expelled = append(expelled, id)
		}
	}
	if len(expelled) > 0 {
		for _, r := range scoring.Rank(t.StandingsRules(), expelled, games, pen, nil) {
			p := t.Players[r.Player]
			row := StandingsRow{Player: r.Player, Name: p.Name, Club: p.Club, Total: Points(r.Total), Penalties: Points(pen[r.Player]),
				Status: events.StatusExpelled, Games: make([]GameView, 0, len(r.Games))}
			for _, g := range r.Games {
				row.Games = append(row.Games, t.gameView(g, slices.Contains(r.Discarded, g.Round)))
			}
			out.Expelled = append(out.Expelled, row)
		}
	}
	return out
}

func (t *Tournament) gameView(g scoring.Game, discarded bool) GameView {
	v := GameView{Round: g.Round, Table: g.Table, Place: g.Place, TablePoints: g.TablePoints, Score: Points(g.Score), Discarded: discarded}
	if tb := t.Round(g.Round).Table(g.Table); tb != nil && tb.Annulled != nil {
		v.Annulled = true
	}
	return v
}

// roundTable is a table of a round.
type roundTable struct {
	round int
	table *Table
}

// annulledQualifying lists the annulled qualifying tables, in order: few,
// so that looking through them for each player costs nothing.
func (t *Tournament) annulledQualifying() []roundTable {
	var out []roundTable
	for _, r := range t.Rounds {
		if r.Phase != events.PhaseQualifying {
			continue
		}
		for _, tb := range r.Tables {
			if tb.Annulled != nil {
				out = append(out, roundTable{r.Number, tb})
			}
		}
	}
	return out
}

// pendingGames lists a player's annulled games whose score is not known yet.
func (t *Tournament) pendingGames(player string, played map[int]scoring.Game, annulled []roundTable) []GameView {
	var out []GameView
	for _, a := range annulled {
		if a.table.Annulled.Culprit == player || !slices.Contains(a.table.Players, player) {
			continue
		}
		if _, ok := t.annulledScore(played, a.round); !ok {
			out = append(out, GameView{Round: a.round, Table: a.table.Number, Annulled: true, Pending: true})
		}
	}
	return out
}

// TieGroups returns the groups of players currently tied unresolved in the
// standings, each in rank order.
func (t *Tournament) TieGroups() [][]string {
	return tieGroups(t.StandingRows())
}

// Signatures returns where each player stands for a tie-break roll.
func (t *Tournament) Signatures() map[string]string {
	out := map[string]string{}
	for _, r := range t.StandingRows() {
		out[r.Player] = scoring.Signature(r)
	}
	return out
}

func tieGroups(rows []scoring.Row) [][]string {
	var groups [][]string
	at := map[int]int{}
	for _, r := range rows {
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
	Phase          events.Phase             `json:"phase"`
	Algorithm      string                   `json:"algorithm"`
	Version        int                      `json:"version"`
	Seed           string                   `json:"seed"`
	Unmet          []events.UnmetConstraint `json:"unmet,omitempty"`
	ReservesSeated []string                 `json:"reserves_seated,omitempty"`
	// Seeds, Byes and Labels of a knockout round: the qualifiers in seed
	// order, who went straight to the next phase, and tables playing
	// another phase (the finalina).
	Seeds  []string                `json:"seeds,omitempty"`
	Byes   []string                `json:"byes,omitempty"`
	Labels map[string]events.Phase `json:"labels,omitempty"`
	Drawn  uint64                  `json:"drawn"`
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
		Unmet: r.Unmet, ReservesSeated: r.ReservesSeated, Seeds: r.Seeds, Byes: r.Byes, Labels: r.Labels, Drawn: r.Drawn}, true
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
