package scoring

// scoreWins is the table score of "numero di vittorie" (rtu): "il primo criterio usato
// per redigere la classifica è il numero di partite vinte e solo dopo si conteggiano i
// punti realizzati al tavolo. Generalmente ai vincitori si assegna anche un bonus (di
// solito pari a 50)". A table scores exactly as tp_bonus; the ranking by wins is done by
// [Rank].
func scoreWins(c *tableContext, out []Result) { scoreTPBonus(c, out) }
