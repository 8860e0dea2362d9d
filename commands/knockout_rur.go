package commands

import (
	"slices"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// The Raduno's knockout (rur-2015 art. 1 and 8): quarterfinals when more
// than 130 played game 1, semifinals of 16 seeded by bands, a final of the
// four semifinal winners. Art. 8: "i primi 10 classificati accederanno
// direttamente alle semifinali, mentre i giocatori classificati dall'11° al
// 34° posto disputeranno i quarti di finale".
var rurKnockout = knockoutFormat{
	rules: []string{"rur-2015 art. 8"},
	phases: func(t *projections.Tournament) []events.Phase {
		if entrantsOf(t) > quarterThreshold {
			return []events.Phase{events.PhaseQuarterfinal, events.PhaseSemifinal, events.PhaseFinal}
		}
		return []events.Phase{events.PhaseSemifinal, events.PhaseFinal}
	},
	cut: func(t *projections.Tournament) int {
		if entrantsOf(t) > quarterThreshold {
			return 34
		}
		return 16
	},
	plan: func(d *draft) error {
		switch {
		case d.phase == events.PhaseQuarterfinal:
			return rurQuarterfinals(d)
		case d.phase == events.PhaseSemifinal && d.prev != nil && d.prev.Phase == events.PhaseQuarterfinal:
			return rurSemifinalsAfterQuarterfinals(d)
		case d.phase == events.PhaseSemifinal:
			return semifinalsOf16(d)
		case d.phase == events.PhaseFinal:
			return finalOfWinners(d)
		}
		return d.noPlan()
	},
}

// quarterThreshold: quarterfinals are played when more than this many
// players played game 1 (rur-2015 art. 1).
const quarterThreshold = 130

// rurQuarterfinals: ranks 1-10 straight to the semifinals, 11-34 play six
// quarterfinal tables, one per band of six.
func rurQuarterfinals(d *draft) error {
	d.byes = d.pick(10, events.PhaseSemifinal, nil)
	d.seeds = d.pick(24, events.PhaseSemifinal, d.byes)
	if err := d.need(append(slices.Clone(d.byes), d.seeds...), 34, 10+6*3, "the quarterfinals"); err != nil {
		return err
	}
	d.bands = chunk(d.seeds, 6, 6, 6, 6)
	return d.cut(append(slices.Clone(d.byes), d.seeds...), 10, 16, 22, 28, 34)
}

// rurSemifinalsAfterQuarterfinals: seeds 1-10 are the direct semifinalists;
// 11-16 the quarterfinal winners ordered by their three games.
func rurSemifinalsAfterQuarterfinals(d *draft) error {
	direct, err := d.qualifiers(d.t, d.prev.Byes, d.prev)
	if err != nil {
		return err
	}
	winners, err := d.qualifiers(d.t, tableWinners(d.prev), d.prev)
	if err != nil {
		return err
	}
	ordered, err := orderByGames(d.t, winners, d.prev.Number)
	if err != nil {
		return err
	}
	d.seeds = append(direct, ordered...)
	d.bands = chunk(d.seeds, 4, 4, 4, 4)
	return nil
}

// semifinalsOf16: ranks 1-16 at four tables, one from each band of four
// (rur-2015 art. 8; master's semifinals too).
func semifinalsOf16(d *draft) error {
	d.seeds = d.pick(16, events.PhaseSemifinal, nil)
	if err := d.need(d.seeds, 16, 4*3, "the semifinals"); err != nil {
		return err
	}
	d.bands = chunk(d.seeds, 4, 4, 4, 4)
	return d.cut(d.seeds, 4, 8, 12, 16)
}
