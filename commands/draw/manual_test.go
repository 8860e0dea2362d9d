package draw

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func manualEntrants() []Entrant {
	return []Entrant{
		{Player: "a1", Club: "A", Region: "X"}, {Player: "a2", Club: "A", Region: "X"},
		{Player: "b1", Club: "B", Region: "X"}, {Player: "c1", Club: "C", Region: "Y"},
		{Player: "d1", Club: "D", Region: "Y"}, {Player: "e1", Club: "E", Region: "Z"},
		{Player: "f1", Club: "F", Region: "W"}, {Player: "g1", Club: "G", Region: "V"},
	}
}

func TestCheckManualErrors(t *testing.T) {
	good := func() []Table {
		return []Table{
			{Table: 1, Players: []string{"a1", "c1", "e1", "g1"}},
			{Table: 2, Players: []string{"a2", "b1", "d1", "f1"}},
		}
	}
	tests := []struct {
		name   string
		req    func(*Request)
		tables func([]Table) []Table
		want   error
		says   string
	}{
		{"no tables", nil, func([]Table) []Table { return nil }, ErrInput, "no tables"},
		{"table 0", nil, func(ts []Table) []Table { ts[0].Table = 0; return ts }, ErrInput, "table number 0"},
		{"table twice", nil, func(ts []Table) []Table { ts[1].Table = 1; return ts }, ErrInput, "table 1 listed twice"},
		{"stranger", nil, func(ts []Table) []Table { ts[1].Players[3] = "zz"; return ts }, ErrInput, "player zz at table 2 is not an entrant"},
		{"empty seat", nil, func(ts []Table) []Table { ts[1].Players[3] = ""; return ts }, ErrInput, "table 2 has a seat without a player id"},
		{"twice at two tables", nil, func(ts []Table) []Table { ts[1].Players[3] = "a1"; return ts }, ErrInput, "player a1 seated at table 1 and table 2"},
		{"twice at one table", nil, func(ts []Table) []Table { ts[0].Players[3] = "a1"; return ts }, ErrInput, "player a1 seated twice at table 1"},
		{"not seated", nil, func(ts []Table) []Table { ts[1].Players = ts[1].Players[:3]; return ts }, ErrInput, "table 2 has 3 players, allowed sizes with 8 players are 4"},
		{"not seated, size ok", func(r *Request) { r.Sizes = []int{4, 3} }, func(ts []Table) []Table { ts[1].Players = ts[1].Players[:3]; return ts }, ErrInput, "player f1 is not seated"},
		{"size not allowed", func(r *Request) { r.Sizes = []int{5} }, nil, ErrInput, "table 1 has 4 players, allowed sizes with 8 players are 5"},
		{"3 with 11 or more", func(r *Request) {
			r.Entrants = append(manualEntrants(), Entrant{Player: "h1"}, Entrant{Player: "i1"}, Entrant{Player: "j1"})
			r.Sizes, r.SmallTableMax = []int{4, 5}, 11
		}, func(ts []Table) []Table {
			return append(ts, Table{Table: 3, Players: []string{"h1", "i1", "j1"}})
		}, ErrInput, "table 3 has 3 players, allowed sizes with 11 players are 4 or 5"},
		{"rule cited", func(r *Request) { r.Algorithm = AlgRURGame1; r.Sizes = []int{5} }, nil, ErrInput, "are 5 (rur-2015 art. 1)"},
		{"unknown algorithm", func(r *Request) { r.Algorithm = "swiss" }, nil, ErrUnknownAlgorithm, "swiss"},
		{"unknown manual kind", func(r *Request) { r.ManualAs = "swiss" }, nil, ErrUnknownAlgorithm, "swiss"},
		{"game 2 in round 1", func(r *Request) { r.ManualAs = AlgRURGame2 }, nil, ErrInput, "round 1 has none"},
		{"bands missing", func(r *Request) { r.ManualAs = AlgBands }, nil, ErrInput, "no bands"},
		{"bad request", func(r *Request) { r.Round = 0 }, nil, ErrInput, "round 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Algorithm: AlgManual, Round: 1, Entrants: manualEntrants(), Sizes: []int{4}}
			if tt.req != nil {
				tt.req(&req)
			}
			tables := good()
			if tt.tables != nil {
				tables = tt.tables(tables)
			}
			_, err := CheckManual(req, tables)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %v, want %v saying %q", err, tt.want, tt.says)
			}
			// A manual draw runs the same checks.
			if req.Algorithm == AlgManual {
				req.Tables = tables
				if _, err := Draw(req); !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
					t.Fatalf("Draw error %v, want %v saying %q", err, tt.want, tt.says)
				}
			}
		})
	}
}

func TestCheckManualUnmet(t *testing.T) {
	es := manualEntrants()
	tables := []Table{
		{Table: 1, Players: []string{"a1", "a2", "c1", "e1"}}, // club A twice (also region X, one club: not repeated)
		{Table: 2, Players: []string{"b1", "d1", "f1", "g1"}}, // clean
	}
	us, err := CheckManual(Request{Algorithm: AlgManual, Round: 1, Entrants: es, Sizes: []int{4}}, tables)
	if err != nil {
		t.Fatal(err)
	}
	want := []Unmet{{Constraint: ConstraintSameClub, Table: 1, Players: []string{"a1", "a2"}, Detail: `2 players of club "A" at table 1`}}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v, want %v", us, want)
	}

	tables[0].Players = []string{"a1", "b1", "c1", "d1"} // region X (A and B), region Y (C and D)
	tables[1].Players = []string{"a2", "e1", "f1", "g1"}
	us, err = CheckManual(Request{Algorithm: AlgRURGame1, Round: 1, Entrants: es, Sizes: []int{4}}, tables)
	if err != nil {
		t.Fatal(err)
	}
	want = []Unmet{
		{Constraint: ConstraintSameRegion, Table: 1, Players: []string{"a1", "b1"}, Detail: `2 players of region "X" at table 1 (rur-2015 art. 8)`},
		{Constraint: ConstraintSameRegion, Table: 1, Players: []string{"c1", "d1"}, Detail: `2 players of region "Y" at table 1 (rur-2015 art. 8)`},
	}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v, want %v", us, want)
	}

	// Seeded tables have no soft constraints.
	us, err = CheckManual(Request{Algorithm: AlgManual, ManualAs: AlgSeeded2003, Round: 1, Entrants: es, Sizes: []int{4}}, tables)
	if err != nil || len(us) != 0 {
		t.Fatalf("seeded: %v, %v; want none", us, err)
	}
}

func TestCheckManualPlaceMix(t *testing.T) {
	es := players(8, nil, nil)
	past := game1(es) // p001 1st, p002 2nd, p003 3rd, p004 4th, p005 1st, …
	for i := range past {
		past[i].Table = 0 // tables unknown: no rematches to report here
	}
	tables := []Table{
		{Table: 1, Players: []string{"p001", "p006", "p007", "p008"}}, // 1st 2nd 3rd 4th
		{Table: 2, Players: []string{"p002", "p005", "p003", "p004"}}, // 2nd 1st 3rd 4th
	}
	req := Request{Algorithm: AlgRURGame2, Round: 2, Entrants: es, Sizes: []int{4}, Past: past}
	if us, err := CheckManual(req, tables); err != nil || len(us) != 0 {
		t.Fatalf("a full mix: %v, %v", us, err)
	}
	tables = []Table{
		{Table: 1, Players: []string{"p001", "p005", "p003", "p004"}}, // two 1sts
		{Table: 2, Players: []string{"p002", "p006", "p007", "p008"}}, // two 2nds, no 1st
	}
	us, err := CheckManual(req, tables)
	if err != nil {
		t.Fatal(err)
	}
	want := []Unmet{
		{Constraint: ConstraintPlaceMix, Table: 1, Players: []string{"p001", "p005"}, Detail: "places in round 1 at table 1: 1st, 1st, 3rd, 4th; wanted one each of 1st, 2nd, 3rd, 4th (rur-2015 art. 8)"},
		{Constraint: ConstraintPlaceMix, Table: 2, Players: []string{"p002", "p006"}, Detail: "places in round 1 at table 2: 2nd, 2nd, 3rd, 4th; wanted one each of 1st, 2nd, 3rd, 4th (rur-2015 art. 8)"},
	}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v\nwant %v", us, want)
	}
	// The same check through a manual draw checked as game 2.
	req.Algorithm, req.ManualAs, req.Tables = AlgManual, AlgRURGame2, tables
	res := mustDraw(t, req)
	if !slices.EqualFunc(res.Unmet, want, eqUnmet) {
		t.Fatalf("manual draw unmet %v, want %v", res.Unmet, want)
	}
}

func TestCheckManualBands(t *testing.T) {
	es := []Entrant{{Player: "s1", Club: "A"}, {Player: "s2"}, {Player: "s3", Club: "A"}, {Player: "s4"},
		{Player: "s5"}, {Player: "s6"}, {Player: "s7"}, {Player: "s8"}}
	bands := [][]string{{"s1", "s2"}, {"s3", "s4"}, {"s5", "s6"}, {"s7", "s8"}}
	req := Request{Algorithm: AlgManual, ManualAs: AlgBands, Round: 4, Entrants: es, Bands: bands}
	tables := []Table{
		{Table: 1, Players: []string{"s1", "s3", "s5", "s7"}}, // one per band, club A twice
		{Table: 2, Players: []string{"s2", "s4", "s6", "s8"}},
	}
	us, err := CheckManual(req, tables)
	if err != nil {
		t.Fatal(err)
	}
	want := []Unmet{{Constraint: ConstraintBandClub, Table: 1, Players: []string{"s1", "s3"}, Detail: `2 players of club "A" at table 1 (rur-2015 art. 8)`}}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v, want %v", us, want)
	}
	tables = []Table{
		{Table: 1, Players: []string{"s1", "s2", "s5", "s7"}}, // band 1 twice
		{Table: 2, Players: []string{"s3", "s4", "s6", "s8"}}, // band 2 twice
	}
	us, err = CheckManual(req, tables)
	if err != nil {
		t.Fatal(err)
	}
	want = []Unmet{
		{Constraint: ConstraintBandMix, Table: 1, Players: []string{"s1", "s2"}, Detail: "bands at table 1: 1, 1, 3, 4; wanted one player of each of 4 bands (rur-2015 art. 8)"},
		{Constraint: ConstraintBandMix, Table: 2, Players: []string{"s3", "s4"}, Detail: "bands at table 2: 2, 2, 3, 4; wanted one player of each of 4 bands (rur-2015 art. 8)"},
	}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v\nwant %v", us, want)
	}
	// A table missing a band lists all its players.
	req.Sizes = []int{5, 3}
	tables = []Table{{Table: 1, Players: []string{"s1", "s3", "s5", "s7", "s2"}}, {Table: 2, Players: []string{"s4", "s6", "s8"}}}
	us, err = CheckManual(req, tables)
	if err != nil {
		t.Fatal(err)
	}
	want = []Unmet{
		{Constraint: ConstraintBandMix, Table: 1, Players: []string{"s1", "s2"}, Detail: "bands at table 1: 1, 2, 3, 4, 1; wanted one player of each of 4 bands (rur-2015 art. 8)"},
		{Constraint: ConstraintBandClub, Table: 1, Players: []string{"s1", "s3"}, Detail: `2 players of club "A" at table 1 (rur-2015 art. 8)`},
		{Constraint: ConstraintBandMix, Table: 2, Players: []string{"s4", "s6", "s8"}, Detail: "bands at table 2: 2, 3, 4; wanted one player of each of 4 bands (rur-2015 art. 8)"},
	}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v\nwant %v", us, want)
	}
	req.Sizes = nil

	// Without Sizes a knockout table must have one seat per band.
	tables = []Table{{Table: 1, Players: []string{"s1", "s3", "s5", "s7", "s2"}}, {Table: 2, Players: []string{"s4", "s6", "s8"}}}
	if _, err := CheckManual(req, tables); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "table 1 has 5 players, knockout tables take one of each of 4 bands") {
		t.Fatalf("error %v", err)
	}
}

// TestCheckManualRematch: a manual draw that repeats pairings is valid and
// reports no unmet constraint (no rulebook forbids rematches); the history
// check still refuses an impossible past.
func TestCheckManualRematch(t *testing.T) {
	es := players(8, nil, nil)
	past := append(game1(es), Past{Player: "p001", Round: 2, Table: 7, Place: 1}, Past{Player: "p002", Round: 2, Table: 7, Place: 2})
	tables := []Table{
		{Table: 1, Players: []string{"p001", "p002", "p005", "p006"}}, // p001+p002 met twice, p005+p006 once
		{Table: 2, Players: []string{"p003", "p007", "p004", "p008"}}, // p003+p004, p007+p008
	}
	req := Request{Algorithm: AlgRandom, Round: 3, Entrants: es, Sizes: []int{4}, Past: past}
	us, err := CheckManual(req, tables)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 0 {
		t.Fatalf("rematches reported as unmet: %v", us)
	}
	r, err := prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	us = append(rematches(tables[0], r.meetings()), rematches(tables[1], r.meetings())...)
	want := []Unmet{
		{Constraint: ConstraintRematch, Table: 1, Players: []string{"p001", "p002"}, Detail: "p001 and p002 already met at round 1 table 1, round 2 table 7"},
		{Constraint: ConstraintRematch, Table: 1, Players: []string{"p005", "p006"}, Detail: "p005 and p006 already met at round 1 table 2"},
		{Constraint: ConstraintRematch, Table: 2, Players: []string{"p003", "p004"}, Detail: "p003 and p004 already met at round 1 table 1"},
		{Constraint: ConstraintRematch, Table: 2, Players: []string{"p007", "p008"}, Detail: "p007 and p008 already met at round 1 table 2"},
	}
	if !slices.EqualFunc(us, want, eqUnmet) {
		t.Fatalf("unmet %v\nwant %v", us, want)
	}
	// More players at one past table than any table holds is a broken history.
	var crowd []Past
	for _, e := range players(9, nil, nil) {
		crowd = append(crowd, Past{Player: e.Player, Round: 1, Table: 1})
	}
	_, err = CheckManual(Request{Algorithm: AlgRandom, Round: 2, Entrants: players(9, nil, nil), Sizes: []int{4, 5}, Past: crowd},
		[]Table{{Table: 1, Players: []string{"p001", "p002", "p003", "p004"}}, {Table: 2, Players: []string{"p005", "p006", "p007", "p008", "p009"}}})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "more than 8 players at table 1 of round 1") {
		t.Fatalf("error %v", err)
	}
}

func TestManualDraw(t *testing.T) {
	req := requests()[AlgManual]
	res := mustDraw(t, req)
	want := []Table{
		{Table: 1, Players: []string{"p001", "p002", "p003", "p004"}},
		{Table: 2, Players: []string{"p005", "p006", "p007", "p008"}},
		{Table: 3, Players: []string{"p009", "p010", "p011", "p012"}},
		{Table: 4, Players: []string{"p013", "p014", "p015", "p016"}},
	}
	if !slices.EqualFunc(res.Tables, want, func(a, b Table) bool { return a.Table == b.Table && slices.Equal(a.Players, b.Players) }) {
		t.Fatalf("tables %v, want %v in number order", res.Tables, want)
	}
	// Clubs are club-(i%5): four consecutive players have four different clubs.
	if len(res.Unmet) != 0 {
		t.Fatalf("unmet %v, want none", res.Unmet)
	}
	// The result must not share memory with the request.
	res.Tables[0].Players[0] = "changed"
	if req.Tables[1].Players[0] != "p001" {
		t.Fatal("result shares memory with Request.Tables")
	}
}

func eqUnmet(a, b Unmet) bool {
	return a.Constraint == b.Constraint && a.Table == b.Table && slices.Equal(a.Players, b.Players) && a.Detail == b.Detail
}
