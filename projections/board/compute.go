package board

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Holding is what a report says a player held at the end of the game: the number of
// their objective card in the tournament's objective set, and the ids of the territories
// they held. An eliminated player holds no territories.
type Holding struct {
	Objective   int      `json:"objective"`
	Territories []string `json:"territories"`
}

// TerritoryPoints is one term of a table-points sum: a territory and its points.
type TerritoryPoints struct {
	Territory string `json:"territory"`
	Points    int    `json:"points"`
}

// Computed is what the board says a [Holding] is worth.
type Computed struct {
	Set                  string            `json:"set"`       // objective set id the holding was scored against
	Objective            int               `json:"objective"` // objective id
	TablePoints          int               `json:"table_points"`
	OffObjectivePoints   int               `json:"off_objective_points"`
	ObjectiveTerritories int               `json:"objective_territories"` // held territories in the objective
	Territories          int               `json:"territories"`           // territories held
	Complete             bool              `json:"complete"`              // every objective territory is held
	ObjectiveSum         []TerritoryPoints `json:"objective_sum"`         // held objective territories, board order
	OffObjectiveSum      []TerritoryPoints `json:"off_objective_sum"`     // held territories outside the objective, board order
}

// Compute evaluates h against objective h.Objective of s on map m. It fails, naming the
// ids, on an objective not in s ([ErrUnknownObjective]), a territory not on m
// ([ErrUnknownTerritory], also for the objective's own list) or a territory listed twice
// ([ErrDuplicate]). The sums list territories in board order whatever the order of h.
func (s *ObjectiveSet) Compute(m *Map, h Holding) (Computed, error) {
	if s == nil {
		return Computed{}, fmt.Errorf("%w: nil set", ErrInvalidSet)
	}
	if m == nil {
		return Computed{}, fmt.Errorf("%w: nil map", ErrInvalidMap)
	}
	o, ok := s.Objective(h.Objective)
	if !ok {
		return Computed{}, fmt.Errorf("%w: %d (objective set %q)", ErrUnknownObjective, h.Objective, s.ID)
	}
	if _, err := objectivePoints(m, s.ID, o); err != nil {
		return Computed{}, err
	}
	unknown, dups := checkIDs(m, h.Territories)
	if len(unknown) > 0 {
		return Computed{}, fmt.Errorf("%w: %s", ErrUnknownTerritory, quoteList(unknown))
	}
	if len(dups) > 0 {
		return Computed{}, fmt.Errorf("%w: territory %s listed twice", ErrDuplicate, strings.Join(dups, ", "))
	}

	idx := m.index()
	held := slices.Clone(h.Territories)
	sort.Slice(held, func(i, j int) bool { return idx[held[i]] < idx[held[j]] })
	in := make(map[string]bool, len(o.Territories))
	for _, id := range o.Territories {
		in[id] = true
	}
	c := Computed{
		Set:             s.ID,
		Objective:       o.ID,
		Territories:     len(held),
		ObjectiveSum:    []TerritoryPoints{},
		OffObjectiveSum: []TerritoryPoints{},
	}
	for _, id := range held {
		p, _ := m.Points(id)
		tp := TerritoryPoints{Territory: id, Points: p}
		if in[id] {
			c.TablePoints += p
			c.ObjectiveTerritories++
			c.ObjectiveSum = append(c.ObjectiveSum, tp)
		} else {
			c.OffObjectivePoints += p
			c.OffObjectiveSum = append(c.OffObjectiveSum, tp)
		}
	}
	c.Complete = c.ObjectiveTerritories == len(o.Territories)
	return c, nil
}

// CheckTable computes the holdings of every player at one table, keyed by player id.
// Each player's holding must pass [ObjectiveSet.Compute] (the error names the player),
// and no territory may be held by two players ([ErrContested], naming every contested
// territory and its claimants). It does not require the players to hold the whole board.
func (s *ObjectiveSet) CheckTable(m *Map, players map[string]Holding) (map[string]Computed, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil set", ErrInvalidSet)
	}
	if m == nil {
		return nil, fmt.Errorf("%w: nil map", ErrInvalidMap)
	}
	ids := make([]string, 0, len(players))
	for p := range players {
		ids = append(ids, p)
	}
	slices.Sort(ids)

	out := make(map[string]Computed, len(players))
	owners := make(map[string][]string)
	for _, p := range ids {
		c, err := s.Compute(m, players[p])
		if err != nil {
			return nil, fmt.Errorf("%w (player %q)", err, p)
		}
		out[p] = c
		for _, id := range players[p].Territories {
			owners[id] = append(owners[id], p)
		}
	}

	var contested []string
	for _, id := range m.order {
		if who := owners[id]; len(who) > 1 {
			contested = append(contested, fmt.Sprintf("%s (%s)", id, strings.Join(who, ", ")))
		}
	}
	if len(contested) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrContested, strings.Join(contested, "; "))
	}
	return out, nil
}

// Reported is what a table report states for one player, to compare with [Computed].
type Reported struct {
	TablePoints          int `json:"table_points"`
	OffObjectivePoints   int `json:"off_objective_points"`
	ObjectiveTerritories int `json:"objective_territories"`
	Territories          int `json:"territories"`
}

// Check compares stated numbers with the computed ones. On any difference it returns
// an [ErrMismatch] error listing each differing figure, with the territory sum behind
// it, e.g. "table points stated 60, board says alaska 3 + alberta 4 + … = 62".
func (c Computed) Check(r Reported) error {
	var diffs []string
	if r.TablePoints != c.TablePoints {
		diffs = append(diffs, fmt.Sprintf("table points stated %d, board says %s", r.TablePoints, Explain(c.ObjectiveSum)))
	}
	if r.OffObjectivePoints != c.OffObjectivePoints {
		diffs = append(diffs, fmt.Sprintf("off-objective points stated %d, board says %s", r.OffObjectivePoints, Explain(c.OffObjectiveSum)))
	}
	if r.ObjectiveTerritories != c.ObjectiveTerritories {
		diffs = append(diffs, fmt.Sprintf("objective territories stated %d, board says %d (%s)", r.ObjectiveTerritories, c.ObjectiveTerritories, names(c.ObjectiveSum)))
	}
	if r.Territories != c.Territories {
		diffs = append(diffs, fmt.Sprintf("territories stated %d, board says %d", r.Territories, c.Territories))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (objective %d of set %q)", ErrMismatch, strings.Join(diffs, "; "), c.Objective, c.Set)
}

// Explain renders a sum for an error message: "alaska 3 + alberta 4 = 7". An empty sum
// renders as "0".
func Explain(ps []TerritoryPoints) string {
	if len(ps) == 0 {
		return "0"
	}
	var b strings.Builder
	total := 0
	for i, p := range ps {
		if i > 0 {
			b.WriteString(" + ")
		}
		b.WriteString(p.Territory)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(p.Points))
		total += p.Points
	}
	b.WriteString(" = ")
	b.WriteString(strconv.Itoa(total))
	return b.String()
}

func names(ps []TerritoryPoints) string {
	if len(ps) == 0 {
		return "none"
	}
	n := make([]string, len(ps))
	for i, p := range ps {
		n[i] = p.Territory
	}
	return strings.Join(n, ", ")
}
