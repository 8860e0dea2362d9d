package scoring

// scoreConv200 is rtu "conversione 200": "identica alla precedente ma il primo del
// tavolo prende 200 punti-torneo invece che 150" (risiko: 201 − tp(second)/100). See
// scoreConversion.
func scoreConv200(c *tableContext, out []Result) { scoreConversion(c, out, 200, rtuRows) }
