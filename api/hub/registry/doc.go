// Package registry is a national hub's season registry
// (docs/rules.md#15-the-national-ranking): the national ids linked to
// tournaments' players, the ids merged and the disqualification periods,
// kept as a log of the hub's own (eventlog.RegistryStream, sealed and
// linked envelopes like a tournament's) to which Submit appends the
// administrator's commands, decided against that log folded
// (ranking.RegistryLog). The ranking reads the fold; the log's export, with
// the checkpoint the hub signs, is what verify --season --registry folds
// again.
package registry
