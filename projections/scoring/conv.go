package scoring

import "github.com/referto/referto/events"

// band is one place's row of a conversion table: the value before subtracting the gap
// from the winner, and the guaranteed minimum.
type band struct{ top, min int }

// convRows returns the rows for places 2, 3, … of a conversion table, by table size.
type convRows func(n int) []band

// rtuRows are the rows of rtu "conversione 150" and "conversione 200": 100/80, 80/60,
// 60/40 on a table of 4 (also used for 3), and 100/90, 80/70, 60/50, 50/40 on a table
// of 5.
func rtuRows(n int) []band {
	if n >= 5 {
		return []band{{100, 90}, {80, 70}, {60, 50}, {50, 40}}
	}
	return []band{{100, 80}, {80, 60}, {60, 40}}
}

// scoreConversion applies a conversion table (rtu conversione 150/200, campionato-2003
// "Punteggio in classifica generale"):
//
//   - the winner scores base + the gap to the second as hundredths ("più dei decimali
//     pari al distacco dal secondo"); after a risiko, base + 1 − tp(second)/100
//     ("151 punti-torneo meno i punti tavolo del secondo espressi in centesimi"), which
//     is base + (100 − tp(second))/100, W = 100;
//   - the others score the top of their place's row minus the gap from the winner, in
//     units, never below the row's minimum (pinned: the minimum holds "salvo …
//     annientamento", so it does not apply to eliminated players);
//   - the k-th eliminated (chronologically) scores 10 × k;
//   - a disqualified player scores 0.
//
// Places beyond the rows (only on oversized tables) use the last row.
func scoreConversion(c *tableContext, out []Result, base int, rows convRows) {
	rs := rows(c.n)
	for i, p := range c.seats {
		var v int64
		switch {
		case p.Status == events.SeatDisqualified:
			v = 0
		case p.Status == events.SeatEliminated:
			v = hundredths(10 * p.EliminatedOrder)
		case p.risiko:
			// base + (100 − tp(second))/100, W = 100 less his penalty.
			v = hundredths(base) + int64(max(0, p.effTP()-c.secondTP()))
		case out[i].Win:
			v = hundredths(base) + int64(max(0, p.tp-c.secondTP()))
		default:
			k := min(max(p.place-2, 0), len(rs)-1)
			v = hundredths(max(rs[k].top-c.gap(p), rs[k].min))
		}
		out[i].Score = v
	}
}
