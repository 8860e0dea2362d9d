// Package replay is the appeals committee's and the auditor's toolkit over a
// tournament's log, whoever serves it: reading an export, verifying it
// (every leaf, the Merkle root against signed checkpoints, every recorded
// draw re-run, every published classification re-derived), time travel to
// any event, the difference between two points, and what-if corrections
// applied in memory. Nothing here writes to the log.
//
// The files an auditor is given are read here too, as referto verify and
// proof name them: an export with its checkpoint and keys (VerifyFile), a
// season directory with its registry (VerifySeasonFiles), a proof file
// (VerifyProofFile, ProveFile); each answers with a report that prints
// itself.
package replay
