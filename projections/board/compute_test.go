package board

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// Holding every territory of an objective scores the objective's total, nothing off it;
// holding the whole board adds the rest of the 164 as off-objective points.
func TestComputeFullObjective(t *testing.T) {
	m, s := mustObjectives(t)
	for _, o := range s.Objectives {
		c, err := s.Compute(m, Holding{Objective: o.ID, Territories: o.Territories})
		if err != nil {
			t.Fatalf("objective %d: %v", o.ID, err)
		}
		if c.TablePoints != o.Points || c.OffObjectivePoints != 0 || c.ObjectiveTerritories != len(o.Territories) ||
			c.Territories != len(o.Territories) || !c.Complete || len(c.OffObjectiveSum) != 0 {
			t.Errorf("objective %d: %+v", o.ID, c)
		}
		if c.Set != "rtu-16" || c.Objective != o.ID {
			t.Errorf("objective %d: scored as %s/%d", o.ID, c.Set, c.Objective)
		}

		c, err = s.Compute(m, Holding{Objective: o.ID, Territories: m.IDs()})
		if err != nil {
			t.Fatal(err)
		}
		if c.TablePoints != o.Points || c.OffObjectivePoints != BoardPoints-o.Points || c.Territories != 42 || !c.Complete {
			t.Errorf("objective %d, whole board: %+v", o.ID, c)
		}
		if !strings.HasSuffix(Explain(c.OffObjectiveSum), "= "+strconv.Itoa(BoardPoints-o.Points)) {
			t.Errorf("objective %d: off sum %s", o.ID, Explain(c.OffObjectiveSum))
		}
	}
}

func TestCompute(t *testing.T) {
	m, s := mustObjectives(t)
	for _, tc := range []struct {
		name       string
		h          Holding
		tp, off    int
		nObj, nAll int
		objSum     string
		offSum     string
	}{
		{
			name: "guerra fredda, mixed, any order",
			h:    Holding{Objective: 13, Territories: []string{"cina", "brasile", "india", "egitto", "alaska"}},
			tp:   13, off: 8, nObj: 3, nAll: 5,
			objSum: "alaska 3 + india 3 + cina 7 = 13",
			offSum: "brasile 4 + egitto 4 = 8",
		},
		{
			name:   "eliminated: nothing held",
			h:      Holding{Objective: 5},
			objSum: "0", offSum: "0",
		},
		{
			name: "nothing in the objective",
			h:    Holding{Objective: 13, Territories: []string{"madagascar", "argentina"}},
			off:  4, nAll: 2, objSum: "0", offSum: "argentina 2 + madagascar 2 = 4",
		},
		{
			name: "objective 12 corrected: indonesia is off the objective",
			h:    Holding{Objective: 12, Territories: []string{"indonesia", "ucraina"}},
			tp:   6, off: 3, nObj: 1, nAll: 2,
			objSum: "ucraina 6 = 6", offSum: "indonesia 3 = 3",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := s.Compute(m, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			if c.TablePoints != tc.tp || c.OffObjectivePoints != tc.off || c.ObjectiveTerritories != tc.nObj || c.Territories != tc.nAll || c.Complete {
				t.Errorf("got %+v", c)
			}
			if got := Explain(c.ObjectiveSum); got != tc.objSum {
				t.Errorf("objective sum %q, want %q", got, tc.objSum)
			}
			if got := Explain(c.OffObjectiveSum); got != tc.offSum {
				t.Errorf("off-objective sum %q, want %q", got, tc.offSum)
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	m, s := mustObjectives(t)
	for _, tc := range []struct {
		name    string
		h       Holding
		wantErr error
		wantMsg string
	}{
		{"unknown objective", Holding{Objective: 17, Territories: []string{"cina"}}, ErrUnknownObjective, `17 (objective set "rtu-16")`},
		{"objective 0", Holding{Objective: 0}, ErrUnknownObjective, "objective: 0"},
		{"unknown territory", Holding{Objective: 1, Territories: []string{"cina", "irkutsk", "yakutsk"}}, ErrUnknownTerritory, `"irkutsk", "yakutsk"`},
		{"duplicate territory", Holding{Objective: 1, Territories: []string{"cina", "siam", "cina", "cina"}}, ErrDuplicate, "territory cina listed twice"},
		{"unknown before duplicate", Holding{Objective: 1, Territories: []string{"x", "x"}}, ErrUnknownTerritory, `"x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Compute(m, tc.h)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "board: ") || !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("err = %q, want it to contain %q", msg, tc.wantMsg)
			}
		})
	}
	// An objective set whose lists are not on this map.
	alien := &ObjectiveSet{ID: "alien", Objectives: []Objective{{ID: 1, Territories: []string{"irkutsk"}}}}
	if _, err := alien.Compute(m, Holding{Objective: 1}); !errors.Is(err, ErrUnknownTerritory) || !strings.Contains(err.Error(), `"irkutsk"`) {
		t.Errorf("alien set: err = %v", err)
	}
	if _, err := s.Compute(nil, Holding{Objective: 1}); !errors.Is(err, ErrInvalidMap) {
		t.Errorf("nil map: err = %v", err)
	}
	if _, err := (*ObjectiveSet)(nil).Compute(m, Holding{Objective: 1}); !errors.Is(err, ErrInvalidSet) {
		t.Errorf("nil set: err = %v", err)
	}
}

func TestCheckTable(t *testing.T) {
	m, s := mustObjectives(t)
	good := map[string]Holding{
		"anna":  {Objective: 13, Territories: []string{"alaska", "cina", "brasile"}},
		"bruno": {Objective: 7}, // eliminated
		"carlo": {Objective: 9, Territories: []string{"islanda", "scandinavia", "indonesia"}},
	}
	got, err := s.CheckTable(m, good)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["anna"].TablePoints != 10 || got["anna"].OffObjectivePoints != 4 ||
		got["bruno"].Territories != 0 || got["carlo"].TablePoints != 10 {
		t.Errorf("got %+v", got)
	}

	for _, tc := range []struct {
		name    string
		players map[string]Holding
		wantErr error
		wantMsg string
	}{
		{"two players claim one territory", map[string]Holding{
			"anna":  {Objective: 13, Territories: []string{"cina", "siam"}},
			"bruno": {Objective: 7, Territories: []string{"brasile", "cina"}},
		}, ErrContested, "cina (anna, bruno)"},
		{"several contested", map[string]Holding{
			"anna":  {Objective: 13, Territories: []string{"siam", "cina"}},
			"bruno": {Objective: 7, Territories: []string{"cina", "alaska"}},
			"carlo": {Objective: 1, Territories: []string{"alaska", "cina"}},
		}, ErrContested, "alaska (bruno, carlo); cina (anna, bruno, carlo)"},
		{"player error names the player", map[string]Holding{
			"anna":  {Objective: 13, Territories: []string{"cina"}},
			"bruno": {Objective: 99, Territories: []string{"siam"}},
		}, ErrUnknownObjective, `(player "bruno")`},
		{"duplicate within a player", map[string]Holding{
			"anna": {Objective: 13, Territories: []string{"cina", "cina"}},
		}, ErrDuplicate, `cina listed twice (player "anna")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.CheckTable(m, tc.players)
			if !errors.Is(err, tc.wantErr) || res != nil {
				t.Fatalf("err = %v, res = %v; want %v", err, res, tc.wantErr)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "board: ") || !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("err = %q, want it to contain %q", msg, tc.wantMsg)
			}
		})
	}
	if res, err := s.CheckTable(m, nil); err != nil || len(res) != 0 {
		t.Errorf("empty table: %v, %v", res, err)
	}
	if _, err := s.CheckTable(nil, nil); !errors.Is(err, ErrInvalidMap) {
		t.Errorf("nil map: err = %v", err)
	}
}

func TestComputedCheck(t *testing.T) {
	m, s := mustObjectives(t)
	c, err := s.Compute(m, Holding{Objective: 13, Territories: []string{"alaska", "cina", "brasile"}})
	if err != nil {
		t.Fatal(err)
	}
	ok := Reported{TablePoints: 10, OffObjectivePoints: 4, ObjectiveTerritories: 2, Territories: 3}
	if err := c.Check(ok); err != nil {
		t.Errorf("matching report refused: %v", err)
	}
	for _, tc := range []struct {
		name string
		r    Reported
		want []string
	}{
		{"table points", Reported{TablePoints: 12, OffObjectivePoints: 4, ObjectiveTerritories: 2, Territories: 3},
			[]string{"table points stated 12, board says alaska 3 + cina 7 = 10", `(objective 13 of set "rtu-16")`}},
		{"everything", Reported{},
			[]string{"table points stated 0, board says alaska 3 + cina 7 = 10", "off-objective points stated 0, board says brasile 4 = 4",
				"objective territories stated 0, board says 2 (alaska, cina)", "territories stated 0, board says 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Check(tc.r)
			if !errors.Is(err, ErrMismatch) {
				t.Fatalf("err = %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		in   []TerritoryPoints
		want string
	}{
		{nil, "0"},
		{[]TerritoryPoints{}, "0"},
		{[]TerritoryPoints{{"cina", 7}}, "cina 7 = 7"},
		{[]TerritoryPoints{{"alaska", 3}, {"alberta", 4}, {"cina", 7}}, "alaska 3 + alberta 4 + cina 7 = 14"},
	} {
		if got := Explain(tc.in); got != tc.want {
			t.Errorf("Explain(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// The whole board.
	m := mustDefault(t)
	var all []TerritoryPoints
	for _, tr := range m.Territories() {
		all = append(all, TerritoryPoints{tr.ID, tr.Points})
	}
	if got := Explain(all); !strings.HasPrefix(got, "alaska 3 + territori_del_nord_ovest 4 + ") || !strings.HasSuffix(got, " = 164") {
		t.Errorf("whole board: %q", got)
	}
}
