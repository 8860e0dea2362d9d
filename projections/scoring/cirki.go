package scoring

// scoreCirki is cirki-2001 §13 "Punti torneo": winner 3, losers 1, "eliminati o
// ritirati" 0, a risiko 3 (cirki games end only by risiko, §12). The vectors make the
// player placed first the winner even when he withdrew (cirki-147: withdrawals are
// placed by table points, docs/rules.md#4-placement-at-a-table), so the 0 for withdrawal applies to losers only.
// A disqualified player scores 0.
func scoreCirki(c *tableContext, out []Result) {
	for i, p := range c.seats {
		switch {
		case out[i].Win:
			out[i].Score = hundredths(3)
		case p.Status.Out():
			out[i].Score = 0
		default:
			out[i].Score = hundredths(1)
		}
	}
}
