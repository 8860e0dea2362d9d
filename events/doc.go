// Package events is the vocabulary of the referto ledger: the envelope every
// stored event carries, one Go type per event, the closed (type, version) →
// decoder table, tournament rulesets as data, the commit format in which
// one accepted command's events are stored as a single JetStream message,
// and that commit as the log gives it back (StoredCommit, Appended).
//
// Nothing here does I/O; the log itself lives in events/eventlog.
package events
