package scoring

import "github.com/referto/referto/events"

// scoreSpartaco is rtu formula "Spartaco": the winner 100 + table points (186 with a
// risiko, less the winner's table-points penalty), the losers 100 − the gap from the winner, eliminated players as losers with
// 0 table points. Pinned: "in caso di risiko subito si prende un malus di 14
// punti-torneo" is the losers' whole score when the winner made risiko: −14, eliminated
// players included. A disqualified player scores 0.
func scoreSpartaco(c *tableContext, out []Result) {
	for i, p := range c.seats {
		var v int64
		switch {
		case p.Status == events.SeatDisqualified:
			v = 0
		case p.risiko:
			v = hundredths(86 + p.effTP()) // 186, less his table-points penalty
		case c.risiko:
			v = hundredths(-14)
		case out[i].Win:
			v = hundredths(100 + p.tp)
		default:
			v = hundredths(100 - (c.w() - p.effTP()))
		}
		out[i].Score = v
	}
}
