package scoring

// scoreTriestino is the table score of rtu metodo "triestino": the player's share of
// the table's table points, the table total made 400 (500 on a table of 5: "fatto pari a
// 400 il totale dei punti tavolo realizzati dai 4 giocatori"), i.e. 100 × seats ×
// tp / Σtp, rounded half up to the hundredth. A risiko counts 100 table points,
// eliminated and disqualified players 0, negative table points (after a penalty) 0; a
// table whose total is 0 scores 0 for everyone. Wins rank first in the standings
// ([Rank]).
func scoreTriestino(c *tableContext, out []Result) {
	share := func(p *placed) int64 { return int64(max(0, p.effTP())) }
	var sum int64
	for _, p := range c.seats {
		sum += share(p)
	}
	total := hundredths(100 * c.n) // hundredths
	for i, p := range c.seats {
		if sum == 0 {
			out[i].Score = 0
			continue
		}
		out[i].Score = (2*share(p)*total + sum) / (2 * sum)
	}
}
