package scoring

import "github.com/referto/referto/events"

// standardPoints are the rtu "punti standard" by place: 12, 7, 5, 3. rtu stops at the
// fourth; a fifth on a table of 5 scores 2, as the reference vectors (standard-11)
// have it: a finished fifth keeps more than the first eliminated's 1 point. The
// rulebook does not say.
var standardPoints = []int{12, 7, 5, 3, 2}

// scoreStandard is rtu "punti standard": by place 12, 7, 5, 3, each plus the table
// points as hundredths ("a cui si aggiungono poi dei decimali pari ai suoi punti
// tavolo"); the k-th eliminated k points; a risiko 13 points flat ("In caso di risiko si
// prendono 13 punti-torneo"); a disqualified player 0.
func scoreStandard(c *tableContext, out []Result) {
	for i, p := range c.seats {
		var v int64
		switch {
		case p.Status == events.SeatDisqualified:
			v = 0
		case p.Status == events.SeatEliminated:
			v = hundredths(p.EliminatedOrder)
		case p.risiko:
			v = hundredths(13)
		default:
			k := min(max(p.place-1, 0), len(standardPoints)-1)
			pts := standardPoints[k]
			if k == 4 && c.edition == Edition1 {
				pts = 1 // edition 1 continued the 5, 3 step
			}
			v = hundredths(pts) + int64(p.tp)
		}
		out[i].Score = v
	}
}
