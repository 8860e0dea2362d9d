package scoring

import "github.com/referto/referto/events"

// maialinoBonus is the bonus of rtu formula "maialino" by place: 60, 10, 5.
var maialinoBonus = []int{60, 10, 5}

// scoreMaialino is rtu formula "maialino": half the table points plus a bonus of 60
// (first), 10 (second), 5 (third). A risiko counts 100 table points (110). Eliminated
// and disqualified players score 0. Ties in table points are not broken: the tied
// players share the place. Pinned: two players tied share the bonus of the place they
// tie at and the next player takes the place after the group; three tied first get 10
// each ("se la parità riguarda il primo posto fra tre giocatori si assegnano 10 punti a
// testa"); any other tie of three or more gets no bonus.
func scoreMaialino(c *tableContext, out []Result) {
	for i, p := range c.seats {
		if p.Status == events.SeatEliminated || p.Status == events.SeatDisqualified {
			out[i].Score = 0
			continue
		}
		var bonus int64 // hundredths
		if p.place >= 1 && p.place <= len(maialinoBonus) {
			b := hundredths(maialinoBonus[p.place-1])
			switch {
			case p.shared == 1:
				bonus = b
			case p.shared == 2:
				bonus = b / 2
			case p.shared == 3 && p.place == 1:
				bonus = hundredths(10)
			}
		}
		out[i].Score = int64(p.effTP())*50 + bonus
	}
}
