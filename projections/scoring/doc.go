// Package scoring places the players of one RisiKo! table, converts table points into
// tournament points under every scoring formula of docs/rules.md#5-scoring-formulas, validates a table report
// (docs/rules.md#3-table-report-referto to #4-placement-at-a-table) and ranks players in the standings (docs/rules.md#6-standings).
//
// It is pure: no I/O, no clock, no randomness. Die rolls that break ties are inputs
// ([Table.Rolls], [Roll]). Tournament points are exact decimals held as integer
// hundredths (int64); nothing here uses floating point.
//
// Where a rulebook is ambiguous the package follows the reading pinned in docs/rules.md, and
// where the reference vectors (testdata/scoring-vectors.json) force a narrower
// reading, the doc comment of the function concerned says so.
package scoring
