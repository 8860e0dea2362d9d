package draw

import (
	"errors"
	"slices"
	"testing"
)

func TestGroupsSeatEachGroupAtItsOwnTable(t *testing.T) {
	es := players(8, nil, nil)
	req := Request{Algorithm: AlgGroups, Round: 4, Entrants: es, Seed: "final",
		Bands: [][]string{{"p003", "p001", "p004", "p002"}, {"p005", "p006", "p007", "p008"}}}
	a := mustDraw(t, req)
	if len(a.Tables) != 2 {
		t.Fatalf("tables %v", a.Tables)
	}
	for i, want := range [][]string{{"p001", "p002", "p003", "p004"}, {"p005", "p006", "p007", "p008"}} {
		got := slices.Clone(a.Tables[i].Players)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("table %d seats %v, want the group %v", i+1, a.Tables[i].Players, want)
		}
	}
	// The order a group is given in does not matter; the seed does.
	req.Bands[0] = []string{"p001", "p002", "p003", "p004"}
	if b := mustDraw(t, req); !slices.Equal(b.Tables[0].Players, a.Tables[0].Players) {
		t.Errorf("group order changed the seating: %v vs %v", b.Tables[0].Players, a.Tables[0].Players)
	}
	if r, err := Replay(req, a.Version); err != nil || !slices.Equal(r.Tables[1].Players, a.Tables[1].Players) {
		t.Errorf("replay: %v %v", r, err)
	}
	req.Bands = [][]string{{"p001", "p002", "p003", "p004"}}
	if _, err := Draw(req); !errors.Is(err, ErrInput) {
		t.Errorf("groups that leave entrants unseated: %v", err)
	}
}

func TestBandsAllowAShortLastBand(t *testing.T) {
	es := players(11, func(i int) string { return []string{"A", "B", "C"}[i%3] }, nil)
	var ids []string
	for _, e := range es {
		ids = append(ids, e.Player)
	}
	req := Request{Algorithm: AlgBands, Round: 3, Entrants: es, Seed: "lt32",
		Bands: [][]string{ids[0:3], ids[3:6], ids[6:9], ids[9:11]}}
	res := mustDraw(t, req)
	sizes := []int{}
	for _, tb := range res.Tables {
		sizes = append(sizes, len(tb.Players))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{3, 4, 4}) {
		t.Errorf("table sizes %v, want 3, 4, 4", sizes)
	}
	if n := countUnmet(res.Unmet, ConstraintBandMix); n != 0 {
		t.Errorf("the table missing the short band is reported: %v", res.Unmet)
	}
}
