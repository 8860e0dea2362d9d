package api

import (
	"context"
	"encoding/json"

	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// What the API reads, as it uses it: the methods it calls of a node's log,
// projection store and runner and of its NATS connection (node.Node:
// *eventlog.Log, *store.Store, *store.Runner, *nats.Conn, adapted in
// start.go), so that nothing in the API depends on how they are built.
// Commands go through the node's ledger.Ledger.

// Log is the log reads come from: event pages, exports, past states,
// backups and the stream's state.
type Log interface {
	Get(ctx context.Context, streamSeq uint64) (events.StoredCommit, error)
	Scan(ctx context.Context, from, until uint64, tournament string, fn func(events.StoredCommit) error) error
	// LastSeq is the log's last stream sequence: events.ErrNoLog when
	// there is no log, events.ErrUnavailable when it cannot be read now.
	LastSeq(ctx context.Context) (uint64, error)
	Replicas() int
	// Stream and Snapshot are what a backup (backup.Write) takes of it.
	backup.Log
}

// Store is the projections: the read models, the indexes and the Merkle
// trees.
type Store interface {
	Tournaments() ([]string, error)
	Summary(t string) ([]byte, bool, error)
	Players(t string) ([]json.RawMessage, error)
	Round(t string, r int) ([]byte, bool, error)
	Tables(t string, r int) ([]json.RawMessage, error)
	Commits(t string, from uint64, limit int) ([]projections.CommitRef, error)
	LastCommit(t string) (projections.CommitRef, bool, error)
	NodeGetter(t string) checkpoint.NodeGetter
	Nodes(t string, ids []checkpoint.NodeID) ([][]byte, error)
	Token(hash string) (projections.Principal, bool, error)
	// CompactingBytes is what the store's compactions in progress read.
	CompactingBytes() uint64
}

// Runner keeps the Store current from the Log and holds every
// tournament's state in memory.
type Runner interface {
	Ready() bool
	Lag() uint64
	Applied() uint64
	Err() error
	WaitFor(ctx context.Context, seq uint64) error
	Read(t string, fn func(*projections.Tournament)) bool
	Stale(t string) bool
	Ranking(t string, classification bool) ([]byte, bool, error)
}

// Conn is the NATS connection the log uses, as /readyz reports it.
type Conn interface {
	// Connected reports whether the connection is up, and names its
	// status: CONNECTED, RECONNECTING, CLOSED, …
	Connected() (ok bool, status string)
}
