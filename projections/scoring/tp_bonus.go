package scoring

import "github.com/referto/referto/events"

// scoreTPBonus is "punti tavolo più bonus" (rur-2015 art. 1; rtu "punti tavolo con
// bonus per la vittoria"): the winner scores table points + bonus (default 50), the
// others their table points, eliminated and disqualified players 0; a risiko scores
// 100 + bonus (150), less the winner's table-points penalty. Under split_bonus (rtu: "Nel caso ci siano due giocatori primi con
// gli stessi punti al tavolo il bonus viene diviso a metà … Se la parità riguarda più di
// due giocatori il bonus non viene assegnato") two players tied first score their table
// points + half the bonus each and three or more tied first score their table points.
// A withdrawn player scores by the place obtained (rur-2015 art. 31).
func scoreTPBonus(c *tableContext, out []Result) {
	for i, p := range c.seats {
		var v int64
		switch {
		case p.Status == events.SeatEliminated || p.Status == events.SeatDisqualified:
			v = 0
		case p.risiko:
			v = hundredths(p.effTP() + c.bonus)
		case out[i].Win:
			v = hundredths(p.tp + c.bonus)
		case p.place == 1 && p.shared == 2:
			v = hundredths(p.tp) + int64(c.bonus)*100/2
		default:
			v = hundredths(p.tp)
		}
		out[i].Score = v
	}
}
