// Package checkpoint is the tamper evidence of the referto log: every event
// of a tournament is a leaf of an RFC 6962 Merkle tree whose leaf data is the
// event's exact stored line; the tree is kept incrementally (a compact range,
// every completed node reported for storage); inclusion and consistency
// proofs are built from stored node hashes; a checkpoint (origin, size, root)
// is signed as a note (golang.org/x/mod/sumdb/note) with an Ed25519 key.
package checkpoint
