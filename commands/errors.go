package commands

import (
	"errors"
	"fmt"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
)

// Sentinel errors, classified with errors.Is. A command that clashes with
// what is already recorded (a duplicate id, a second result for a table) is
// refused with events.ErrConflict.
var (
	// ErrNotFound: the tournament, player or table named does not exist.
	ErrNotFound = fault.New(fault.NotFound, "commands: not found")
	// ErrForbidden: the actor's role may not issue this command.
	ErrForbidden = fault.New(fault.Forbidden, "commands: forbidden")
)

// FieldError names one bad field of a command payload (HTTP 400).
type FieldError struct {
	// Field is the JSON path of the field, e.g. "players[2].turn"; empty
	// when the payload as a whole is malformed.
	Field string
	Msg   string
	// Rule cites the rule the field breaks, when one does.
	Rule string
	// bound marks a board bound (docs/rules.md#31-pinned-board-bounds): a
	// proposed report that breaks only these is kept, flagged, rather than
	// refused (ProposeResult).
	bound bool
}

// Code is fault.Invalid.
func (e *FieldError) Code() fault.Code { return fault.Invalid }

func (e *FieldError) Error() string {
	if e.Field == "" {
		return "commands: " + e.Msg
	}
	return "commands: " + e.Field + ": " + e.Msg
}

// RuleError is a refusal by a tournament rule (HTTP 422). Rule cites it as
// "<ruleset> art. N" or "<ruleset> §name" so the arbiter sees why.
type RuleError struct {
	Rule string
	Msg  string
}

// Code is fault.RuleViolation.
func (e *RuleError) Code() fault.Code { return fault.RuleViolation }

func (e *RuleError) Error() string { return "commands: " + e.Msg + " (" + e.Rule + ")" }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

func ruleErr(rule, format string, args ...any) error {
	return &RuleError{Rule: rule, Msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNotFound}, args...)...)
}

func conflict(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{events.ErrConflict}, args...)...)
}

// joinErrs joins field errors; nil when there are none.
func joinErrs(errs []error) error { return errors.Join(errs...) }

// mapLeaves rebuilds an error tree (errors.Join) with f applied to every
// leaf: how foreign validation errors become this package's field errors.
func mapLeaves(err error, f func(error) error) error {
	var out []error
	for _, e := range leaves(err) {
		out = append(out, f(e))
	}
	return errors.Join(out...)
}

// leaves flattens an error tree built with errors.Join into its leaves.
func leaves(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		out = append(out, e)
	}
	walk(err)
	return out
}
