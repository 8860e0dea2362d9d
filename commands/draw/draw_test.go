package draw

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/golden.json from the current code")

// game1 returns Past for round 1 where players sat in id order at tables of 4, placing 1st…4th.
func game1(es []Entrant) []Past {
	var past []Past
	for i, e := range es {
		past = append(past, Past{Player: e.Player, Round: 1, Table: i/4 + 1, Place: i%4 + 1, Score: int64(10000 - 100*i)})
	}
	return past
}

// requests is one representative request per algorithm.
func requests() map[string]Request {
	clubbed := players(42, func(i int) string { return fmt.Sprintf("club-%d", i%12) }, func(i int) string { return fmt.Sprintf("region-%d", i%5) })
	rur := clubbed[:40]
	ranked := players(22, func(i int) string { return fmt.Sprintf("club-%d", i%6) }, nil)
	for i := range ranked[:14] {
		ranked[i].Rank = 14 - i // the last 8 are unranked: their order is drawn
	}
	var past []Past
	for i, e := range ranked {
		past = append(past,
			Past{Player: e.Player, Round: 1, Table: 1, Place: 1, Score: int64(100 * (i % 4))},
			Past{Player: e.Player, Round: 2, Table: 1, Place: 1, Score: int64(100 * (i % 3))})
	}
	semi := players(16, func(i int) string { return fmt.Sprintf("club-%d", i%5) }, nil)
	var bands [][]string
	for b := range 4 {
		var band []string
		for _, e := range semi[4*b : 4*b+4] {
			band = append(band, e.Player)
		}
		bands = append(bands, band)
	}
	crowded := players(20, func(i int) string { return []string{"big", "big", "mid", ""}[i%4] }, func(i int) string { return fmt.Sprintf("region-%d", i%2) })
	crowdedPast := game1(crowded)
	crowdedPast = append(crowdedPast[:3], crowdedPast[4:]...) // p004 has no game 1
	return map[string]Request{
		AlgRandom:                {Algorithm: AlgRandom, Round: 1, Entrants: clubbed, Sizes: []int{4, 5}, Seed: "seed-1"},
		AlgRURGame2 + "/crowded": {Algorithm: AlgRURGame2, Round: 2, Entrants: crowded, Sizes: []int{4}, Seed: "seed-1", Past: crowdedPast},
		AlgRURGame1:              {Algorithm: AlgRURGame1, Round: 1, Entrants: rur, Sizes: []int{4}, Seed: "seed-1"},
		AlgRURGame2:              {Algorithm: AlgRURGame2, Round: 2, Entrants: rur, Sizes: []int{4}, Seed: "seed-1", Past: game1(rur)},
		AlgSeeded2003: {Algorithm: AlgSeeded2003, Round: 1, Entrants: ranked, Sizes: []int{4, 5}, SmallTableMax: 11,
			Seed: "seed-1"},
		AlgSeeded2003 + "/round-3": {Algorithm: AlgSeeded2003, Round: 3, Entrants: ranked, Sizes: []int{4, 5},
			SmallTableMax: 11, Seed: "seed-1", Past: past},
		AlgBands: {Algorithm: AlgBands, Round: 4, Entrants: semi, Sizes: []int{4}, Seed: "seed-1", Bands: bands},
		AlgBands + "/rule": {Algorithm: AlgBands, Round: 4, Entrants: semi, Sizes: []int{4}, Seed: "seed-1", Bands: bands,
			Rule: "master §fasi finali"},
		AlgManual + "/bands-rule": {Algorithm: AlgManual, ManualAs: AlgBands, Round: 4, Entrants: semi, Seed: "seed-1", Bands: bands,
			Rule: "rtu §formule torneo", Tables: []Table{
				{Table: 1, Players: []string{"p001", "p002", "p003", "p004"}},
				{Table: 2, Players: []string{"p005", "p006", "p007", "p008"}},
				{Table: 3, Players: []string{"p009", "p010", "p011", "p012"}},
				{Table: 4, Players: []string{"p013", "p014", "p015", "p016"}},
			}},
		AlgManual: {Algorithm: AlgManual, Round: 1, Entrants: semi, Sizes: []int{4}, Seed: "seed-1", Tables: []Table{
			{Table: 2, Players: []string{"p005", "p006", "p007", "p008"}},
			{Table: 1, Players: []string{"p001", "p002", "p003", "p004"}},
			{Table: 3, Players: []string{"p009", "p010", "p011", "p012"}},
			{Table: 4, Players: []string{"p013", "p014", "p015", "p016"}},
		}},
	}
}

func TestDeterminism(t *testing.T) {
	for name, req := range requests() {
		t.Run(name, func(t *testing.T) {
			first := mustDraw(t, req)
			if again := mustDraw(t, req); !reflect.DeepEqual(again, first) {
				t.Fatalf("same request, different result:\n%v\n%v", first, again)
			}
			v, err := drawnVersion(req)
			if err != nil {
				t.Fatal(err)
			}
			if first.Version != v || first.Algorithm != req.Algorithm || first.Seed != req.Seed {
				t.Fatalf("result header %s v%d seed %q, want %s v%d seed %q", first.Algorithm, first.Version, first.Seed, req.Algorithm, v, req.Seed)
			}
			replayed, err := Replay(req, first.Version)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(replayed, first) {
				t.Fatalf("Replay differs from Draw:\n%v\n%v", first, replayed)
			}
			for k := range uint64(5) {
				shuf := req
				shuf.Entrants = shuffled(req.Entrants, k)
				shuf.Past = reversed(req.Past)
				if got := mustDraw(t, shuf); !reflect.DeepEqual(got, first) {
					t.Fatalf("entrant order %d changed the draw:\n%v\n%v", k, first.Tables, got.Tables)
				}
			}
			if req.Algorithm == AlgManual {
				return // no randomness
			}
			differs := false
			for k := range 10 {
				other := req
				other.Seed = fmt.Sprintf("other-%d", k)
				if !reflect.DeepEqual(mustDraw(t, other).Tables, first.Tables) {
					differs = true
				}
			}
			if !differs {
				t.Fatal("ten other seeds all gave the same tables")
			}
		})
	}
}

func reversed[T any](s []T) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// TestGolden pins the output of every current algorithm version: a change here means recorded
// draws would replay differently, so it needs a new version, not new golden data.
func TestGolden(t *testing.T) {
	got := map[string]Result{}
	for name, req := range requests() {
		got[name] = mustDraw(t, req)
	}
	path := filepath.Join("testdata", "golden.json")
	if *rewrite {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]Result
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, g := range got {
		if !reflect.DeepEqual(g, want[name]) {
			t.Errorf("%s: output of a recorded version changed (bump the version instead)\ngot  %v\nwant %v", name, g, want[name])
		}
	}
	if len(want) != len(got) {
		t.Errorf("golden has %d results, want %d", len(want), len(got))
	}
}

func TestVersion(t *testing.T) {
	for alg, want := range map[string]int{AlgRandom: 1, AlgRURGame1: 1, AlgRURGame2: 1, AlgSeeded2003: 1, AlgGroups: 1, AlgBands: 2, AlgManual: 2} {
		if v, err := Version(alg); err != nil || v != want {
			t.Errorf("Version(%s) = %d, %v; want %d", alg, v, err, want)
		}
	}
	if _, err := Version("swiss"); !errors.Is(err, ErrUnknownAlgorithm) {
		t.Errorf("Version(swiss) error %v, want ErrUnknownAlgorithm", err)
	}
	req := requests()[AlgRandom]
	if _, err := Replay(req, 2); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("Replay v2 error %v, want ErrUnknownVersion", err)
	}
	if _, err := Replay(req, 0); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("Replay v0 error %v, want ErrUnknownVersion", err)
	}
	req.Algorithm = "swiss"
	if _, err := Draw(req); !errors.Is(err, ErrUnknownAlgorithm) || !strings.Contains(err.Error(), "swiss") {
		t.Errorf("Draw(swiss) error %v, want ErrUnknownAlgorithm naming it", err)
	}
}

// TestSeedSeparation checks that the algorithm and the round are part of the PRNG state.
func TestSeedSeparation(t *testing.T) {
	req := requests()[AlgRandom]
	base := mustDraw(t, req)
	other := req
	other.Round = 2
	if reflect.DeepEqual(mustDraw(t, other).Tables, base.Tables) {
		t.Error("round 2 drew the same tables as round 1 with the same seed")
	}
	other = req
	other.Algorithm = AlgRURGame1
	if reflect.DeepEqual(mustDraw(t, other).Tables, base.Tables) {
		t.Error("rur-game1 drew the same tables as random with the same seed")
	}
}

func TestInputErrors(t *testing.T) {
	es := players(8, nil, nil)
	base := Request{Algorithm: AlgRandom, Round: 1, Entrants: es, Sizes: []int{4}, Seed: "s"}
	tests := []struct {
		name   string
		change func(*Request)
		want   error
		says   string
	}{
		{"round 0", func(r *Request) { r.Round = 0 }, ErrInput, "round 0"},
		{"no entrants", func(r *Request) { r.Entrants = nil }, ErrInput, "no entrants"},
		{"duplicate player", func(r *Request) { r.Entrants = append(players(8, nil, nil), Entrant{Player: "p003"}) }, ErrInput, "p003 entered twice"},
		{"empty player id", func(r *Request) { r.Entrants = append(players(7, nil, nil), Entrant{}) }, ErrInput, "no player id"},
		{"negative rank", func(r *Request) { r.Entrants = players(8, nil, nil); r.Entrants[2].Rank = -1 }, ErrInput, "p003 has rank -1"},
		{"no sizes", func(r *Request) { r.Sizes = nil }, ErrInput, "no table sizes"},
		{"size 1", func(r *Request) { r.Sizes = []int{1} }, ErrInput, "table size 1"},
		{"size twice", func(r *Request) { r.Sizes = []int{4, 4} }, ErrInput, "listed twice"},
		{"negative small-table limit", func(r *Request) { r.SmallTableMax = -1 }, ErrInput, "small-table limit"},
		{"past of this round", func(r *Request) { r.Past = []Past{{Player: "p001", Round: 1}} }, ErrInput, "not before round 1"},
		{"past round 0", func(r *Request) { r.Round = 2; r.Past = []Past{{Player: "p001", Round: 0}} }, ErrInput, "round 0 is not before"},
		{"two games in a round", func(r *Request) {
			r.Round = 3
			r.Past = []Past{{Player: "p001", Round: 1}, {Player: "p001", Round: 1}}
		}, ErrInput, "p001 has two games in round 1"},
		{"past without player", func(r *Request) { r.Round = 2; r.Past = []Past{{Round: 1}} }, ErrInput, "no player id"},
		{"negative place", func(r *Request) { r.Round = 2; r.Past = []Past{{Player: "p001", Round: 1, Place: -1}} }, ErrInput, "place -1"},
		{"unknown manual check", func(r *Request) { r.Algorithm = AlgManual; r.ManualAs = "swiss" }, ErrUnknownAlgorithm, "swiss"},
		{"manual checked as manual", func(r *Request) { r.Algorithm = AlgManual; r.ManualAs = AlgManual }, ErrUnknownAlgorithm, "manual"},
		{"game 2 in round 1", func(r *Request) { r.Algorithm = AlgRURGame2 }, ErrInput, "round 1 has none (rur-2015 art. 8)"},
		{"cannot seat", func(r *Request) { r.Entrants = players(9, nil, nil) }, ErrSizes, "9 players cannot be seated at tables of 4: designate 3 reserves or withdraw 1"},
		{"cannot seat rur", func(r *Request) { r.Algorithm = AlgRURGame1; r.Entrants = players(10, nil, nil) }, ErrSizes, "designate 2 reserves or withdraw 2 (rur-2015 art. 1)"},
		{"cannot seat 2003", func(r *Request) {
			r.Algorithm = AlgSeeded2003
			r.Entrants = players(11, nil, nil)
			r.Sizes = []int{4, 5}
			r.SmallTableMax = 11
		}, ErrSizes, "11 players cannot be seated at tables of 4 or 5 (tables of 3 only with fewer than 11 players): designate 1 reserve or withdraw 1 (campionato-2003 §formazione tavoli)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			tt.change(&req)
			_, err := Draw(req)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("error %q does not say %q", err, tt.says)
			}
		})
	}
}

func TestResultJSON(t *testing.T) {
	res := Result{Algorithm: AlgRandom, Version: 1, Seed: "s", Tables: []Table{{Table: 1, Players: []string{"a", "b"}}}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"algorithm":"random","version":1,"seed":"s","tables":[{"table":1,"players":["a","b"]}]}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
