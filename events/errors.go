package events

import "errors"

// Sentinel errors. Callers classify with errors.Is; messages are wrapped with
// the ids involved.
var (
	// ErrConflict reports that the log moved since the caller read it: the
	// expected last sequence of a tournament did not match at append.
	ErrConflict = errors.New("events: conflict")
	// ErrUnknownEvent reports a (type, version) pair the codec does not know.
	// A projection that meets one stops; it never skips an event.
	ErrUnknownEvent = errors.New("events: unknown event type or version")
	// ErrCorrupt reports stored bytes that do not decode into a valid commit.
	ErrCorrupt = errors.New("events: corrupt commit")
	// ErrInvalidID reports a tournament, player or official id outside the
	// allowed alphabet.
	ErrInvalidID = errors.New("events: invalid id")
	// ErrUnavailable reports that the log cannot take or serve requests now
	// (no quorum, disk full, connection lost). It is safe to retry later.
	ErrUnavailable = errors.New("events: log unavailable")
	// ErrNoLog reports a log that is not there to read: its store (the
	// JetStream stream) does not exist.
	ErrNoLog = errors.New("events: no log")
)
