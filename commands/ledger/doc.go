// Package ledger is referto's application service: the one way a command
// enters the log, whoever sends it (the HTTP API, the command line, a
// federation hub, a test). Submit decides a command on the tournament's
// current state, appends its commit to the log expecting the tournament's
// last stream sequence, and on a conflict catches up and decides again
// (Loop, the one such loop, which the season registry appends through too); it
// answers a retried idempotency key with the original outcome, refuses a
// key reused for another request, checks an If-Match condition and refuses
// commands while the data disk is below its reserve. CheckLog and Locate
// check a log against the heads the ledger acknowledged and name the
// damage they find.
//
// The Ledger depends only on the small interfaces it declares (Log, State,
// Index, HeadRecord), and imports neither NATS nor Pebble: package node
// wires the real ones.
package ledger
