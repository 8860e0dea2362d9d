// Package commands is the decision side of the referto ledger: one type per
// command an official may submit, strict parsing of command payloads, the
// roles allowed to issue each one, and Decide, which turns a command and the
// current tournament state into the events to append, or refuses it with the
// rule it breaks.
//
// Decide is pure: no I/O, no clock, no randomness. The caller passes the time
// and any seed in Input, so that a decision (a table draw, a repechage)
// replays identically years later.
package commands
