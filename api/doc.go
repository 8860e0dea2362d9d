// Package api serves referto over HTTP: the v1 JSON API of api/openapi.yaml
// (tournament creation, officials, the command endpoint, public reads of
// summaries and entry lists, the event log for officials), health and
// readiness probes (ready.go), Prometheus metrics (metrics.go), one log
// line per request (requests.go), bearer-token authentication,
// problem+json errors, and the administrator's backup (backup.go: a
// JetStream snapshot of the log, the keys and a manifest of Merkle roots,
// written and read back).
//
// A command goes through one loop (ledger.go): decide against the in-memory
// state, append to JetStream expecting the tournament's last stream
// sequence, and on a conflict catch up and decide again, a bounded number of
// times. A 201 is written only after JetStream stored the commit and the
// projections reflect it, so a GET that follows sees the command.
package api
