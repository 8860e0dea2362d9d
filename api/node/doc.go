// Package node is referto's composition root: a running node wired from
// its parts. StartNode opens the data directory (Layout names every path
// of it, and Lock keeps a second process out), starts or joins the
// JetStream log, checks it against the record of acknowledged heads
// (Heads), loads the checkpoint keys, opens the projection store and its
// runner, and builds the ledger over them; the disk reserve that the
// ledger's guard keeps is sized here, from the log's and the store's worst
// case. The administrator's token, serve.json's announcement and the
// tools' read of a stopped directory (OpenLog, RecordedHead) are here too.
//
// Backups (package backup) and the repair of a damaged log (package
// repair) work on what this package lays out.
package node
