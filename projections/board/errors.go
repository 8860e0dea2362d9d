package board

import "errors"

// Sentinel errors. Every error this package returns wraps one of them (test with
// errors.Is) and names the ids involved in its message.
var (
	// ErrUnknownTerritory: a territory id that is not on the map.
	ErrUnknownTerritory = errors.New("board: unknown territory")
	// ErrUnknownObjective: an objective id that is not in the objective set.
	ErrUnknownObjective = errors.New("board: unknown objective")
	// ErrDuplicate: a territory listed twice in one holding or objective, or an
	// objective id used twice in one set.
	ErrDuplicate = errors.New("board: duplicate")
	// ErrContested: one territory claimed by two or more players at a table.
	ErrContested = errors.New("board: territory held by more than one player")
	// ErrEmpty: an objective set with no objectives, or an objective with no territories.
	ErrEmpty = errors.New("board: empty")
	// ErrInvalidSet: an objective set that is malformed (bad JSON, missing or bad ids).
	ErrInvalidSet = errors.New("board: invalid objective set")
	// ErrInvalidMap: map data that fails its consistency checks.
	ErrInvalidMap = errors.New("board: invalid map")
	// ErrMismatch: stated numbers that disagree with what the board computes.
	ErrMismatch = errors.New("board: stated numbers disagree with the board")
)
