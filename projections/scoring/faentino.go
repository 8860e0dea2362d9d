package scoring

import "github.com/referto/referto/events"

// scoreFaentino is rtu metodo "faentino": the winner 100 (110 with a risiko), a loser
// within 15 table points of the winner 50, further behind 10, an eliminated (or
// disqualified) player 0. After a risiko the gap is measured from W = 100.
func scoreFaentino(c *tableContext, out []Result) {
	for i, p := range c.seats {
		var v int64
		switch {
		case p.Status == events.SeatEliminated || p.Status == events.SeatDisqualified:
			v = 0
		case p.risiko:
			v = hundredths(110)
		case out[i].Win:
			v = hundredths(100)
		case c.gap(p) <= 15:
			v = hundredths(50)
		default:
			v = hundredths(10)
		}
		out[i].Score = v
	}
}
