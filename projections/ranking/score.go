package ranking

import (
	"math"

	"github.com/referto/referto/events"
)

// Class is a tournament type's weight in the score of a placing
// (docs/rules.md#15-the-national-ranking); a CAMPIONATO's depends on its
// rounds.
func Class(k events.TournamentType, rounds int) float64 {
	switch k {
	case events.TypeRadunoNazionale:
		return 5
	case events.TypeMaster:
		return 4
	case events.TypeOpen:
		return 2
	case events.TypeInterclub:
		return 1.5
	case events.TypeCampionato:
		switch {
		case rounds < 3:
			return 0.2
		case rounds == 3:
			return 0.5
		case rounds == 4:
			return 0.7
		case rounds == 5:
			return 0.8
		}
		return 1
	}
	return 0
}

// Score is what place earns in a tournament of type k with tables tables
// and rounds rounds (docs/rules.md#15-the-national-ranking):
// VT = a × (100 + tables) × class, a = 1.2 for the winner and 1 otherwise;
// the winner scores VT, place p scores VT × e^(−p/20).
func Score(k events.TournamentType, place, tables, rounds int) float64 {
	if place < 1 {
		return 0
	}
	a := 1.0
	if place == 1 {
		a = 1.2
	}
	vt := a * (100 + float64(tables)) * Class(k, rounds)
	if place == 1 {
		return vt
	}
	return vt * math.Exp(-float64(place)/20)
}
