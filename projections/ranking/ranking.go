package ranking

import (
	"cmp"
	"slices"

	"github.com/referto/referto/events"
)

// Result is one placing of a player in a tournament, and whether it counts.
type Result struct {
	Tournament string                `json:"tournament"`
	Type       events.TournamentType `json:"tournament_type"`
	Date       string                `json:"date"`
	Player     string                `json:"player"`
	Name       string                `json:"name"`
	Place      int                   `json:"place"`
	Tables     int                   `json:"tables"`
	Rounds     int                   `json:"rounds"`
	// Seq is the publication the placing is read from (what a proof of it
	// proves).
	Seq    uint64  `json:"seq"`
	Score  float64 `json:"score"`
	Counts bool    `json:"counts"`
	// Why says why a result does not count: its tournament does not, too
	// few tables, past the best N, past the rounds cap, a
	// disqualification period.
	Why
}

// Row is one player of the ranking.
type Row struct {
	Rank       int     `json:"rank"`
	NationalID string  `json:"national_id"`
	Name       string  `json:"name"`
	Score      float64 `json:"score"`
	// Disqualified is set when a disqualification period of the player's
	// covers one of his results.
	Disqualified bool     `json:"disqualified,omitempty"`
	Results      []Result `json:"results"`
}

// TypeCount is how a type counts in the season.
type TypeCount struct {
	Type events.TournamentType `json:"tournament_type"`
	// Tournaments is how many tournaments of the type count; Best how many
	// results of it a player sums (0 when MaxRounds caps instead).
	Tournaments int `json:"tournaments"`
	Best        int `json:"best,omitempty"`
	MaxRounds   int `json:"max_rounds,omitempty"`
}

// TournamentUse is whether a tournament counts in the season, and why not.
type TournamentUse struct {
	ID     string                `json:"id"`
	Type   events.TournamentType `json:"tournament_type"`
	Tables int                   `json:"tables"`
	Rounds int                   `json:"rounds"`
	Counts bool                  `json:"counts"`
	// Source is SourceWorkbook for a classification imported from a club
	// workbook.
	Source string `json:"source,omitempty"`
	Why
}

// Similar is a pair of national ids whose names are alike: one person
// under two ids, perhaps, for an admin to merge (PlayersMerged) or not.
type Similar struct {
	IDs          [2]string `json:"national_ids"`
	Names        [2]string `json:"names"`
	EditDistance int       `json:"edit_distance"`
}

// Ranking is a season's national ranking.
type Ranking struct {
	Season string `json:"season"`
	// Thresholds names the season file used and its SHA-256.
	Thresholds       string          `json:"thresholds"`
	ThresholdsSHA256 string          `json:"thresholds_sha256"`
	Types            []TypeCount     `json:"types"`
	Tournaments      []TournamentUse `json:"tournaments"`
	Rows             []Row           `json:"rows"`
	// Unlinked are placings without a national id: they count for no one
	// until the registry links them.
	Unlinked []Result  `json:"unlinked,omitempty"`
	Review   []Similar `json:"review,omitempty"`
}

// Player returns the row of national id id (merges followed by the caller).
func (r *Ranking) Player(id string) (Row, bool) {
	for _, row := range r.Rows {
		if row.NationalID == id {
			return row, true
		}
	}
	return Row{}, false
}

// Compute ranks a season (docs/rules.md#15-the-national-ranking): the
// tournaments of th's season that count, every player's placings scored,
// the best of each type summed, highest first. Tournaments of other
// seasons are left out, and a tournament withheld (Tournament.Withheld) is
// listed, with why, and counts for nothing; reg may be nil (no registry
// events).
func Compute(th *Thresholds, ts []Tournament, reg *Registry) *Ranking {
	if reg == nil {
		reg = NewRegistry()
	}
	out := &Ranking{Season: th.Season, Thresholds: th.File, ThresholdsSHA256: th.SHA256}
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b Tournament) int { return cmp.Compare(a.ID, b.ID) })
	// Which tournaments count, and how many of each type.
	count := map[events.TournamentType]int{}
	why := map[string]Why{}
	for _, t := range ts {
		if t.Season != th.Season {
			continue
		}
		use := TournamentUse{ID: t.ID, Type: t.Type, Tables: t.Tables, Rounds: t.Rounds, Source: t.Source}
		tt, known := th.Types[t.Type]
		switch {
		case t.Withheld != nil:
			use.Why = *t.Withheld
		case !t.Final:
			use.Why = Because(WhyNoFinal)
		case t.Type == "":
			use.Why = Because(WhyNoType)
		case !known:
			use.Why = Because(WhyNoThresholds, t.Type, th.File)
		case t.Tables < tt.MinTables:
			use.Why = Because(WhyFewTables, t.Tables, t.Type, tt.MinTables, th.Season)
		default:
			use.Counts = true
			count[t.Type]++
		}
		why[t.ID] = use.Why
		out.Tournaments = append(out.Tournaments, use)
	}
	for _, k := range events.TournamentTypes() {
		tt, ok := th.Types[k]
		if !ok {
			continue
		}
		tc := TypeCount{Type: k, Tournaments: count[k], MaxRounds: tt.MaxRounds}
		if tt.MaxRounds == 0 {
			tc.Best = tt.Best(count[k])
		}
		out.Types = append(out.Types, tc)
	}
	// Every placing, by player.
	byID := map[string]*Row{}
	for _, t := range ts {
		if t.Season != th.Season || !t.Final || t.Withheld != nil {
			// A withheld tournament's placings are not what it will be
			// verified to hold: none is listed.
			continue
		}
		for _, p := range t.Placings {
			res := Result{Tournament: t.ID, Type: t.Type, Date: t.Date, Player: p.Player, Name: p.Name, Place: p.Place,
				Tables: t.Tables, Rounds: t.Rounds, Seq: t.Seq, Why: why[t.ID]}
			id := reg.NationalID(t.ID, p)
			if id == "" {
				res.Why = Because(WhyNoNationalID)
				out.Unlinked = append(out.Unlinked, res)
				continue
			}
			row := byID[id]
			if row == nil {
				row = &Row{NationalID: id, Name: p.Name}
				byID[id] = row
			}
			if res.Why.None() {
				if d, ok := reg.Disqualified(id, t.Date); ok {
					res.Why = Because(WhyDisqualified, d.From, d.To, d.Reason)
					row.Disqualified = true
				} else {
					res.Score = Score(t.Type, p.Place, t.Tables, t.Rounds)
				}
			}
			row.Results = append(row.Results, res)
		}
	}
	for _, row := range byID {
		row.Score = countBest(th, count, row.Results)
		out.Rows = append(out.Rows, *row)
	}
	slices.SortFunc(out.Rows, func(a, b Row) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.NationalID, b.NationalID)
	})
	for i := range out.Rows {
		out.Rows[i].Rank = i + 1
	}
	out.Review = similar(out.Rows, reg)
	return out
}

// countBest marks which of a player's scored results count, per type, and
// returns their sum: the best Best of each type, or best first while the
// rounds taken are fewer than MaxRounds.
func countBest(th *Thresholds, count map[events.TournamentType]int, results []Result) float64 {
	// Best first; equal scores by tournament id, so that which one counts
	// does not depend on the order the tournaments were read in.
	slices.SortStableFunc(results, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Tournament, b.Tournament)
	})
	total := 0.0
	taken := map[events.TournamentType]int{}
	rounds := map[events.TournamentType]int{}
	for i := range results {
		r := &results[i]
		if !r.Why.None() {
			continue
		}
		tt := th.Types[r.Type]
		switch {
		case tt.MaxRounds > 0 && rounds[r.Type] >= tt.MaxRounds:
			r.Why = Because(WhyRoundsCap, tt.MaxRounds, r.Type, rounds[r.Type])
		case tt.MaxRounds == 0 && taken[r.Type] >= tt.Best(count[r.Type]):
			r.Why = Because(WhyPastBest, taken[r.Type], r.Type)
		default:
			r.Counts = true
			taken[r.Type]++
			rounds[r.Type] += r.Rounds
			total += r.Score
		}
	}
	return total
}
