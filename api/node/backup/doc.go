// Package backup writes, reads and restores referto backups: one tar file
// holding a JetStream snapshot of the log as it stood at one instant (and
// at a national hub one of its season registry's stream), the keys, and a
// manifest with every tournament's Merkle root as the projections recorded
// it and the registry log's head as the hub folded it (Write, from a
// running node, or WriteDir, from a stopped data directory; Create keeps a
// file only once it reads back whole; Take chooses between asking the
// server that runs on a directory and reading it directly). Read checks a
// file whole; Restore brings it back into a new data directory and checks
// the restored log and registry against the manifest.
//
// The administrator's HTTP route (api) and referto backup and restore
// (cmd/referto) are its front ends.
package backup
