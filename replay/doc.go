// Package replay is the appeals committee's and the auditor's toolkit over a
// tournament's log, whoever serves it: reading an export, verifying it
// (every leaf, the Merkle root against signed checkpoints, every recorded
// draw re-run, every published classification re-derived), time travel to
// any event, the difference between two points, and what-if corrections
// applied in memory. Nothing here writes to the log.
package replay
