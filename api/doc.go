// Package api serves referto over HTTP: the v1 JSON API of DESIGN.md
// (tournament creation, officials, the command endpoint, public reads of
// summaries and entry lists, the event log for officials), health and
// readiness probes, bearer-token authentication, and problem+json errors.
//
// A command goes through one loop (ledger.go): decide against the in-memory
// state, append to JetStream expecting the tournament's last stream
// sequence, and on a conflict catch up and decide again, a bounded number of
// times. A 201 is written only after JetStream stored the commit and the
// projections reflect it, so a GET that follows sees the command.
package api
