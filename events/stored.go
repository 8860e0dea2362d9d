package events

import "time"

// StoredCommit is one commit as the log stores it: the body EncodeCommit
// made and what the log keeps beside it. The log's adapter
// (events/eventlog) fills it; whoever reads the log depends on this, not
// on the adapter.
type StoredCommit struct {
	// StreamSeq is the commit's position in the whole log (every
	// tournament's commits, one sequence); Tournament is the log it belongs
	// to.
	StreamSeq  uint64
	Tournament string
	// MsgID is the idempotency key it was appended under.
	MsgID string
	// Request is the fingerprint of the request the commit was appended
	// for (events/eventlog.RequestHeader), "" on commits that carry none.
	Request string
	// Seal is the writer's seal of the body (events/eventlog.SealHeader),
	// "" when none.
	Seal string
	Time time.Time
	Data []byte
}

// Appended is what the log acknowledged for an append.
type Appended struct {
	// StreamSeq is the stream sequence of the stored commit (of the first
	// one, when Duplicate).
	StreamSeq uint64
	// Duplicate is true when the idempotency key was seen within the log's
	// duplicate window and nothing new was stored.
	Duplicate bool
}
