// Package store keeps referto's projections in a Pebble database and runs
// the loop that keeps them current: it follows the JetStream log in stream
// order, folds each commit into the in-memory tournament states, and writes
// the touched read models, the command and token indexes, and the last
// applied stream sequence in one atomic batch. Projections are derived data:
// a rebuild from stream sequence 1 into an empty directory yields the same
// keys and values byte for byte.
package store
