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
