package node

import (
	"path/filepath"

	"github.com/referto/referto/events/checkpoint"
)

// Layout names every path of a data directory. It is the one place that
// spells them:
//
//	DIR/
//	  nats/          the embedded JetStream file store: the log (absent with an external NATS)
//	  projections/   Pebble: read models, indexes, state snapshots, Merkle nodes
//	  keys/          checkpoint.key (0600), checkpoint.pub, admin-token.sha256 (0600);
//	                 at a hub also witness.key (0600), witness.pub
//	  heads.log      the acknowledged head of every tournament: how far its log went
//	  lock           held (flock) by the process using the directory, holding its pid
//	  serve.json     while referto serve runs: where it answers
//	  hub.json       at a hub: venues, keys, cosigned checkpoints, quarantines
//	  cosigned.json  at a venue of a hub: the last checkpoint of each tournament the hub cosigned
//	  workbooks/     at a hub: club workbooks of tournaments not run on referto
//
// Only nats/, keys/, heads.log, hub.json and workbooks/ hold anything that
// cannot be rebuilt, and a backup carries each but heads.log (a restored
// log is taken as it stands, by its first start); a venue gets
// cosigned.json back from its hub, which answers an offer of a checkpoint
// it cosigned with its cosignature.
type Layout struct {
	// Dir is the data directory.
	Dir string
}

// AdminTokenFile, in the keys directory (Layout.Keys), holds the hex
// SHA-256 of the administrator's token; the checkpoint keys beside it are
// checkpoint.SignerFile and checkpoint.VerifierFile.
const AdminTokenFile = "admin-token.sha256"

// NATS is the embedded JetStream server's store directory.
func (l Layout) NATS() string { return filepath.Join(l.Dir, "nats") }

// Projections is the Pebble store of the projections.
func (l Layout) Projections() string { return filepath.Join(l.Dir, "projections") }

// Keys is the directory of the checkpoint keys and the administrator's
// token hash.
func (l Layout) Keys() string { return filepath.Join(l.Dir, "keys") }

// Workbooks is a national hub's folder of club workbooks of tournaments not
// run on referto (docs/workbook.md#at-the-national-hub): the administrator
// uploads them there, or drops .xlsx files in it, and the season's ranking
// reads them.
func (l Layout) Workbooks() string { return filepath.Join(l.Dir, "workbooks") }

// CheckpointKey is the checkpoint signing key's file.
func (l Layout) CheckpointKey() string { return filepath.Join(l.Keys(), checkpoint.SignerFile) }

// CheckpointPub is the checkpoint verifier key's file.
func (l Layout) CheckpointPub() string { return filepath.Join(l.Keys(), checkpoint.VerifierFile) }

// AdminToken is the file holding the administrator's token hash.
func (l Layout) AdminToken() string { return filepath.Join(l.Keys(), AdminTokenFile) }

// ServeInfo is where a running referto serve says where it answers; it is
// removed at a clean stop.
func (l Layout) ServeInfo() string { return filepath.Join(l.Dir, "serve.json") }

// Cosigned is, at a venue of a hub, the file of the last checkpoint of
// each tournament the hub cosigned (hub.Cosignatures): what a hub restored
// from an older backup learns its cosignatures back from.
func (l Layout) Cosigned() string { return filepath.Join(l.Dir, "cosigned.json") }

// HubState is, at a national hub (referto hub), the file of its venues,
// their keys, the checkpoints it cosigned and its quarantines.
func (l Layout) HubState() string { return filepath.Join(l.Dir, "hub.json") }

// Heads is the record of every tournament's acknowledged head (Heads): what
// the venue answered 201 for, kept apart from the log it checks.
func (l Layout) Heads() string { return filepath.Join(l.Dir, "heads.log") }

// LockFile is the file a process using the directory holds locked (Lock).
func (l Layout) LockFile() string { return filepath.Join(l.Dir, "lock") }
