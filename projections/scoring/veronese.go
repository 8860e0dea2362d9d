package scoring

import "github.com/referto/referto/events"

// veroneseBonus is the bonus of rtu formula "veronese/trentina" by place: 100, 60, 40,
// 20; a fifth place gets none.
var veroneseBonus = []int{100, 60, 40, 20}

// scoreVeronese is rtu formula "veronese/trentina": table points plus 100, 60, 40, 20
// by place. A risiko counts 100 table points (200). An eliminated player is placed after
// the others with 0 table points and gets his place's bonus. A disqualified player
// scores 0.
func scoreVeronese(c *tableContext, out []Result) {
	for i, p := range c.seats {
		if p.Status == events.SeatDisqualified {
			out[i].Score = 0
			continue
		}
		var bonus int
		if p.place >= 1 && p.place <= len(veroneseBonus) {
			bonus = veroneseBonus[p.place-1]
		}
		out[i].Score = hundredths(p.effTP() + bonus)
	}
}
