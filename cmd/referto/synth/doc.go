// Package synth writes synthetic logs for measuring referto at scale: a
// tournament of a chosen size straight into a data directory (Generate),
// and a season of signed exports (GenerateSeason), every command decided
// as the ledger decides it. referto generate writes them; the go test
// benchmarks of cmd/referto/bench read them.
package synth
