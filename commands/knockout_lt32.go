package commands

import (
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// rtu's formats for fewer than 32 entrants: "qualificare direttamente in
// finale il primo della classifica e far giocare tre sole semifinali (dal 2°
// al 12° in classifica) o eventualmente qualificare direttamente in finale i
// primi due della classifica e far giocare due sole semifinali (dal 3° al
// 10° in classifica)" ("final-lt32-1", "final-lt32-2").
type lt32 struct {
	byes, seeds int    // straight to the final; at the semifinals
	what        string // the semifinals, as a refusal names them
	bands       []int  // the semifinals' bands
}

var (
	lt32OneBye  = lt32{byes: 1, seeds: 11, what: "three semifinals and a bye", bands: []int{3, 3, 3, 2}}
	lt32TwoByes = lt32{byes: 2, seeds: 8, what: "two semifinals and two byes", bands: []int{2, 2, 2, 2}}
)

func lt32Knockout(l lt32) knockoutFormat {
	return knockoutFormat{
		rules: []string{ruleRTU},
		phases: func(*projections.Tournament) []events.Phase {
			return []events.Phase{events.PhaseSemifinal, events.PhaseFinal}
		},
		cut: func(*projections.Tournament) int { return l.byes + l.seeds },
		plan: func(d *draft) error {
			switch d.phase {
			case events.PhaseSemifinal:
				return l.semifinals(d)
			case events.PhaseFinal:
				return finalOfWinners(d)
			}
			return d.noPlan()
		},
	}
}

// semifinals: the top byes straight to the final, the next seeds by bands;
// a tie may not straddle the byes' boundary nor any band's.
func (l lt32) semifinals(d *draft) error {
	d.byes = d.pick(l.byes, events.PhaseFinal, nil)
	d.seeds = d.pick(l.seeds, events.PhaseSemifinal, d.byes)
	picked := append(slices.Clone(d.byes), d.seeds...)
	if err := d.need(picked, l.byes+l.seeds, l.byes+3*l.bands[0], l.what); err != nil {
		return err
	}
	d.bands = chunk(d.seeds, l.bands...)
	bounds := []int{l.byes}
	for _, n := range l.bands {
		bounds = append(bounds, bounds[len(bounds)-1]+n)
	}
	return d.cut(picked, bounds...)
}
