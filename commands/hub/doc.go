// Package hub is the national hub of a federation of venues: it learns
// which tournaments each venue's log holds, has JetStream source them
// into its own stream (one tournament, one venue: ids are unique per
// hub), checks every venue log with replay's verifier against the
// checkpoints the venue submits, and, as a witness, cosigns a checkpoint
// only when it is consistent with the last one it cosigned. Client is the
// venue's side: it submits each new checkpoint with its consistency proof.
// Start wires a hub on a data directory (its node, witness key and Hub).
package hub
