package commands

import (
	"fmt"
	"slices"

	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Direct elimination (rtu, "eliminazione diretta senza seconda chance":
// "prima partita di qualificazione: 16 tavoli da 4 giocatori (nell'ipotesi
// massima 25 tavoli da 5 giocatori) - seconda partita le semifinali: 4
// tavoli da 4 giocatori (nell'ipotesi massima 5 tavoli da 5 giocatori) -
// terza partita la finale: 1 tavolo con i 4 vincitori delle semifinali
// (nell'ipotesi massima 1 tavolo da 5 giocatori)"; with a second chance the
// same semifinals and final after "1 tavolo da 4 giocatori e 13 tavoli da 5
// ... 14 vincitori" and "11 tavoli da 5 ... altri 11 vincitori" at most).
// Every table before the semifinals sends its winner to them, so those
// rounds are seated to leave at most 5 semifinal tables: at the ruleset's
// preferred sizes while that fits, else at the fewest tables; and the
// semifinals at the fewest tables. These are edition 2 readings: edition 1
// seated every round at the preferred sizes (docs/rules.md#73-pinned-direct-elimination-reaches-a-final).

// directKnockout is rtu's direct elimination, with or without the second
// chance of game 1's losers ("direct", "direct-second-chance").
func directKnockout(secondChance bool) knockoutFormat {
	phases := []events.Phase{events.PhaseSemifinal, events.PhaseFinal}
	entrants, least := "rtu's direct elimination without a second chance \"presuppone un minimo di 64 iscritti ed un massimo 125 iscritti\"", 64
	if secondChance {
		phases = append([]events.Phase{events.PhaseSecondChance}, phases...)
		entrants, least = "rtu's direct elimination with a second chance \"presuppone un minimo di 37 iscritti ed un massimo di 69 iscritti\"", 37
	}
	return knockoutFormat{
		rules:         []string{ruleRTU},
		phases:        func(*projections.Tournament) []events.Phase { return slices.Clone(phases) },
		cut:           func(*projections.Tournament) int { return 0 },
		direct:        true,
		entrants:      entrants,
		leastEntrants: least,
		plan: func(d *draft) error {
			if len(d.t.Rounds) < d.round-1 {
				// Its players are read off every round before it (the
				// cut asked as the standings stand, before the draw).
				return ruleErr(d.rule, "the %s follows round %d, which has not been drawn", d.phase, d.round-1)
			}
			switch d.phase {
			case events.PhaseSecondChance:
				return planSecondChance(d)
			case events.PhaseSemifinal:
				return directSemifinals(d)
			case events.PhaseFinal:
				return finalOfWinners(d)
			}
			return d.noPlan()
		},
	}
}

// planSecondChance: everyone who did not win in game 1 plays again.
func planSecondChance(d *draft) error {
	winners := tableWinners(d.prev)
	for _, tb := range d.prev.Tables {
		for _, id := range tb.Players {
			if !slices.Contains(winners, id) && eligible(d.t, id, d.phase) {
				d.random = append(d.random, id)
			}
		}
	}
	d.seeds = d.random
	if editionAtLeast(d.t, 2) {
		var err error
		if d.sizes, d.fits, err = feederSizes(d.t, d.round, len(d.random)); err != nil {
			return err
		}
	}
	return nil
}

// directSemifinals: the table winners of every round before.
func directSemifinals(d *draft) error {
	var winners []string
	for r := 1; r < d.round; r++ {
		q, err := d.qualifiers(d.t, tableWinners(d.t.Round(r)), d.t.Round(r))
		if err != nil {
			return err
		}
		winners = append(winners, q...)
	}
	d.random, d.seeds = winners, winners
	if editionAtLeast(d.t, 2) {
		// The fewest tables, so that the final seats at most 5.
		rs := d.t.Ruleset
		d.sizes = fewestTablesFirst(rs.TableSizes)
		d.fits = func(tables int) bool { return tables <= maxSemifinalTables }
		if most := maxSemifinalists(rs); len(winners) > most {
			return ruleErr(d.rule, "%d players qualified for the semifinals, and the semifinals seat at most %d tables (%d players), so that the final has at most %d: %s",
				len(winners), maxSemifinalTables, most, maxSemifinalTables, ruleSemifinals)
		}
	}
	return nil
}

// maxSemifinalTables is the most semifinal tables of direct elimination:
// the final seats their winners, at most 5.
const maxSemifinalTables = 5

const ruleSemifinals = "rtu: \"seconda partita le semifinali: 4 tavoli da 4 giocatori (nell'ipotesi massima 5 tavoli da 5 giocatori) - terza partita la finale: 1 tavolo con i 4 vincitori delle semifinali (nell'ipotesi massima 1 tavolo da 5 giocatori)\""

// maxSemifinalists is how many players the semifinals of direct
// elimination seat at most: 5 tables of the largest size.
func maxSemifinalists(rs events.Ruleset) int {
	largest := 0
	for _, n := range rs.TableSizes {
		largest = max(largest, n)
	}
	return maxSemifinalTables * largest
}

// fewestTablesFirst orders table sizes largest first: draw.Plan then seats
// the players at the fewest tables (24 at 5, 5, 5, 5, 4).
func fewestTablesFirst(sizes []int) []int {
	out := slices.Clone(sizes)
	slices.SortFunc(out, func(a, b int) int { return b - a })
	return out
}

// tablesFor is how many tables draw.Plan seats n players at, or false.
func tablesFor(t *projections.Tournament, n int, sizes []int) (int, bool) {
	plan, err := draw.Plan(n, sizes, t.Ruleset.SmallTableMax)
	return len(plan), err == nil
}

// feederSizes are the table sizes for round `round`, n players, under
// direct elimination, when its table winners go to the semifinals: the
// ruleset's preferred sizes if the semifinals can still seat every winner
// at 5 tables at most, counting the winners of the rounds before and the
// fewest tables the second chance can follow with; else the fewest tables.
// fits tells whether a number of tables (a manual draw's) leaves the
// semifinals seatable; nil when any does. The draw is refused when even
// the fewest tables leave too many semifinalists. Other rounds and
// rulesets get the ruleset's sizes.
func feederSizes(t *projections.Tournament, round, n int) (sizes []int, fits func(int) bool, err error) {
	rs := t.Ruleset
	f := formatOf(rs)
	pref := rs.TableSizes
	if !f.direct || round >= phaseRound(t, events.PhaseSemifinal) || n == 0 {
		return pref, nil, nil
	}
	most := maxSemifinalists(rs)
	before := 0
	for r := 1; r < round; r++ {
		before += len(tableWinners(t.Round(r)))
	}
	fewest := fewestTablesFirst(pref)
	// after is the fewest winners the rounds between this one and the
	// semifinals add: the second chance, played by this round's losers.
	after := func(tables int) int {
		if round == rs.QualifyingRounds && slices.Contains(f.phases(t), events.PhaseSecondChance) {
			k, _ := tablesFor(t, n-tables, fewest)
			return k
		}
		return 0
	}
	fits = func(tables int) bool { return before+tables+after(tables) <= most }
	least, ok := tablesFor(t, n, fewest)
	if !ok {
		return pref, fits, nil // the draw names the sizes that cannot seat them
	}
	if tables, ok := tablesFor(t, n, pref); ok && fits(tables) {
		return pref, fits, nil
	}
	if fits(least) {
		return fewest, fits, nil
	}
	msg := fmt.Sprintf("%d players sit at %d tables at least in round %d", n, least, round)
	if before > 0 {
		msg += fmt.Sprintf(", after %d table winners", before)
	}
	if a := after(least); a > 0 {
		msg += fmt.Sprintf(", and the second chance adds %d more at least", a)
	}
	return nil, nil, ruleErr(f.ruleOf(rs), "%s: more than %d players would reach the semifinals, which seat at most %d tables (%s); %s",
		msg, most, maxSemifinalTables, ruleSemifinals, f.entrants)
}
