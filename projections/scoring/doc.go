// Package scoring places the players of one RisiKo! table, converts table points into
// tournament points under every scoring formula of RULES.md §5, validates a table report
// (RULES.md §3–§4) and ranks players in the standings (RULES.md §6).
//
// It is pure: no I/O, no clock, no randomness. Die rolls that break ties are inputs
// ([Table.Rolls], [Roll]). Tournament points are exact decimals held as integer
// hundredths (int64); nothing here uses floating point.
//
// Where a rulebook is ambiguous the package follows the reading pinned in RULES.md, and
// where the shared reference vectors (testdata/scoring-vectors.json) force a narrower
// reading, the doc comment of the function concerned says so.
package scoring
