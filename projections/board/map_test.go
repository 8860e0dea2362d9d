package board

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The digests recorded in doc.go: the embedded copies must not drift.
func TestEmbeddedDataDigests(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"map.json", mapJSON, "cd22cba8b55cf371cb036495d4039e1cd3375fe61b91e285d6b8d1f1123c2d8c"},
		{"objectives.json", objectivesJSON, "0b70000c9c0a38100a55998e823a82ddab05b27e3bf0dfb17a351e172f06dd8a"},
	} {
		sum := sha256.Sum256(tc.data)
		if got := hex.EncodeToString(sum[:]); got != tc.want {
			t.Errorf("%s: sha256 %s, doc.go records %s", tc.name, got, tc.want)
		}
	}
}

func mustDefault(t *testing.T) *Map {
	t.Helper()
	m, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	return m
}

func TestDefaultMap(t *testing.T) {
	m := mustDefault(t)
	if err := m.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if n := len(m.IDs()); n != 42 {
		t.Errorf("%d territories, want 42", n)
	}
	if got := m.TotalPoints(); got != 164 {
		t.Errorf("total points %d, want 164", got)
	}
	most := 0
	for _, tr := range m.Territories() {
		most = max(most, tr.Points)
	}
	if most != MostNeighbours {
		t.Errorf("the most neighbours of a territory is %d, MostNeighbours says %d", most, MostNeighbours)
	}
	if cina, _ := m.Points("cina"); cina != 7 {
		t.Errorf("cina is worth %d, want 7", cina)
	}
	edges := 0
	for _, tr := range m.Territories() {
		if tr.Points != len(tr.Neighbors) {
			t.Errorf("%s: points %d, neighbours %d", tr.ID, tr.Points, len(tr.Neighbors))
		}
		for _, n := range tr.Neighbors {
			u, ok := m.Territory(n)
			if !ok || !slices.Contains(u.Neighbors, tr.ID) {
				t.Errorf("adjacency %s–%s not symmetric", tr.ID, n)
			}
			edges++
		}
		if tr.NameIT == "" || tr.NameEN == "" || tr.Continent == "" {
			t.Errorf("%s: missing names or continent: %+v", tr.ID, tr)
		}
	}
	if edges != 2*82 {
		t.Errorf("%d directed edges, want 164", edges)
	}
	if m2 := mustDefault(t); m2 != m {
		t.Errorf("Default returned a different map on the second call")
	}
}

func TestContinents(t *testing.T) {
	m := mustDefault(t)
	want := []struct {
		id           string
		size, points int
	}{
		{"nord_america", 9, 35}, {"sud_america", 4, 12}, {"europa", 7, 32},
		{"africa", 6, 23}, {"asia", 12, 51}, {"oceania", 4, 11},
	}
	cs := m.Continents()
	if len(cs) != len(want) {
		t.Fatalf("%d continents, want %d", len(cs), len(want))
	}
	for i, w := range want {
		if c := cs[i]; c.ID != w.id || len(c.Territories) != w.size || c.Points != w.points {
			t.Errorf("continent %d = %s/%d/%d, want %s/%d/%d", i, c.ID, len(c.Territories), c.Points, w.id, w.size, w.points)
		}
	}
}

// The RisiKo! map, not Hasbro's: the three differing links and the points they imply.
func TestRisikoNotHasbro(t *testing.T) {
	m := mustDefault(t)
	adj := func(a, b string) bool { tr, _ := m.Territory(a); return slices.Contains(tr.Neighbors, b) }
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"cina", "medio_oriente", true},
		{"afghanistan", "india", false},
		{"africa_orientale", "medio_oriente", false},
		{"alaska", "kamchatka", true},
		{"jacuzia", "kamchatka", true},
		{"america_centrale", "stati_uniti_orientali", true},
		{"brasile", "africa_del_nord", true},
	} {
		if got := adj(tc.a, tc.b); got != tc.want {
			t.Errorf("%s–%s adjacent = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	for id, want := range map[string]int{
		"cina": 7, "india": 3, "medio_oriente": 6, "afghanistan": 4, "africa_orientale": 5,
		"australia_orientale": 2, "europa_settentrionale": 5, "argentina": 2, "ontario": 6,
	} {
		if got, ok := m.Points(id); !ok || got != want {
			t.Errorf("Points(%s) = %d, %v; want %d", id, got, ok, want)
		}
	}
	if _, ok := m.Points("atlantide"); ok {
		t.Errorf("Points of an unknown territory reported ok")
	}
}

func TestMapAccessorsReturnCopies(t *testing.T) {
	m := mustDefault(t)
	tr, _ := m.Territory("cina")
	tr.Neighbors[0] = "x"
	m.IDs()[0] = "x"
	m.Continents()[0].Territories[0] = "x"
	m.Territories()[0].Neighbors[0] = "x"
	if err := m.Validate(); err != nil {
		t.Fatalf("map changed through an accessor: %v", err)
	}
}

// mutateJSON applies f to a generic copy of the embedded map.json and returns the result.
func mutateJSON(t *testing.T, f func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(mapJSON, &doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func territoryOf(doc map[string]any, id string) map[string]any {
	for _, tr := range doc["territories"].([]any) {
		if tm := tr.(map[string]any); tm["id"] == id {
			return tm
		}
	}
	panic("no territory " + id)
}

// The file's own declared figures are checked when it is parsed.
func TestParseMapRejectsInconsistentFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(doc map[string]any)
		want   string
	}{
		{"stale neighbor_count", func(doc map[string]any) { territoryOf(doc, "cina")["neighbor_count"] = 6 },
			"cina: neighbor_count 6 but 7 neighbours listed"},
		{"stale stats total", func(doc map[string]any) { doc["stats"].(map[string]any)["sum_of_neighbor_counts"] = 166 },
			"declared to total 166"},
		{"stale stats edges", func(doc map[string]any) { doc["stats"].(map[string]any)["edges"] = 83 },
			"83 edges declared"},
		{"stale continent total", func(doc map[string]any) { doc["continents"].([]any)[4].(map[string]any)["neighbor_count_total"] = 50 },
			"continent asia: neighbor_count_total 50 but its territories sum to 51"},
		{"duplicate territory", func(doc map[string]any) {
			doc["territories"] = append(doc["territories"].([]any), territoryOf(doc, "siam"))
		}, `territory "siam" listed twice`},
		{"not json", nil, "invalid map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte("{not json")
			if tc.mutate != nil {
				data = mutateJSON(t, tc.mutate)
			}
			_, err := parseMap(data)
			if !errors.Is(err, ErrInvalidMap) || !strings.HasPrefix(err.Error(), "board: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidMap containing %q", err, tc.want)
			}
		})
	}
}

func freshMap(t *testing.T) *Map {
	t.Helper()
	m, err := parseMap(mapJSON)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// link adds b to a's neighbours (one direction only).
func link(m *Map, a, b string) {
	tr := m.territories[a]
	tr.Neighbors = append(slices.Clone(tr.Neighbors), b)
	tr.Points = len(tr.Neighbors)
	m.territories[a] = tr
}

func TestValidateRejectsBadMaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(m *Map)
		want   string // substring of the error
	}{
		{"one-way link", func(m *Map) { link(m, "india", "afghanistan") },
			"india lists afghanistan, afghanistan does not list india"},
		{"hasbro link both ways", func(m *Map) { link(m, "india", "afghanistan"); link(m, "afghanistan", "india") },
			"total 166, want 164"},
		{"missing territory", func(m *Map) { delete(m.territories, "alaska"); m.order = m.order[1:] },
			"41 territories, want 42"},
		{"unknown neighbour", func(m *Map) { link(m, "giappone", "atlantide") },
			`giappone borders unknown territory "atlantide"`},
		{"self link", func(m *Map) { link(m, "madagascar", "madagascar") },
			"madagascar borders itself"},
		{"neighbour twice", func(m *Map) { link(m, "madagascar", "africa_del_sud") },
			"madagascar lists neighbour africa_del_sud twice"},
		{"points not neighbour count", func(m *Map) { tr := m.territories["cina"]; tr.Points = 6; m.territories["cina"] = tr },
			"cina: points 6 but 7 neighbours"},
		{"wrong continent", func(m *Map) { tr := m.territories["egitto"]; tr.Continent = "asia"; m.territories["egitto"] = tr },
			"egitto names continent asia but is listed in africa"},
		{"in no continent", func(m *Map) { m.continents[5].Territories = m.continents[5].Territories[1:] },
			`indonesia is in no continent (names "oceania")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := freshMap(t)
			if err := m.Validate(); err != nil {
				t.Fatalf("before mutation: %v", err)
			}
			tc.mutate(m)
			err := m.Validate()
			if !errors.Is(err, ErrInvalidMap) || !strings.HasPrefix(err.Error(), "board: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidMap containing %q", err, tc.want)
			}
		})
	}
}

func TestValidateNilAndZero(t *testing.T) {
	if err := (*Map)(nil).Validate(); !errors.Is(err, ErrInvalidMap) {
		t.Errorf("nil map: err = %v", err)
	}
	if err := (&Map{}).Validate(); !errors.Is(err, ErrInvalidMap) {
		t.Errorf("zero map: err = %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			m, err := Default()
			if err != nil {
				t.Error(err)
				return
			}
			s, err := DefaultObjectives(m)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.Compute(m, Holding{Objective: 13, Territories: []string{"cina"}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
