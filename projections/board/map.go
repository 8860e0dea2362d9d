package board

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Published facts about the RisiKo! board that the data must reproduce.
const (
	// TerritoryCount is the number of territories on the board.
	TerritoryCount = 42
	// BoardPoints is the sum of every territory's neighbour count (metarisiko: 164).
	BoardPoints = 164
	// MostNeighbours is the most neighbours any one territory has (Cina, 7:
	// "Cina 7" in giochidatavola.com's values), so the most table points one
	// territory gives.
	MostNeighbours = 7
	// ObjectivePoints is what every one of the 16 tournament objectives should be
	// worth (metarisiko: 86): every objective of the default set is, objective 12
	// with the data's candidate correction applied (see the package doc).
	ObjectivePoints = 86
)

//go:embed data/map.json
var mapJSON []byte

// Territory is one territory of the board.
type Territory struct {
	ID        string   // map id, e.g. "medio_oriente"
	NameIT    string   // Italian board name, e.g. "Medio Oriente"
	NameEN    string   // English (Hasbro) equivalent, e.g. "Middle East"
	Continent string   // continent id, e.g. "asia"
	Neighbors []string // ids of the bordering territories, sea links included
	Points    int      // table points of the territory: len(Neighbors)
	Aliases   []string // other spellings seen in the sources (informational only)
}

// Continent is one continent of the board.
type Continent struct {
	ID          string   // e.g. "asia"
	NameIT      string   // e.g. "Asia"
	NameEN      string   // e.g. "Asia"
	Bonus       int      // reinforcement armies for holding it all (not used in scoring)
	Territories []string // ids of its territories, in board order
	Points      int      // sum of its territories' points
}

// Map is the board: territories by id and continents. A Map is immutable once built and
// safe for concurrent use; accessors return copies.
type Map struct {
	order       []string             // territory ids in data order (grouped by continent)
	territories map[string]Territory // by id
	continents  []Continent
}

// Default returns the embedded RisiKo! board (data/map.json), after checking it with
// [Map.Validate]. The board is parsed once; every call returns the same immutable Map.
func Default() (*Map, error) {
	return defaultMap()
}

var defaultMap = sync.OnceValues(func() (*Map, error) {
	m, err := parseMap(mapJSON)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
})

type mapFile struct {
	Stats struct {
		Territories int `json:"territories"`
		Edges       int `json:"edges"`
		Sum         int `json:"sum_of_neighbor_counts"`
	} `json:"stats"`
	Continents []struct {
		ID          string   `json:"id"`
		NameIT      string   `json:"name_it"`
		NameEN      string   `json:"name_en"`
		Bonus       int      `json:"bonus_armies"`
		Size        int      `json:"size"`
		Territories []string `json:"territories"`
		Total       int      `json:"neighbor_count_total"`
	} `json:"continents"`
	Territories []struct {
		ID            string   `json:"id"`
		NameIT        string   `json:"name_it"`
		NameEN        string   `json:"name_en"`
		Continent     string   `json:"continent"`
		Neighbors     []string `json:"neighbors"`
		NeighborCount int      `json:"neighbor_count"`
		Aliases       []string `json:"aliases"`
	} `json:"territories"`
}

// parseMap builds a Map from map.json, checking the file's own declared figures
// (neighbor_count, continent sizes and totals, stats) against what it lists. The
// structural checks are [Map.Validate]'s.
func parseMap(data []byte) (*Map, error) {
	var f mapFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMap, err)
	}
	var problems []string
	m := &Map{territories: make(map[string]Territory, len(f.Territories))}
	sum := 0
	for _, t := range f.Territories {
		if _, dup := m.territories[t.ID]; dup {
			problems = append(problems, fmt.Sprintf("territory %q listed twice", t.ID))
			continue
		}
		if t.NeighborCount != len(t.Neighbors) {
			problems = append(problems, fmt.Sprintf("%s: neighbor_count %d but %d neighbours listed", t.ID, t.NeighborCount, len(t.Neighbors)))
		}
		m.order = append(m.order, t.ID)
		m.territories[t.ID] = Territory{
			ID:        t.ID,
			NameIT:    t.NameIT,
			NameEN:    t.NameEN,
			Continent: t.Continent,
			Neighbors: slices.Clone(t.Neighbors),
			Points:    len(t.Neighbors),
			Aliases:   slices.Clone(t.Aliases),
		}
		sum += len(t.Neighbors)
	}
	for _, c := range f.Continents {
		pts := 0
		for _, id := range c.Territories {
			pts += m.territories[id].Points // unknown ids are Validate's to report
		}
		if c.Size != len(c.Territories) {
			problems = append(problems, fmt.Sprintf("continent %s: size %d but %d territories listed", c.ID, c.Size, len(c.Territories)))
		}
		if c.Total != pts {
			problems = append(problems, fmt.Sprintf("continent %s: neighbor_count_total %d but its territories sum to %d", c.ID, c.Total, pts))
		}
		m.continents = append(m.continents, Continent{
			ID: c.ID, NameIT: c.NameIT, NameEN: c.NameEN, Bonus: c.Bonus,
			Territories: slices.Clone(c.Territories), Points: pts,
		})
	}
	if f.Stats.Territories != len(f.Territories) {
		problems = append(problems, fmt.Sprintf("stats: %d territories declared, %d listed", f.Stats.Territories, len(f.Territories)))
	}
	if f.Stats.Sum != sum {
		problems = append(problems, fmt.Sprintf("stats: neighbour counts declared to total %d, listed ones total %d", f.Stats.Sum, sum))
	}
	if 2*f.Stats.Edges != sum {
		problems = append(problems, fmt.Sprintf("stats: %d edges declared, neighbour lists give %d/2", f.Stats.Edges, sum))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrInvalidMap, strings.Join(problems, "; "))
	}
	return m, nil
}

// Validate checks that the map is the RisiKo! board: [TerritoryCount] territories with
// distinct non-empty ids, every neighbour a known territory other than itself and listed
// once, adjacency symmetric, each territory's Points equal to its neighbour count, the
// points totalling [BoardPoints], and every territory in exactly one continent, the one it
// names. It reports every problem it finds, wrapped in [ErrInvalidMap].
func (m *Map) Validate() error {
	if m == nil {
		return fmt.Errorf("%w: nil map", ErrInvalidMap)
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if len(m.order) != TerritoryCount || len(m.territories) != TerritoryCount {
		add("%d territories, want %d", len(m.territories), TerritoryCount)
	}
	total := 0
	for _, id := range m.order {
		t := m.territories[id]
		if id == "" || t.ID != id {
			add("territory with bad id %q", id)
		}
		if t.Points != len(t.Neighbors) {
			add("%s: points %d but %d neighbours", id, t.Points, len(t.Neighbors))
		}
		total += t.Points
		seen := make(map[string]bool, len(t.Neighbors))
		for _, n := range t.Neighbors {
			switch u, ok := m.territories[n]; {
			case n == id:
				add("%s borders itself", id)
			case !ok:
				add("%s borders unknown territory %q", id, n)
			case seen[n]:
				add("%s lists neighbour %s twice", id, n)
			case !slices.Contains(u.Neighbors, id):
				add("adjacency not symmetric: %s lists %s, %s does not list %s", id, n, n, id)
			}
			seen[n] = true
		}
	}
	if total != BoardPoints {
		add("territory points total %d, want %d", total, BoardPoints)
	}

	member := make(map[string]string, len(m.order))
	for _, c := range m.continents {
		for _, id := range c.Territories {
			t, ok := m.territories[id]
			switch {
			case !ok:
				add("continent %s lists unknown territory %q", c.ID, id)
			case member[id] != "":
				add("%s is in continents %s and %s", id, member[id], c.ID)
			case t.Continent != c.ID:
				add("%s names continent %s but is listed in %s", id, t.Continent, c.ID)
			}
			if member[id] == "" {
				member[id] = c.ID
			}
		}
	}
	for _, id := range m.order {
		if member[id] == "" {
			add("%s is in no continent (names %q)", id, m.territories[id].Continent)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidMap, strings.Join(problems, "; "))
	}
	return nil
}

// Territory returns the territory with the given id.
func (m *Map) Territory(id string) (Territory, bool) {
	if m == nil {
		return Territory{}, false
	}
	t, ok := m.territories[id]
	if !ok {
		return Territory{}, false
	}
	t.Neighbors = slices.Clone(t.Neighbors)
	t.Aliases = slices.Clone(t.Aliases)
	return t, true
}

// Has reports whether id is a territory of the map.
func (m *Map) Has(id string) bool {
	if m == nil {
		return false
	}
	_, ok := m.territories[id]
	return ok
}

// Points returns the table points of a territory (its neighbour count).
func (m *Map) Points(id string) (int, bool) {
	if m == nil {
		return 0, false
	}
	t, ok := m.territories[id]
	return t.Points, ok
}

// IDs returns the territory ids in board order (grouped by continent, as in map.json).
func (m *Map) IDs() []string {
	if m == nil {
		return nil
	}
	return slices.Clone(m.order)
}

// Territories returns every territory in board order.
func (m *Map) Territories() []Territory {
	if m == nil {
		return nil
	}
	out := make([]Territory, 0, len(m.order))
	for _, id := range m.order {
		t, _ := m.Territory(id)
		out = append(out, t)
	}
	return out
}

// Continents returns the continents in board order.
func (m *Map) Continents() []Continent {
	if m == nil {
		return nil
	}
	out := make([]Continent, len(m.continents))
	for i, c := range m.continents {
		c.Territories = slices.Clone(c.Territories)
		out[i] = c
	}
	return out
}

// TotalPoints returns the sum of every territory's points ([BoardPoints] on a valid map).
func (m *Map) TotalPoints() int {
	if m == nil {
		return 0
	}
	total := 0
	for _, t := range m.territories {
		total += t.Points
	}
	return total
}

// index returns the position of each territory id in board order.
func (m *Map) index() map[string]int {
	idx := make(map[string]int, len(m.order))
	for i, id := range m.order {
		idx[id] = i
	}
	return idx
}
