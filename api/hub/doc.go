// Package hub is the national hub of a federation of venues: it learns
// which tournaments each venue's log holds, has JetStream source them
// into its own stream (one tournament, one venue: ids are unique per
// hub), checks every venue log with replay's verifier against the
// checkpoints the venue submits, and, as a witness, cosigns a checkpoint
// only when it is consistent with the last one it cosigned, which it asks
// the venue for before it cosigns again. It admits a venue's leaf link by
// the password its administrator issued, and records the administrator's
// decisions (a new key, a flag or quarantine lifted) with their evidence.
// Client is the venue's side: it submits each new checkpoint with its
// consistency proof and keeps the cosignatures it receives. Start wires a
// hub on a data directory (its node, witness key and Hub).
package hub
