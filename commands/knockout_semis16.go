package commands

import (
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// master's final phases (master §fasi finali; rtu "semis16"): semifinals of
// the top 16 seeded by bands as the Raduno's, then a final of their winners.
var semis16Knockout = knockoutFormat{
	rules: []string{"master §fasi finali", ruleRTU},
	phases: func(*projections.Tournament) []events.Phase {
		return []events.Phase{events.PhaseSemifinal, events.PhaseFinal}
	},
	cut: func(*projections.Tournament) int { return 16 },
	plan: func(d *draft) error {
		switch d.phase {
		case events.PhaseSemifinal:
			return semifinalsOf16(d)
		case events.PhaseFinal:
			return finalOfWinners(d)
		}
		return d.noPlan()
	},
}
