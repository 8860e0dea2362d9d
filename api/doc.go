// Package api serves referto over HTTP: the v1 JSON API of api/openapi.yaml
// (tournament creation, officials, the command endpoint, public reads of
// summaries and entry lists, the event log for officials), the web UI of
// api/web on the same router, health and readiness probes (ready.go),
// Prometheus metrics (metrics.go), one log line per request (requests.go),
// bearer-token authentication, problem+json errors, and the
// administrator's backup (backup.go: the file of api/node/backup,
// streamed as it is written), the season's national ranking (season.go),
// and at a national hub its venues (hub.go) and its season registry
// (registry.go: commands for api/hub/registry.Keeper, its fold and its
// export).
//
// A command route is one service (service.go): it authenticates,
// authorizes, makes a ledger.Submission (the Idempotency-Key, its
// request's fingerprint, If-Match) for the node's commands/ledger.Ledger
// and counts the command. Its JSON handler translates HTTP only: the
// request into the service's call, the outcome into a 201, the errors into
// statuses by one table (api/problem). The web UI's forms call the same
// services (web.Commands). Reads come from
// the node's projections, each after the ledger's AwaitAcked, so a GET that
// follows a 201 sees the command.
//
// The API depends on the small interfaces of sources.go, never on how the
// log, the projections or the NATS connection are stored: start.go is its
// wiring, the one file that meets a node's concrete parts (Start, and the
// Options a node.Node fills).
package api
