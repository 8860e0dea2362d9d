package projections

import (
	"errors"

	"github.com/referto/referto/events/fault"
)

// What a projection store (projections/store) indexes beside the views,
// and how it says it is not ready: the words the ledger and the API read
// it in, whatever keeps it.

// CommitRef locates one stored commit: where it is in the stream and which
// per-tournament seqs it holds.
type CommitRef struct {
	Tournament string `json:"tournament"`
	StreamSeq  uint64 `json:"stream_seq"`
	First      uint64 `json:"first"`
	Last       uint64 `json:"last"`
	CommandID  string `json:"command_id"`
}

// Principal is an appointed official as the token index knows them.
type Principal struct {
	Tournament string `json:"tournament"`
	Official   string `json:"official"`
	Role       string `json:"role"`
	Name       string `json:"name"`
}

// ErrNotReady reports that the state the projections keep has not yet
// caught up with the log it found at start, or has stopped.
var ErrNotReady = fault.Mark(errors.New("projections: not ready"), fault.Unavailable)
