// Package groupcommit is an experiment kept as a benchmark baseline, not
// used by the ledger: appends grouped under one fsync through JetStream's
// atomic batch publish, the one way JetStream has to store several
// messages at once. referto bench measures it beside the ledger's own
// ingest (docs/performance.md says what it found: at 8 clients it runs
// below the ledger, and one refused message fails its whole batch).
package groupcommit
