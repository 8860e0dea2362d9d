package commands

import (
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// rtu's final of the top 4 ("final4"), and beside it the "finalina" of the
// 5th to 8th ("final4+8"): "una finale (fra i primi 4 della classifica) ed
// eventualmente anche una finalina per il quinto posto (fra i classificati
// dal 5° all'8° posto)".
func final4Knockout(n int) knockoutFormat {
	return knockoutFormat{
		rules:  []string{ruleRTU},
		phases: func(*projections.Tournament) []events.Phase { return []events.Phase{events.PhaseFinal} },
		cut:    func(*projections.Tournament) int { return n },
		plan: func(d *draft) error {
			if d.phase != events.PhaseFinal {
				return d.noPlan()
			}
			d.seeds = d.pick(n, events.PhaseFinal, nil)
			// Short of players, the final seats 3, the finalina 3 too.
			least := 3
			if n == 8 {
				least = 4 + 3
			}
			if err := d.need(d.seeds, n, least, "the final"); err != nil {
				return err
			}
			d.groups = [][]string{d.seeds[:min(4, len(d.seeds))]}
			bounds := []int{4}
			if n == 8 {
				d.groups = append(d.groups, d.seeds[4:])
				d.labels = map[string]events.Phase{"2": events.PhaseFinalina}
				bounds = append(bounds, 8)
			}
			return d.cut(d.seeds, bounds...)
		},
	}
}
