package events

import (
	"errors"

	"github.com/referto/referto/events/fault"
)

// Sentinel errors. Callers classify with errors.Is; messages are wrapped with
// the ids involved.
var (
	// ErrConflict reports a request that clashes with what is recorded: a
	// decision's (a duplicate id, a second result for a table), or the
	// log's, which moved since the caller read it (the expected last
	// sequence of a tournament did not match at append).
	ErrConflict = fault.New(fault.Conflict, "events: conflict")
	// ErrUnknownEvent reports a (type, version) pair the codec does not know.
	// A projection that meets one stops; it never skips an event.
	ErrUnknownEvent = errors.New("events: unknown event type or version")
	// ErrCorrupt reports stored bytes that do not decode into a valid commit.
	ErrCorrupt = errors.New("events: corrupt commit")
	// ErrInvalidID reports a tournament, player or official id outside the
	// allowed alphabet.
	ErrInvalidID = fault.New(fault.Invalid, "events: invalid id")
	// ErrUnavailable reports that the log cannot take or serve requests now
	// (no quorum, disk full, connection lost). It is safe to retry later.
	ErrUnavailable = fault.New(fault.Unavailable, "events: log unavailable")
	// ErrNoLog reports a log that is not there to read: its store (the
	// JetStream stream) does not exist.
	ErrNoLog = errors.New("events: no log")
)
