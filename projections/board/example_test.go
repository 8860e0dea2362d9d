package board_test

import (
	"fmt"

	"github.com/referto/referto/projections/board"
)

func Example() {
	m, err := board.Default()
	if err != nil {
		panic(err)
	}
	set, err := board.DefaultObjectives(m)
	if err != nil {
		panic(err)
	}
	// Objective 13 (Guerra fredda) is North America + Asia.
	c, err := set.Compute(m, board.Holding{Objective: 13, Territories: []string{"cina", "brasile", "alaska"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.TablePoints, c.OffObjectivePoints, board.Explain(c.ObjectiveSum))

	err = c.Check(board.Reported{TablePoints: 12, OffObjectivePoints: 4, ObjectiveTerritories: 2, Territories: 3})
	fmt.Println(err)

	_, err = set.CheckTable(m, map[string]board.Holding{
		"anna":  {Objective: 13, Territories: []string{"cina"}},
		"bruno": {Objective: 7, Territories: []string{"cina", "siam"}},
	})
	fmt.Println(err)
	// Output:
	// 10 4 alaska 3 + cina 7 = 10
	// board: stated numbers disagree with the board: table points stated 12, board says alaska 3 + cina 7 = 10 (objective 13 of set "rtu-16")
	// board: territory held by more than one player: cina (anna, bruno)
}
