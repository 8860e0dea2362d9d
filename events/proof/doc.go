// Package proof is the proof file a player can carry: one row of a
// published classification, the publication event's stored line and its
// RFC 6962 inclusion proof under a signed checkpoint (and a witness's
// cosignature), checked offline without the log.
package proof
