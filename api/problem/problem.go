// Package problem is how a failed request is answered: the one
// application/problem+json document (RFC 9457) that the API writes, the web
// UI reads and api/client decodes, and the one map from an error's code
// (events/fault) to its HTTP status and title.
package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

// The codes only HTTP has: refusals of the request itself, before any
// package of the domain reads it.
const (
	TooLarge         fault.Code = "too_large"
	HeadersTooLarge  fault.Code = "headers_too_large"
	TooManyRequests  fault.Code = "too_many_requests"
	MethodNotAllowed fault.Code = "method_not_allowed"
)

// answer is the HTTP status and title of a code.
type answer struct {
	status int
	title  string
}

// answers is the one table from codes to HTTP statuses: the vocabulary's
// codes, the ledger's refinements of two of them, and HTTP's own. A code
// not in it is answered as fault.Internal.
var answers = map[fault.Code]answer{
	fault.Invalid:            {http.StatusBadRequest, "Invalid request"},
	fault.Unauthorized:       {http.StatusUnauthorized, "Unauthorized"},
	fault.Forbidden:          {http.StatusForbidden, "Forbidden"},
	fault.NotFound:           {http.StatusNotFound, "Not found"},
	MethodNotAllowed:         {http.StatusMethodNotAllowed, "Method not allowed"},
	fault.Conflict:           {http.StatusConflict, "Conflict"},
	fault.PreconditionFailed: {http.StatusPreconditionFailed, "Precondition failed"},
	TooLarge:                 {http.StatusRequestEntityTooLarge, "Request too large"},
	fault.RuleViolation:      {http.StatusUnprocessableEntity, "Refused by a tournament rule"},
	ledger.KeyReused:         {http.StatusUnprocessableEntity, "Idempotency-Key already used for another request"},
	TooManyRequests:          {http.StatusTooManyRequests, "Too many requests"},
	HeadersTooLarge:          {http.StatusRequestHeaderFieldsTooLarge, "Request header fields too large"},
	fault.Internal:           {http.StatusInternalServerError, "Internal error"},
	fault.Unavailable:        {http.StatusServiceUnavailable, "Service unavailable"},
	ledger.LogDamaged:        {http.StatusServiceUnavailable, "Log damaged"},
}

// Problem is an RFC 9457 problem detail, as the API writes it.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	// Detail is what is wrong, for people; with a field, "<field>: <message>".
	Detail string `json:"detail"`
	// Code is the error's code (invalid, rule_violation, …).
	Code fault.Code `json:"code"`
	// Rule is the tournament rule that refused the request, if one did.
	Rule string `json:"rule,omitempty"`
	// Field is the first field at fault; Errors lists every problem.
	Field  string  `json:"field,omitempty"`
	Errors []Field `json:"errors,omitempty"`
	// Seq is, for idempotency_key_reused, the seq of the command the key
	// already stands for.
	Seq uint64 `json:"seq,omitempty"`
}

// Field is one problem of a refused request.
type Field struct {
	Field  string `json:"field"`
	Detail string `json:"detail"`
	Rule   string `json:"rule,omitempty"`
}

// Error says the problem in one line, as a client reports it.
func (p *Problem) Error() string {
	if p.Rule != "" {
		return fmt.Sprintf("%d %s (%s): %s", p.Status, p.Code, p.Rule, p.Detail)
	}
	if p.Code == "" {
		return fmt.Sprintf("%d %s: %s", p.Status, http.StatusText(p.Status), p.Detail)
	}
	return fmt.Sprintf("%d %s: %s", p.Status, p.Code, p.Detail)
}

// Codes are the codes the table answers, sorted.
func Codes() []fault.Code { return slices.Sorted(maps.Keys(answers)) }

// Status is code's HTTP status; 500 for a code the table does not have.
func Status(code fault.Code) int { return New(code, "").Status }

// New is the problem of code, said by detail: what a page or a handler
// says itself, with no error behind it. A code the table does not have
// is fault.Internal.
func New(code fault.Code, detail string) *Problem {
	a, ok := answers[code]
	if !ok {
		code, a = fault.Internal, answers[fault.Internal]
	}
	return &Problem{Type: "urn:referto:problem:" + string(code), Title: a.title, Status: a.status, Code: code, Detail: detail}
}

// Of is the problem that answers err: its code's status and title, the
// rule a *commands.RuleError cites, every *commands.FieldError's field,
// and the seq an idempotency key stands for. The detail of an internal
// error is only where to look: its text is for the server's log.
func Of(err error) *Problem {
	p := New(fault.CodeOf(err), detail(err))
	var re *commands.RuleError
	if errors.As(err, &re) {
		p.Rule, p.Detail = re.Rule, re.Msg
	}
	var ku *ledger.KeyReusedError
	if errors.As(err, &ku) {
		p.Field, p.Seq = "Idempotency-Key", ku.Seq
	}
	for _, fe := range fieldErrors(err) {
		p.Errors = append(p.Errors, Field{Field: fe.Field, Detail: fe.Msg, Rule: fe.Rule})
	}
	if len(p.Errors) > 0 {
		p.Field, p.Rule = p.Errors[0].Field, p.Errors[0].Rule
		p.Detail = p.Errors[0].Detail
		if p.Field != "" {
			p.Detail = p.Field + ": " + p.Detail
		}
	}
	if p.Code == fault.Internal {
		p.Detail = "internal error; see the server log"
	}
	return p
}

// Write writes p as application/problem+json. An unavailable service is
// retried after a second; a damaged log stays so until it is repaired, and
// no retry helps.
func Write(w http.ResponseWriter, p *Problem) {
	if p.Code == fault.Unavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// detail renders an error for people: the text of a sentinel that only
// names its failure (a *fault.Sentinel, "commands: not found") is left out,
// the problem's code already says it.
func detail(err error) string {
	msg := err.Error()
	if s, ok := errors.AsType[*fault.Sentinel](err); ok {
		if rest, ok := strings.CutPrefix(msg, s.Error()+": "); ok {
			return rest
		}
	}
	return msg
}

// fieldErrors collects every *commands.FieldError in an error tree; a
// past state asked after an event the tournament does not have
// (projections.NoEventError) is one of the query's field at.
func fieldErrors(err error) []*commands.FieldError {
	var out []*commands.FieldError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if fe, ok := e.(*commands.FieldError); ok {
			out = append(out, fe)
			return
		}
		if ne, ok := e.(*projections.NoEventError); ok {
			out = append(out, &commands.FieldError{Field: "at", Msg: ne.Error()})
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}
