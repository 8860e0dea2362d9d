package projections

import (
	"fmt"
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/scoring"
)

// ClassificationRow is one line of the final classification.
type ClassificationRow struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	Name   string `json:"name"`
	Club   string `json:"club,omitempty"`
	// Phase is the group the player is ranked in: final, finalina,
	// semifinal, quarterfinal, second_chance or qualifying.
	Phase events.Phase `json:"phase"`
	// Place is the placement at the final or finalina table.
	Place         int                 `json:"place,omitempty"`
	Total         Points              `json:"total"`
	Status        events.PlayerStatus `json:"status"`
	TieUnresolved bool                `json:"tie_unresolved,omitempty"`
	TieGroup      int                 `json:"tie_group,omitempty"`
	// Settled says how this row came to rank right after the row above
	// it, when both stood level before the tie-breaks: the rule, or the
	// die roll, that decided (docs/rules.md#6-standings).
	Settled *Settled `json:"settled,omitempty"`
	// Signature pins a tie-break roll to this row's tie (scoring.Signature).
	Signature string `json:"-"`
}

// Settled is how a tie between two adjacent rows was settled; RollSeq is
// the seq of the TieBreakRolled event when a die decided.
type Settled struct {
	scoring.Settlement
	RollSeq uint64 `json:"roll_seq,omitempty"`
}

// Published is the row as ClassificationPublished records it: what the
// published classification states, and all that verify compares.
func (r ClassificationRow) Published() events.ClassificationRow {
	return events.ClassificationRow{Rank: r.Rank, Player: r.Player, Name: r.Name, Phase: r.Phase, Total: int64(r.Total), Status: r.Status}
}

// Classification is the final classification as it stands (docs/rules.md#7-formats-and-the-rur-knockout).
type Classification struct {
	Tournament string              `json:"tournament"`
	Seq        uint64              `json:"seq"`
	Final      bool                `json:"final"`
	Rows       []ClassificationRow `json:"rows"`
	Expelled   []string            `json:"expelled,omitempty"`
	// Unresolved reports rows awaiting a die roll; Open lists the tables
	// still without a result. Either refuses publication.
	Unresolved bool     `json:"unresolved,omitempty"`
	Open       []string `json:"open,omitempty"`
	Checkpoint string   `json:"checkpoint,omitempty"`
	// Imported, when the last publication was an imported workbook's
	// standings, is what the file published, with the rows the ruleset's
	// computation above disagrees on (docs/workbook.md).
	Imported *events.ClassificationImported `json:"imported,omitempty"`
}

// groupOrder ranks the groups: the final's placement first, then the
// finalina, then the losers of each earlier phase, then the rest.
var groupOrder = []events.Phase{events.PhaseFinal, events.PhaseFinalina, events.PhaseSemifinal, events.PhaseQuarterfinal, events.PhaseSecondChance, events.PhaseQualifying}

// Classification computes the final classification (docs/rules.md#7-formats-and-the-rur-knockout): the
// final's placement; the finalina's; then the losers of each earlier phase,
// latest phase first, each ranked by their counted qualifying games plus the
// game of the phase they lost, and nothing else: rur-2015 art. 1 ranks the
// semifinal losers "sommando i punti ottenuti nelle prime due partite e nella
// semifinale", so a quarter winner's quarterfinal game does not count there,
// and the quarterfinal losers by their three games. Everyone who played no
// knockout game ranks last by the qualifying standings, a qualifier who
// renounced before playing included: he "ha giocato solo le due partite del
// sabato". The second-chance game of rtu's direct elimination is what rtu
// calls it, "seconda partita di qualificazione": it counts as a qualifying
// game. A player who renounced after playing a phase ranks with that
// phase's losers (a semifinal winner who renounces the final, by the same
// sum). The final's and the finalina's totals count every game, the whole
// tournament. Ties within a group go through the standings chain; expelled
// players are listed apart. A tournament recorded under edition 1 of the
// rules (events.CurrentEdition) is classified as edition 1 did.
func (t *Tournament) Classification() Classification {
	games := t.Games()
	return t.classification(games, t.standingRows(games))
}

// classification is Classification from the tournament's games and their
// ranking (standingRows), which it only reads.
func (t *Tournament) classification(games []scoring.Game, standings []scoring.Row) Classification {
	out := Classification{Tournament: t.ID, Seq: t.StandingsSeq, Final: t.Published != nil && t.Published.Final}
	if t.Published != nil {
		out.Checkpoint = t.Published.Checkpoint
	}
	out.Imported = t.Imported
	edition := t.ScoringEdition()
	qualTotal := map[string]int64{}
	counted := map[string][]scoring.Game{}
	// From edition 4 a knockout group's chain reads every qualifying game,
	// the discarded ones marked so that its total leaves them out
	// (docs/rules.md#6-standings); edition 3 and earlier read the counted
	// games only.
	everyGame := t.Ruleset.RulesEdition() >= 4
	for _, r := range standings {
		qualTotal[r.Player] = r.Total
		for _, g := range r.Games {
			discarded := slices.Contains(r.Discarded, g.Round)
			if everyGame {
				g.Discarded = discarded
				counted[r.Player] = append(counted[r.Player], g)
			} else if !discarded {
				counted[r.Player] = append(counted[r.Player], g)
			}
		}
	}
	ends := t.knockoutEnds(edition)
	out.Open = t.openTables()

	members := map[events.Phase][]string{}
	for _, r := range standings { // standings order within each group
		g := ends.group[r.Player]
		if g == "" {
			g = events.PhaseQualifying
		}
		members[g] = append(members[g], r.Player)
	}
	rank := 0
	pen := t.ClassificationPenalties()
	for _, g := range groupOrder {
		players := members[g]
		if len(players) == 0 {
			continue
		}
		var rows []scoring.Row
		if g == events.PhaseQualifying && len(players) == len(standings) {
			rows = standings // nobody went further: the standings are the classification
		} else if g == events.PhaseQualifying {
			// The rest rank by the standings rules among themselves, so that
			// a tie is never shared with someone ranked in another group.
			rows = scoring.Rank(t.StandingsRules(), players, games, pen, t.rolls())
		} else {
			rows = t.knockoutGroup(g, players, counted, ends, pen, edition)
		}
		base := rank
		settled := t.settlements(g, rows)
		for i, r := range rows {
			rank++
			p := t.Players[r.Player]
			row := ClassificationRow{Rank: rank, Player: r.Player, Name: p.Name, Club: p.Club, Phase: g, Place: ends.place[r.Player],
				Total: Points(r.Total), Status: p.Status, TieUnresolved: r.TieUnresolved, Signature: scoring.Signature(r)}
			if g == events.PhaseQualifying {
				row.Total = Points(qualTotal[r.Player])
			}
			if r.TieGroup > 0 {
				row.TieGroup = base + r.TieGroup
			}
			row.Settled = settled[i]
			out.Unresolved = out.Unresolved || r.TieUnresolved
			out.Rows = append(out.Rows, row)
		}
	}
	for _, id := range t.Order {
		if t.Players[id].Status == events.StatusExpelled {
			out.Expelled = append(out.Expelled, id)
		}
	}
	return out
}

// settlements explains, for each row of group g but the first, how it came
// after the row above when both stood level: nil where the totals decided,
// and throughout the final and the finalina, ordered by their tables.
func (t *Tournament) settlements(g events.Phase, rows []scoring.Row) []*Settled {
	out := make([]*Settled, len(rows))
	if g == events.PhaseFinal || g == events.PhaseFinalina || len(rows) < 2 {
		return out
	}
	rules := t.StandingsRules()
	rolls := t.rolls()
	var rollSeqs []uint64
	for _, a := range t.Acts {
		if a.Type == events.TypeTieBreakRolled {
			rollSeqs = append(rollSeqs, a.Seq)
		}
	}
	for i := 1; i < len(rows); i++ {
		if s, ok := scoring.Explain(rules, rows[i-1], rows[i], rolls); ok {
			st := &Settled{Settlement: s}
			// A state snapshotted before Acts existed lacks the earlier rolls' seqs.
			if s.Rule == "roll" && len(rollSeqs) == len(rolls) {
				st.RollSeq = rollSeqs[s.Roll]
			}
			out[i] = st
		}
	}
	return out
}

// knockoutEnd is where each player ends: the last knockout table they sat
// at, and the games they played there. A player never seated in a knockout
// phase (a bye or a qualifier who renounced before playing) stays with the
// qualifying group.
type knockoutEnd struct {
	group        map[string]events.Phase
	phaseGames   map[string][]scoring.Game // at the table of group[player]
	secondChance map[string][]scoring.Game // rtu: "seconda partita di qualificazione"
	koGames      map[string][]scoring.Game // every knockout game
	place        map[string]int
	atTable      map[string]int // result order at the final and finalina tables
}

func (t *Tournament) knockoutEnds(edition scoring.Edition) knockoutEnd {
	e := knockoutEnd{group: map[string]events.Phase{}, phaseGames: map[string][]scoring.Game{}, secondChance: map[string][]scoring.Game{},
		koGames: map[string][]scoring.Game{}, place: map[string]int{}, atTable: map[string]int{}}
	for _, r := range t.Rounds {
		if r.Phase == events.PhaseQualifying {
			continue
		}
		for _, tb := range r.Tables {
			label := r.Label(tb.Number)
			for _, p := range tb.Players {
				e.group[p] = label
				e.phaseGames[p] = nil
			}
			for _, res := range tb.Results {
				g := scoring.Game{Player: res.Player, Round: r.Number, Table: tb.Number,
					Place: res.Place, Score: res.Score, TablePoints: res.TablePoints, Win: res.Win, Eliminated: res.Out, OthersOut: res.OthersOut}
				if label == events.PhaseSecondChance {
					e.secondChance[res.Player] = append(e.secondChance[res.Player], g)
				} else {
					e.phaseGames[res.Player] = []scoring.Game{g}
				}
				e.koGames[res.Player] = append(e.koGames[res.Player], g)
				if label == events.PhaseFinal || label == events.PhaseFinalina {
					e.place[res.Player] = res.Place
					if edition != scoring.Edition1 {
						// Within a shared place, the table's order: the
						// chain's, then the die's, as at any knockout table.
						e.atTable[res.Player] = len(e.atTable)
					}
				}
			}
		}
		if edition == scoring.Edition1 {
			// Edition 1 ranked a bye who renounced the phase he was
			// qualified for with the losers of the phase he skipped.
			for _, p := range r.Byes {
				if _, seated := e.group[p]; !seated {
					if _, renounced := t.Renounced[p]; renounced {
						e.group[p] = r.Phase
					}
				}
			}
		}
	}
	return e
}

// openTables lists the tables still without a result.
func (t *Tournament) openTables() []string {
	var open []string
	for _, r := range t.Rounds {
		for _, tb := range r.Tables {
			if tb.Report == nil && tb.Annulled == nil {
				open = append(open, fmt.Sprintf("round %d (%s) table %d", r.Number, r.Label(tb.Number), tb.Number))
			}
		}
	}
	return open
}

// knockoutGroup ranks the players who ended in knockout phase g. counted
// are each player's qualifying games the standings counted, or every one
// with the discarded ones marked (scoring.Game.Discarded).
func (t *Tournament) knockoutGroup(g events.Phase, players []string, counted map[string][]scoring.Game, e knockoutEnd, pen map[string]int64, edition scoring.Edition) []scoring.Row {
	// The final and the finalina are ordered by their placement; their
	// totals show the whole tournament.
	final := g == events.PhaseFinal || g == events.PhaseFinalina
	var gs []scoring.Game
	for _, p := range players {
		gs = append(gs, counted[p]...)
		// Edition 1 summed every knockout game in every group.
		if final || edition == scoring.Edition1 {
			gs = append(gs, e.koGames[p]...)
		} else {
			gs = append(gs, e.secondChance[p]...)
			gs = append(gs, e.phaseGames[p]...)
		}
	}
	// The formula's primary order (wins, medals) holds in every group as in
	// the standings (edition 1 ranked groups by total).
	rules := scoring.StandingsRules{Edition: edition, Tiebreak: t.Ruleset.Tiebreak}
	if edition != scoring.Edition1 {
		rules.Formula = t.Ruleset.Scoring
	}
	rows := scoring.Rank(rules, players, gs, pen, t.rolls())
	if final {
		rows = byPlace(rows, e.place, e.atTable)
	}
	return rows
}

// byPlace orders the rows of a final table by placement there; players
// without a placement yet keep the group ranking after those placed. A place
// shared by a split bonus keeps the tie chain's order and its tie flags.
//
// With atTable (edition 2: each placed player's position in the table's
// results), a shared place keeps the table's order, the chain's then the
// die's, which the report had to settle at a knockout table; nothing placed
// is left tied then.
func byPlace(rows []scoring.Row, place, atTable map[string]int) []scoring.Row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b scoring.Row) int {
		pa, pb := place[a.Player], place[b.Player]
		switch {
		case pa == 0 && pb == 0:
			return 0
		case pa == 0:
			return 1
		case pb == 0:
			return -1
		}
		if pa == pb && len(atTable) > 0 {
			return atTable[a.Player] - atTable[b.Player]
		}
		return pa - pb
	})
	for i := range out {
		// A placement decided at the table needs no roll; only a shared
		// place with equal totals can leave a tie.
		if p := place[out[i].Player]; p > 0 && len(atTable) > 0 {
			out[i].TieUnresolved, out[i].TieGroup = false, 0
		} else if p > 0 {
			shared := false
			for j := range out {
				if j != i && place[out[j].Player] == p {
					shared = true
				}
			}
			if !shared {
				out[i].TieUnresolved, out[i].TieGroup = false, 0
			}
		}
	}
	return out
}

// ClassificationTieGroups returns the unresolved ties of the classification.
func (t *Tournament) ClassificationTieGroups() [][]string {
	groups, _ := t.classificationTies()
	return groups
}

// classificationTies returns the unresolved ties and each tied player's signature.
func (t *Tournament) classificationTies() ([][]string, map[string]string) {
	var groups [][]string
	sigs := map[string]string{}
	at := map[int]int{}
	for _, r := range t.Classification().Rows {
		if r.TieGroup == 0 {
			continue
		}
		sigs[r.Player] = r.Signature
		i, ok := at[r.TieGroup]
		if !ok {
			i = len(groups)
			at[r.TieGroup] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r.Player)
	}
	return groups, sigs
}

// TiesAwaitingRoll returns every unresolved tie, of the standings and (once
// a knockout phase is played) of the classification, and the signature a
// roll for each tied player must record.
func (t *Tournament) TiesAwaitingRoll() ([][]string, map[string]string) {
	groups := t.TieGroups()
	sigs := t.Signatures()
	cg, csigs := t.classificationTies()
	for _, g := range cg {
		dup := false
		for _, h := range groups {
			if slices.Equal(g, h) && csigs[g[0]] == sigs[g[0]] {
				dup = true
			}
		}
		if !dup {
			groups = append(groups, g)
			for _, p := range g {
				sigs[p] = csigs[p]
			}
		}
	}
	return groups, sigs
}
