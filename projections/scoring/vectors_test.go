package scoring

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/referto/referto/events"
)

// vectorsPath is the project's copy of the reference vectors for placement,
// formulas and standings (docs/rules.md §4–§6). .ci/run fails when the team's
// copy differs from it, so the two never drift.
const vectorsPath = "../../testdata/scoring-vectors.json"

type vectorFile struct {
	About  string        `json:"about"`
	Tables []tableVector `json:"tables"`
	Stand  []standVector `json:"standings"`
}

type tableVector struct {
	Name  string `json:"name"`
	Rules struct {
		Formula  events.Formula  `json:"formula"`
		TieChain events.TieChain `json:"tie_chain"`
		TieAtTop events.TieAtTop `json:"tie_at_top"`
		Bonus    int             `json:"bonus"`
	} `json:"rules"`
	Table struct {
		Players   []Seat         `json:"players"`
		Risiko    bool           `json:"risiko"`
		Winner    string         `json:"winner"`
		Penalties map[string]int `json:"penalties"`
	} `json:"table"`
	Expect map[string]struct {
		Place int   `json:"place"`
		Score int64 `json:"score_hundredths"`
	} `json:"expect"`
}

type standVector struct {
	Name  string `json:"name"`
	Rules struct {
		Formula  events.Formula  `json:"formula"`
		Tiebreak events.Tiebreak `json:"tiebreak"`
		Discards int             `json:"discards"`
		TieChain events.TieChain `json:"tie_chain"`
	} `json:"rules"`
	Games []struct {
		Player     string `json:"player"`
		Round      int    `json:"round"`
		Table      int    `json:"table"`
		Place      int    `json:"place"`
		Score      int64  `json:"score_hundredths"`
		Win        bool   `json:"win"`
		Eliminated bool   `json:"eliminated"`
		OthersOut  int    `json:"others_out"`
	} `json:"games"`
	Penalties map[string]int64 `json:"classification_penalties_hundredths"`
	Expect    []struct {
		Player     string `json:"player"`
		Rank       int    `json:"rank"`
		Total      int64  `json:"total_hundredths"`
		Unresolved bool   `json:"tie_unresolved"`
	} `json:"expect"`
}

func loadVectors(t *testing.T) vectorFile {
	t.Helper()
	b, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatalf("reference vectors missing: %v", err)
	}
	var v vectorFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", vectorsPath, err)
	}
	if len(v.Tables) == 0 || len(v.Stand) == 0 {
		t.Fatalf("%s: no vectors (%d tables, %d standings)", vectorsPath, len(v.Tables), len(v.Stand))
	}
	return v
}

func TestVectorsTables(t *testing.T) {
	v := loadVectors(t)
	for _, tc := range v.Tables {
		t.Run(tc.Name, func(t *testing.T) {
			// The vector format leaves the bonus out where a formula has none;
			// where it matters the vectors give 50, the rur-2015 value.
			bonus := tc.Rules.Bonus
			if bonus == 0 {
				bonus = DefaultBonus
			}
			r := Rules{Formula: tc.Rules.Formula, TieChain: tc.Rules.TieChain, TieAtTop: tc.Rules.TieAtTop, Bonus: bonus}
			tab := Table{Players: tc.Table.Players, Risiko: tc.Table.Risiko, Winner: tc.Table.Winner, Penalties: tc.Table.Penalties}
			if err := Validate(r, tab); err != nil {
				t.Errorf("Validate: %v", err)
			}
			got, err := Score(r, tab)
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			if len(got) != len(tc.Expect) {
				t.Fatalf("got %d results, want %d", len(got), len(tc.Expect))
			}
			for _, res := range got {
				want, ok := tc.Expect[res.Player]
				if !ok {
					t.Errorf("unexpected player %q", res.Player)
					continue
				}
				if res.Place != want.Place || res.Score != want.Score {
					t.Errorf("%s: got place %d score %d, want place %d score %d", res.Player, res.Place, res.Score, want.Place, want.Score)
				}
				if res.Unresolved {
					t.Errorf("%s: unresolved", res.Player)
				}
			}
		})
	}
}

func TestVectorsStandings(t *testing.T) {
	v := loadVectors(t)
	for _, tc := range v.Stand {
		t.Run(tc.Name, func(t *testing.T) {
			r := StandingsRules{Formula: tc.Rules.Formula, Tiebreak: tc.Rules.Tiebreak, Discards: tc.Rules.Discards, TieChain: tc.Rules.TieChain}
			var players []string
			for _, e := range tc.Expect {
				players = append(players, e.Player)
			}
			// Feed the players in reverse so that the expected order cannot come
			// from the input order.
			slices.Reverse(players)
			var games []Game
			for _, g := range tc.Games {
				games = append(games, Game{Player: g.Player, Round: g.Round, Table: g.Table, Place: g.Place,
					Score: g.Score, Win: g.Win, Eliminated: g.Eliminated, OthersOut: g.OthersOut})
			}
			got := Rank(r, players, games, tc.Penalties, nil)
			if len(got) != len(tc.Expect) {
				t.Fatalf("got %d rows, want %d", len(got), len(tc.Expect))
			}
			for i := 0; i < len(got); {
				want := tc.Expect[i]
				if !want.Unresolved {
					g := got[i]
					if g.Player != want.Player || g.Rank != want.Rank || g.Total != want.Total || g.TieUnresolved {
						t.Errorf("rank %d: got %s total %d unresolved %v, want %s total %d", i+1, g.Player, g.Total, g.TieUnresolved, want.Player, want.Total)
					}
					i++
					continue
				}
				// An unresolved group: the expectation lists its players in an
				// arbitrary order, and adjacent groups cannot be told apart, so a
				// maximal run of unresolved rows is compared as a set, each player
				// with his own total.
				j := i + 1
				for j < len(got) && tc.Expect[j].Unresolved {
					j++
				}
				wantSet := map[string]int64{}
				for _, e := range tc.Expect[i:j] {
					wantSet[e.Player] = e.Total
				}
				for k, g := range got[i:j] {
					total, ok := wantSet[g.Player]
					if !ok || g.Total != total || !g.TieUnresolved || g.Rank != i+k+1 {
						t.Errorf("rank %d: got %s total %d unresolved %v, want one of %v unresolved", i+k+1, g.Player, g.Total, g.TieUnresolved, wantSet)
					}
				}
				i = j
			}
		})
	}
}
