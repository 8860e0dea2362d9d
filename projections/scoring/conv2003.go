package scoring

import "github.com/referto/referto/events"

// rows2003 is the campionato-2003 table ("Punteggio in classifica generale"): 4-table
// 100/80, 80/60, 60/40; 5-table 100/90, 80/70, 60/50, 50/40; 3-table 100/70, 80/50.
func rows2003(n int) []band {
	switch {
	case n <= 3:
		return []band{{100, 70}, {80, 50}}
	case n == 4:
		return []band{{100, 80}, {80, 60}, {60, 40}}
	}
	return []band{{100, 90}, {80, 70}, {60, 50}, {50, 40}}
}

// scoreConv2003 is the campionato-2003 conversion: the winner 200 + the gap to the
// second in hundredths ("200 + differenza punti dal 2° in centesimi"), a risiko counting
// W = 100; the others by the table of rows2003, never below the minimum except the
// eliminated; the k-th eliminated 10 × k. A player who withdrew leaves the game ("dal
// momento del ritiro tutti i suoi territori diverranno neutrali"): placement puts him
// after everyone still in it, the winner and every gap are computed among those, and he
// scores 10 for the game ("totalizzerà classifica generale per quella partita solo 10
// punti"); the −150 on his final total is [CampionatoWithdrawalPenalty], recorded by
// the caller.
func scoreConv2003(c *tableContext, out []Result) {
	scoreConversion(c, out, 200, rows2003)
	for i, p := range c.seats {
		if p.Status == events.SeatWithdrawn { // placed after the others (edition 1: by his table points)
			out[i].Score = hundredths(10)
			out[i].Win = false
		}
	}
}
