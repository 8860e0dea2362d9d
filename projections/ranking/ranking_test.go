package ranking_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/ranking"
)

// fixture is testdata/season-2024.json: a season's tournaments as the
// ranking reads them, and the season registry's events.
type fixture struct {
	Season      string               `json:"season"`
	Tournaments []ranking.Tournament `json:"tournaments"`
	Registry    []struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	} `json:"registry"`
}

func loadFixture(t *testing.T) (fixture, *ranking.Registry) {
	t.Helper()
	b, err := os.ReadFile("testdata/season-2024.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	reg := ranking.NewRegistry()
	for _, e := range f.Registry {
		ev, err := events.Decode(events.Envelope{Type: e.Type, V: 1, Data: e.Data, ID: "registry"})
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	return f, reg
}

// The figures of the 2024 season and the classes, copied by hand from the
// reference (docs/rules.md#15-the-national-ranking), not from the season
// file: min tables, min tournaments, max percentage, rounds cap.
var figures2024 = map[string][4]float64{
	"MASTER":           {6, 3, 30, 0},
	"RADUNO_NAZIONALE": {6, 1, 33.3, 0},
	"CAMPIONATO":       {6, 1, 100, 45},
	"INTERCLUB":        {6, 1, 33.3, 0},
	"OPEN":             {6, 3, 13.5, 0},
}

func class(typ string, rounds int) float64 {
	switch typ {
	case "RADUNO_NAZIONALE":
		return 5
	case "MASTER":
		return 4
	case "OPEN":
		return 2
	case "INTERCLUB":
		return 1.5
	}
	// CAMPIONATO, by rounds
	return map[int]float64{0: 0.2, 1: 0.2, 2: 0.2, 3: 0.5, 4: 0.7, 5: 0.8}[min(rounds, 6)] + map[bool]float64{true: 1}[rounds >= 6]
}

// independent computes the ranking of the fixture the plain way the
// reference states it, as a map from national id to total, with the
// tournament-and-id pairs whose results count.
func independent(f fixture) (map[string]float64, map[string]bool) {
	// The registry, written out: links, the merge, the disqualification.
	idOf := func(tour, player, given string) string {
		switch {
		case tour == "raduno-2024" && player == "p1011":
			given = "1011"
		case tour == "open-a" && player == "p-x":
			given = "1010"
		}
		if given == "1019" {
			given = "1009"
		}
		return given
	}
	disqualified := func(id, date string) bool { return id == "1005" && date >= "2024-04-01" && date <= "2024-06-30" }

	held := map[string]int{}
	counts := map[string]bool{}
	for _, t := range f.Tournaments {
		fig := figures2024[string(t.Type)]
		if t.Season == "2024" && t.Final && float64(t.Tables) >= fig[0] {
			held[string(t.Type)]++
			counts[t.ID] = true
		}
	}
	type res struct {
		score  float64
		rounds int
		key    string
	}
	byType := map[string]map[string][]res{} // id → type → results
	for _, t := range f.Tournaments {
		if !counts[t.ID] {
			continue
		}
		for _, p := range t.Placings {
			id := idOf(t.ID, p.Player, p.NationalID)
			if id == "" || disqualified(id, t.Date) {
				continue
			}
			tables := float64(t.Tables)
			a := 1.0
			if p.Place == 1 {
				a = 1.2
			}
			vt := a * (100 + 1*tables) * class(string(t.Type), t.Rounds)
			s := vt
			if p.Place != 1 {
				s = vt * math.Exp(-float64(p.Place)/20)
			}
			if byType[id] == nil {
				byType[id] = map[string][]res{}
			}
			byType[id][string(t.Type)] = append(byType[id][string(t.Type)], res{s, t.Rounds, t.ID + "/" + id})
		}
	}
	total := map[string]float64{}
	taken := map[string]bool{}
	for id, types := range byType {
		total[id] = 0
		for typ, rs := range types {
			sort.Slice(rs, func(i, j int) bool { return rs[i].score > rs[j].score })
			fig := figures2024[typ]
			if fig[3] > 0 {
				rounds := 0
				for _, r := range rs {
					if float64(rounds) >= fig[3] {
						break
					}
					rounds += r.rounds
					total[id] += r.score
					taken[r.key] = true
				}
				continue
			}
			n := int(math.Max(fig[1], math.Floor(float64(held[typ])*fig[2]/100)))
			for i := 0; i < n && i < len(rs); i++ {
				total[id] += rs[i].score
				taken[rs[i].key] = true
			}
		}
	}
	return total, taken
}

func TestSeasonFixtureEqualsTheReferenceComputation(t *testing.T) {
	f, reg := loadFixture(t)
	th, err := ranking.Season("2024")
	if err != nil {
		t.Fatal(err)
	}
	got := ranking.Compute(th, f.Tournaments, reg)
	want, taken := independent(f)

	if len(got.Rows) != len(want) {
		t.Fatalf("%d players ranked, want %d", len(got.Rows), len(want))
	}
	for i, row := range got.Rows {
		if w, ok := want[row.NationalID]; !ok || math.Abs(row.Score-w) > 1e-9 {
			t.Errorf("%s: score %.6f, want %.6f", row.NationalID, row.Score, w)
		}
		if i > 0 && got.Rows[i-1].Score < row.Score {
			t.Errorf("row %d (%.3f) above a higher score (%.3f)", i, got.Rows[i-1].Score, row.Score)
		}
		for _, r := range row.Results {
			if r.Counts != taken[r.Tournament+"/"+row.NationalID] {
				t.Errorf("%s at %s: counts %v (%s), the reference says %v", row.NationalID, r.Tournament, r.Counts, r.Why.Text, !r.Counts)
			}
			if !r.Counts && (r.Why.Text == "" || r.Why.Code == "") {
				t.Errorf("%s at %s does not count and says no why", row.NationalID, r.Tournament)
			}
		}
	}
	if got.Thresholds != "projections/ranking/seasons/2024.json" || len(got.ThresholdsSHA256) != 64 {
		t.Errorf("the ranking names %q (%s) as its thresholds", got.Thresholds, got.ThresholdsSHA256)
	}
}

// TestWhyAResultDoesNotCount pins each reason the fixture exercises.
func TestWhyAResultDoesNotCount(t *testing.T) {
	f, reg := loadFixture(t)
	th, _ := ranking.Season("2024")
	got := ranking.Compute(th, f.Tournaments, reg)
	why := func(id, tour string) string {
		row, ok := got.Player(id)
		if !ok {
			t.Fatalf("%s not ranked", id)
		}
		for _, r := range row.Results {
			if r.Tournament == tour {
				return r.Why.Text
			}
		}
		t.Fatalf("%s has no result at %s", id, tour)
		return ""
	}
	for _, tc := range []struct{ id, tour, want string }{
		{"1001", "master-c", "too few tables: 5, MASTER needs 6 in 2024"},
		{"1001", "master-d", "past the best 3 of MASTER"},
		{"1005", "master-b", "disqualification period 2024-04-01..2024-06-30"},
		{"1004", "camp-c", "past the cap of 45 rounds of CAMPIONATO"},
		{"1009", "master-e", ""}, // 1019's result, merged into 1009
		{"1010", "open-a", ""},   // linked by the registry
	} {
		if w := why(tc.id, tc.tour); !strings.HasPrefix(w, tc.want) || (tc.want == "" && w != "") {
			t.Errorf("%s at %s: why %q, want %q", tc.id, tc.tour, w, tc.want)
		}
	}
	if row, _ := got.Player("1005"); !row.Disqualified {
		t.Error("1005 is not flagged disqualified")
	}
	if _, ok := got.Player("1019"); ok {
		t.Error("1019, merged into 1009, still has a row")
	}
	if len(got.Review) != 1 || got.Review[0].IDs != [2]string{"1003", "1013"} {
		t.Errorf("review: %+v, want 1003 and 1013 (Luca Bianchi, Luca Bianchl)", got.Review)
	}
	for _, u := range got.Tournaments {
		if u.ID == "master-2023" {
			t.Error("a tournament of 2023 is in the 2024 ranking")
		}
		if u.ID == "open-b" && (u.Counts || u.Why.Text != "no final classification published" || u.Why.Code != ranking.WhyNoFinal) {
			t.Errorf("open-b: %+v", u)
		}
	}
}

// TestRankingIsAProjection: the same inputs in another order give the
// same ranking, byte for byte.
func TestRankingIsAProjection(t *testing.T) {
	f, reg := loadFixture(t)
	th, _ := ranking.Season("2024")
	a, _ := json.Marshal(ranking.Compute(th, f.Tournaments, reg))
	rev := append([]ranking.Tournament(nil), f.Tournaments...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b, _ := json.Marshal(ranking.Compute(th, rev, reg))
	if string(a) != string(b) {
		t.Error("the ranking depends on the order the tournaments are read in")
	}
}

func TestThresholdsFiles(t *testing.T) {
	for _, s := range []string{"2019", "2020", "2024"} {
		th, err := ranking.Season(s)
		if err != nil || len(th.Types) != 5 {
			t.Fatalf("season %s: %v", s, err)
		}
	}
	th, _ := ranking.Season("2024")
	for _, tc := range []struct {
		typ  events.TournamentType
		held int
		want int
	}{{events.TypeMaster, 4, 3}, {events.TypeMaster, 20, 6}, {events.TypeOpen, 30, 4}, {events.TypeRadunoNazionale, 3, 1}, {events.TypeRadunoNazionale, 10, 3}} {
		if got := th.Types[tc.typ].Best(tc.held); got != tc.want {
			t.Errorf("%s with %d held: best %d, want %d", tc.typ, tc.held, got, tc.want)
		}
	}
	if _, err := ranking.Season("1999"); err == nil {
		t.Error("a season without a file was read")
	}
	for _, bad := range []string{
		`{"season":"x","types":{"BOGUS":{"min_tables":1,"min_tournaments":1,"max_percentage":1}}}`,
		`{"season":"x","types":{"OPEN":{"min_tables":0,"min_tournaments":1,"max_percentage":1}}}`,
		`{"season":"x","types":{"OPEN":{"min_tables":1,"min_tournaments":1,"max_percentage":100.5}}}`,
		`{"season":"x","types":{},"extra":1}`,
	} {
		if _, err := ranking.ParseThresholds("bad.json", []byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"luca bianchi", "luca bianchl", 1}, {"mario rossi", "mario rosi", 1}, {"anna", "anna", 0}, {"anna verdi", "bruno neri", 3}, {"ab", "ba", 2}} {
		if got := ranking.EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestEditDistanceIsLevenshtein: the distance computed near the diagonal
// only is Levenshtein's, capped, on names a letter or two apart and on
// names of 63 bytes or more (compared by their start).
func TestEditDistanceIsLevenshtein(t *testing.T) {
	levenshtein := func(a, b string) int {
		if len(b) > 63 {
			b = b[:63]
		}
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				c := 1
				if a[i-1] == b[j-1] {
					c = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			}
			prev = cur
		}
		return min(prev[len(b)], 3)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc "[rng.IntN(4)]
		}
		return string(b)
	}
	edited := func(s string) string {
		b := []byte(s)
		for range rng.IntN(4) {
			i := rng.IntN(len(b) + 1)
			switch rng.IntN(3) {
			case 0:
				b = append(b[:i], append([]byte{"abc "[rng.IntN(4)]}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = "abc "[rng.IntN(4)]
				}
			}
		}
		return string(b)
	}
	differ := 0
	for n := range 20000 {
		a := word(rng.IntN(12))
		if n%10 == 0 {
			a = word(60 + rng.IntN(8))
		}
		b := edited(a)
		if n%7 == 0 {
			b = word(rng.IntN(12))
		}
		got, want := ranking.EditDistance(a, b), levenshtein(a, b)
		if got != want {
			t.Fatalf("editDistance(%q, %q) = %d, want %d", a, b, got, want)
		}
		if want > 0 && want <= 2 {
			differ++
		}
	}
	if differ < 1000 {
		t.Fatalf("only %d pairs within 2 edits: the test compares too little", differ)
	}
}

func TestRegistryRefuses(t *testing.T) {
	reg := ranking.NewRegistry()
	if err := reg.Apply(events.PlayersMerged{From: "1", Into: "2", Reason: "same"}); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []events.Event{
		events.PlayersMerged{From: "2", Into: "1", Reason: "a cycle"},
		events.PlayersMerged{From: "3", Into: "3", Reason: "itself"},
		events.DisqualificationRecorded{NationalID: "1", From: "2024-06-01", To: "2024-01-01", Reason: "backwards"},
		events.DisqualificationRecorded{NationalID: "1", From: "1 June", To: "2024-01-01", Reason: "no date"},
		events.RegistrationClosed{},
	} {
		if err := reg.Apply(ev); err == nil {
			t.Errorf("%T %+v applied", ev, ev)
		}
	}
	if got := reg.Resolve("1"); got != "2" {
		t.Errorf("1 resolves to %s, want 2", got)
	}
}

// TestAWithheldTournamentIsListedAndCountsForNothing: a tournament its
// caller withholds (a hub that has not verified it) is listed with the
// reason given, and none of its placings is ranked or listed; the others
// rank as without it.
func TestAWithheldTournamentIsListedAndCountsForNothing(t *testing.T) {
	f, reg := loadFixture(t)
	th, _ := ranking.Season("2024")
	var without []ranking.Tournament
	ts := append([]ranking.Tournament(nil), f.Tournaments...)
	held := ""
	for i := range ts {
		if held == "" && ts[i].Final && ts[i].Season == "2024" {
			held = ts[i].ID
			why := ranking.Because(ranking.WhyHeld, "venue roma's key is not registered")
			ts[i].Withheld = &why
			continue
		}
		without = append(without, ts[i])
	}
	got := ranking.Compute(th, ts, reg)
	want := ranking.Compute(th, without, reg)
	listed := false
	for _, u := range got.Tournaments {
		if u.ID == held {
			listed = !u.Counts && u.Why.Code == ranking.WhyHeld && u.Why.Text == "held at the hub: venue roma's key is not registered"
		}
	}
	if !listed {
		t.Errorf("%s is not listed as held: %+v", held, got.Tournaments)
	}
	a, _ := json.Marshal(got.Rows)
	b, _ := json.Marshal(want.Rows)
	if string(a) != string(b) {
		t.Errorf("the rows with %s withheld differ from the rows without it", held)
	}
}
