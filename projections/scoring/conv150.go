package scoring

// scoreConv150 is rtu "conversione 150": the winner 150 + the gap to the second in
// hundredths (risiko: 151 − tp(second)/100); the others by place 100 − gap (min 80),
// 80 − gap (min 60), 60 − gap (min 40), on a table of 5 100/90, 80/70, 60/50, 50/40; the
// k-th eliminated 10 × k. See scoreConversion.
func scoreConv150(c *tableContext, out []Result) { scoreConversion(c, out, 150, rtuRows) }
