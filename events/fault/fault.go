// Package fault is the one vocabulary of failures: a Code that every
// package marks its errors with where it defines them, and CodeOf, which
// reads the code back. An error no package marks is Internal: a fault of
// the program or of stored data, which no request can mend; such a
// sentinel stays unmarked, so that the code of a refusal it wraps is
// found. Only the HTTP layer turns a code into a status.
package fault

import (
	"context"
	"errors"
)

// Code says what kind of failure an error is, whatever package made it.
type Code string

// The codes of the vocabulary.
const (
	// Invalid: the request is malformed or a field is out of bounds.
	Invalid Code = "invalid"
	// RuleViolation: a tournament rule refuses the request.
	RuleViolation Code = "rule_violation"
	// NotFound: what the request names does not exist.
	NotFound Code = "not_found"
	// Conflict: the request clashes with what is already recorded.
	Conflict Code = "conflict"
	// Forbidden: the caller may not do this.
	Forbidden Code = "forbidden"
	// Unauthorized: the caller is not known.
	Unauthorized Code = "unauthorized"
	// PreconditionFailed: the state is not the one the request expected.
	PreconditionFailed Code = "precondition_failed"
	// Unavailable: the service cannot answer now; a retry may succeed.
	Unavailable Code = "unavailable"
	// Internal: a fault of the program; the default of an unmarked error.
	Internal Code = "internal"
)

// Codes are the codes of the vocabulary.
func Codes() []Code {
	return []Code{Invalid, RuleViolation, NotFound, Conflict, Forbidden, Unauthorized, PreconditionFailed, Unavailable, Internal}
}

// Coder is an error that says its code. Error types implement it; New and
// Mark make sentinels that do.
type Coder interface {
	error
	Code() Code
}

// Sentinel is an error of a code whose text only names the failure, such
// as "events: conflict": it is wrapped with the ids involved, and a
// reader's detail leaves its text out (the code says it). Compare it with
// errors.Is.
type Sentinel struct {
	code Code
	msg  string
}

// New returns a sentinel (a *Sentinel) of code whose message is msg.
func New(code Code, msg string) error { return &Sentinel{code: code, msg: msg} }

func (s *Sentinel) Error() string { return s.msg }

// Code is the sentinel's code.
func (s *Sentinel) Code() Code { return s.code }

// marked is an error with a code; its text and its tree are err's.
type marked struct {
	err  error
	code Code
}

// Mark returns err marked with code: its message, errors.Is and errors.As
// are err's, and its text stays in a reader's detail.
func Mark(err error, code Code) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, code: code}
}

func (m *marked) Error() string { return m.err.Error() }
func (m *marked) Unwrap() error { return m.err }
func (m *marked) Code() Code    { return m.code }

// CodeOf is the code of the first marked error in err's tree (errors.As
// order). A deadline that passed is Unavailable; an unmarked error is
// Internal, and nil has no code ("").
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if c, ok := errors.AsType[Coder](err); ok {
		return c.Code()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Unavailable
	}
	return Internal
}
