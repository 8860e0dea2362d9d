package scoring

// scoreMedals is rtu "medagliere olimpico": "la classifica tiene conto del numero di
// vittorie, poi del numero di secondi posti, poi del numero di terzi posti ed infine dei
// quarti posti". A table gives no points (every score is 0); the place is what counts,
// and [Rank] ranks by it.
func scoreMedals(c *tableContext, out []Result) {
	for i := range out {
		out[i].Score = 0
	}
}
