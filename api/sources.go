package api

import (
	"context"

	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/projections"
)

// What the API reads, as it uses it: the methods it calls of a node's log,
// projection store and runner and of its NATS connection (node.Node:
// *eventlog.Log, *store.Store, *store.Runner, *nats.Conn, adapted in
// start.go), so that nothing in the API depends on how they are built.
// The reads of the tournaments go through a projections.Reader over the
// same three, whose interfaces these extend; commands go through the
// node's ledger.Ledger.

// Log is the log reads come from: what the read side reads of it
// (projections.Log: event pages, past states), exports, backups and the
// stream's state.
type Log interface {
	projections.Log
	// LastSeq is the log's last stream sequence: events.ErrNoLog when
	// there is no log, events.ErrUnavailable when it cannot be read now.
	LastSeq(ctx context.Context) (uint64, error)
	Replicas() int
	// Stream and Snapshot are what a backup (backup.Write) takes of it.
	backup.Log
}

// Store is the projections: the read models the read side serves
// (projections.Store), the indexes and the Merkle trees.
type Store interface {
	projections.Store
	Token(hash string) (projections.Principal, bool, error)
	// CompactingBytes is what the store's compactions in progress read.
	CompactingBytes() uint64
}

// Runner keeps the Store current from the Log and holds every
// tournament's state in memory (projections.Memory, as the read side
// reads it).
type Runner interface {
	projections.Memory
	Ready() bool
	Lag() uint64
	Applied() uint64
	Err() error
	WaitFor(ctx context.Context, seq uint64) error
}

// Conn is the NATS connection the log uses, as /readyz reports it.
type Conn interface {
	// Connected reports whether the connection is up, and names its
	// status: CONNECTED, RECONNECTING, CLOSED, …
	Connected() (ok bool, status string)
}
