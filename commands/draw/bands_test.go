package draw

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bandInstance builds width tables × 4 bands from a hidden valid answer whose tables have four
// different clubs, so club avoidance is possible; bands list their players in seed order.
func bandInstance(r *rand.Rand, width, clubs int) ([]Entrant, [][]string) {
	var es []Entrant
	bands := make([][]string, 4)
	seed := 0
	for range width {
		cs := r.Perm(clubs)[:4]
		for b := range 4 {
			seed++
			p := fmt.Sprintf("q%03d", r.IntN(900)*1000+seed) // ids unrelated to seeds
			es = append(es, Entrant{Player: p, Club: fmt.Sprintf("club-%d", cs[b])})
			bands[b] = append(bands[b], p)
		}
	}
	for _, band := range bands {
		r.Shuffle(len(band), func(i, j int) { band[i], band[j] = band[j], band[i] })
	}
	return es, bands
}

func checkBands(t *testing.T, res Result, bands [][]string) {
	t.Helper()
	if len(res.Tables) != len(bands[0]) {
		t.Fatalf("%d tables, want %d", len(res.Tables), len(bands[0]))
	}
	for _, tb := range res.Tables {
		if len(tb.Players) != len(bands) {
			t.Fatalf("table %d has %d players, want one of each of %d bands", tb.Table, len(tb.Players), len(bands))
		}
		for b, p := range tb.Players {
			if !slices.Contains(bands[b], p) {
				t.Fatalf("table %d seat %d: %s is not in band %d", tb.Table, b+1, p, b+1)
			}
		}
	}
}

func TestBandsOnePerBandAvoidingClubs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for k := range 300 {
		width := []int{4, 6, 1, 2, 8}[k%5] // semifinals, quarterfinals, a final, …
		es, bands := bandInstance(r, width, 4+r.IntN(6))
		res := mustDraw(t, Request{Algorithm: AlgBands, Round: 3, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Bands: bands})
		checkBands(t, res, bands)
		if got := pairs(es, res.Tables, club); got != 0 {
			t.Fatalf("instance %d: %d same-club pairs, avoidable: %v", k, got, res.Tables)
		}
		if len(res.Unmet) != 0 {
			t.Fatalf("instance %d: unmet %v", k, res.Unmet)
		}
	}
}

func TestBandsUnavoidableClub(t *testing.T) {
	// Semifinals: club "big" has p001, p004 (band 1), p007 (band 2), p010 (band 3) and p013
	// (band 4): five players at four tables, so two of them must meet, and only two.
	es := players(16, func(i int) string {
		if i%3 == 0 && i < 15 {
			return "big"
		}
		return fmt.Sprintf("club-%d", i)
	}, nil)
	var bands [][]string
	for b := range 4 {
		var band []string
		for _, e := range es[4*b : 4*b+4] {
			band = append(band, e.Player)
		}
		bands = append(bands, band)
	}
	for k := range 30 {
		res := mustDraw(t, Request{Algorithm: AlgBands, Round: 3, Entrants: es, Sizes: []int{4}, Seed: fmt.Sprint(k), Bands: bands})
		checkBands(t, res, bands)
		if len(res.Unmet) != 1 || res.Unmet[0].Constraint != ConstraintBandClub || len(res.Unmet[0].Players) != 2 {
			t.Fatalf("seed %d: unmet %v, want one band_club of two players", k, res.Unmet)
		}
		if d := res.Unmet[0].Detail; !strings.Contains(d, `club "big"`) || !strings.HasSuffix(d, "(rur-2015 art. 8)") {
			t.Fatalf("detail %q", d)
		}
	}
}

// TestBandsOrderInsideBand: the seed order inside a band does not change the draw.
func TestBandsOrderInsideBand(t *testing.T) {
	req := requests()[AlgBands]
	first := mustDraw(t, req)
	var rev [][]string
	for _, band := range req.Bands {
		rev = append(rev, reversed(band))
	}
	req.Bands = rev
	if got := mustDraw(t, req); !slices.EqualFunc(got.Tables, first.Tables, func(a, b Table) bool { return slices.Equal(a.Players, b.Players) }) {
		t.Fatalf("reversed bands changed the draw:\n%v\n%v", first.Tables, got.Tables)
	}
}

func TestBandsErrors(t *testing.T) {
	es := players(8, nil, nil)
	base := Request{Algorithm: AlgBands, Round: 3, Entrants: es, Sizes: []int{4}, Seed: "s",
		Bands: [][]string{{"p001", "p002"}, {"p003", "p004"}, {"p005", "p006"}, {"p007", "p008"}}}
	tests := []struct {
		name   string
		change func(*Request)
		want   error
		says   string
	}{
		{"no bands", func(r *Request) { r.Bands = nil }, ErrInput, "no bands"},
		{"empty band", func(r *Request) { r.Bands = [][]string{{"p001"}, {}} }, ErrInput, "band 2 is empty"},
		{"a band wider than the first", func(r *Request) { r.Bands[0] = []string{"p001"}; r.Bands[3] = []string{"p007", "p008"} }, ErrInput, "band 2 has 2 players and band 1 has 1"},
		{"twice", func(r *Request) { r.Bands[3] = []string{"p007", "p001"} }, ErrInput, "p001 is in band 1 and band 4"},
		{"not an entrant", func(r *Request) { r.Bands[3] = []string{"p007", "p099"} }, ErrInput, "p099 of band 4 is not an entrant"},
		{"entrant in no band", func(r *Request) { r.Entrants = players(9, nil, nil) }, ErrInput, "p009 is an entrant but in no band"},
		{"size not allowed", func(r *Request) { r.Sizes = []int{5} }, ErrSizes, "4 bands make tables of 4, and the allowed sizes are 5"},
		{"bad sizes", func(r *Request) { r.Sizes = []int{0} }, ErrInput, "table size 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			req.Bands = [][]string{slices.Clone(base.Bands[0]), slices.Clone(base.Bands[1]), slices.Clone(base.Bands[2]), slices.Clone(base.Bands[3])}
			tt.change(&req)
			_, err := Draw(req)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v, want %v saying %q", err, tt.want, tt.says)
			}
		})
	}
	// Without Sizes, the bands alone decide the table size.
	req := base
	req.Sizes = nil
	res := mustDraw(t, req)
	if got := sizesOf(res.Tables); !slices.Equal(got, []int{4, 4}) {
		t.Fatalf("sizes %v, want 4 4", got)
	}
}

// TestBandsCiteTheRequestsRule: a band draw is every knockout's, so from
// version 2 it cites the rule the request names (the tournament's own
// article) where version 1 cites rur-2015 art. 8 under every ruleset. A
// request that names no rule is drawn by version 1, and version 1 never
// changes: the same tables, the same unmet constraints.
func TestBandsCiteTheRequestsRule(t *testing.T) {
	// Two clubs: every table breaks band_club.
	es := players(16, func(i int) string { return fmt.Sprintf("club-%d", i%2) }, nil)
	bands := make([][]string, 4)
	for i, e := range es {
		bands[i/4] = append(bands[i/4], e.Player)
	}
	old := Request{Algorithm: AlgBands, Round: 3, Entrants: es, Bands: bands, Seed: "semi"}
	named := old
	named.Rule = "master §fasi finali"
	v1, err := Draw(old)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := Draw(named)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Version != 1 || v2.Version != 2 {
		t.Fatalf("versions %d and %d, want 1 without a rule and 2 with one", v1.Version, v2.Version)
	}
	if !slices.EqualFunc(v1.Tables, v2.Tables, func(a, b Table) bool { return a.Table == b.Table && slices.Equal(a.Players, b.Players) }) {
		t.Fatalf("naming the rule changed the tables:\n%v\n%v", v1.Tables, v2.Tables)
	}
	if len(v1.Unmet) == 0 || len(v1.Unmet) != len(v2.Unmet) {
		t.Fatalf("%d and %d unmet constraints, want the same, and some", len(v1.Unmet), len(v2.Unmet))
	}
	for i := range v1.Unmet {
		if got, want := v2.Unmet[i].Detail, strings.Replace(v1.Unmet[i].Detail, "(rur-2015 art. 8)", "(master §fasi finali)", 1); got != want {
			t.Errorf("version 2 detail %q, want %q", got, want)
		}
		if !strings.HasSuffix(v1.Unmet[i].Detail, "(rur-2015 art. 8)") {
			t.Errorf("version 1 detail %q, want it to cite rur-2015 art. 8 as recorded", v1.Unmet[i].Detail)
		}
	}
	if again, err := Replay(named, 1); err != nil || !slices.EqualFunc(again.Unmet, v1.Unmet, func(a, b Unmet) bool { return a.Detail == b.Detail }) {
		t.Errorf("version 1 replayed with a rule: %v, %v; want what version 1 recorded", again.Unmet, err)
	}

	// By hand, a table short of a band is refused citing the request's rule,
	// and nothing when the request names none.
	tables := make([]Table, len(bands[0]))
	for i := range tables {
		tables[i].Table = i + 1
		for _, band := range bands {
			tables[i].Players = append(tables[i].Players, band[i])
		}
	}
	tables[1].Players = append(tables[1].Players, tables[0].Players[3])
	tables[0].Players = tables[0].Players[:3]
	for rule, want := range map[string]string{"rtu §formule torneo": " (rtu §formule torneo)", "": ""} {
		req := old
		req.Algorithm, req.ManualAs, req.Rule, req.Tables = AlgManual, AlgBands, rule, tables
		_, err := Draw(req)
		if !errors.Is(err, ErrInput) || !strings.HasSuffix(err.Error(), "knockout tables take one of each of 4 bands"+want) {
			t.Errorf("rule %q: %v, want ErrInput ending %q", rule, err, "bands"+want)
		}
	}
}
