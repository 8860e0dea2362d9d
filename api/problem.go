package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// API-level sentinels; domain errors come from commands and events.
var (
	errUnauthorized    = errors.New("api: unauthorized")
	errForbidden       = errors.New("api: forbidden")
	errNotFound        = errors.New("api: not found")
	errTooLarge        = errors.New("api: request body too large")
	errBadRequest      = errors.New("api: bad request")
	errMethod          = errors.New("api: method not allowed")
	errTooManyRequests = errors.New("api: too many requests")
	errHeadersTooLarge = errors.New("api: request header fields too large")
)

// problem is an RFC 9457 problem detail.
type problem struct {
	Type   string         `json:"type"`
	Title  string         `json:"title"`
	Status int            `json:"status"`
	Detail string         `json:"detail"`
	Code   string         `json:"code"`
	Rule   string         `json:"rule,omitempty"`
	Field  string         `json:"field,omitempty"`
	Errors []problemField `json:"errors,omitempty"`
	// Seq is, for idempotency_key_reused, the seq of the command the key
	// already stands for.
	Seq uint64 `json:"seq,omitempty"`
}

type problemField struct {
	Field  string `json:"field"`
	Detail string `json:"detail"`
	Rule   string `json:"rule,omitempty"`
}

// statusOf is the one table from errors to HTTP statuses and problem codes.
func statusOf(err error) (int, string, string) {
	var fe *commands.FieldError
	var re *commands.RuleError
	switch {
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, "too_large", "Request too large"
	case errors.Is(err, errHeadersTooLarge):
		return http.StatusRequestHeaderFieldsTooLarge, "headers_too_large", "Request header fields too large"
	case errors.As(err, &fe), errors.Is(err, errBadRequest), errors.Is(err, events.ErrInvalidID):
		return http.StatusBadRequest, "invalid", "Invalid request"
	case errors.Is(err, errTooManyRequests):
		return http.StatusTooManyRequests, "too_many_requests", "Too many requests"
	case errors.Is(err, errUnauthorized):
		return http.StatusUnauthorized, "unauthorized", "Unauthorized"
	case errors.Is(err, errForbidden), errors.Is(err, commands.ErrForbidden):
		return http.StatusForbidden, "forbidden", "Forbidden"
	case errors.Is(err, errNotFound), errors.Is(err, commands.ErrNotFound):
		return http.StatusNotFound, "not_found", "Not found"
	case errors.Is(err, errReadOnly):
		// One code per status: the detail says it is a hub.
		return http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed"
	case errors.Is(err, hub.ErrHeld), errors.Is(err, hub.ErrQuarantined), errors.Is(err, hub.ErrProof):
		// The detail keeps "hub: held" or "hub: quarantined".
		return http.StatusForbidden, "forbidden", "Forbidden"
	case errors.Is(err, hub.ErrVenue):
		return http.StatusBadRequest, "invalid", "Invalid request"
	case errors.Is(err, hub.ErrNoVenue):
		return http.StatusNotFound, "not_found", "Not found"
	case errors.Is(err, hub.ErrDecision):
		return http.StatusConflict, "conflict", "Conflict"
	case errors.Is(err, errMethod):
		return http.StatusMethodNotAllowed, "method_not_allowed", "Method not allowed"
	case errors.Is(err, ledger.ErrPrecondition):
		return http.StatusPreconditionFailed, "precondition_failed", "Precondition failed"
	case errors.Is(err, commands.ErrConflict), errors.Is(err, events.ErrConflict):
		return http.StatusConflict, "conflict", "Conflict"
	case errors.Is(err, ledger.ErrKeyReused):
		return http.StatusUnprocessableEntity, "idempotency_key_reused", "Idempotency-Key already used for another request"
	case errors.As(err, &re):
		return http.StatusUnprocessableEntity, "rule_violation", "Refused by a tournament rule"
	case errors.Is(err, ledger.ErrDamaged):
		// The detail names the damaged event and the remedy.
		return http.StatusServiceUnavailable, "log_damaged", "Log damaged"
	case errors.Is(err, events.ErrUnavailable), errors.Is(err, projections.ErrNotReady),
		errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "unavailable", "Service unavailable"
	}
	return http.StatusInternalServerError, "internal", "Internal error"
}

// writeError renders err as problem+json. It is the only place that turns
// an error into an HTTP status.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, code, title := statusOf(err)
	if cw, ok := w.(*commandWriter); ok {
		cw.code = code
	}
	p := problem{Type: "urn:referto:problem:" + code, Title: title, Status: status, Code: code, Detail: detail(err)}
	var re *commands.RuleError
	if errors.As(err, &re) {
		p.Rule, p.Detail = re.Rule, re.Msg
	}
	var ku *ledger.KeyReusedError
	if errors.As(err, &ku) {
		p.Field, p.Seq = "Idempotency-Key", ku.Seq
	}
	for _, fe := range fieldErrors(err) {
		p.Errors = append(p.Errors, problemField{Field: fe.Field, Detail: fe.Msg, Rule: fe.Rule})
	}
	if len(p.Errors) > 0 {
		p.Field, p.Rule = p.Errors[0].Field, p.Errors[0].Rule
		p.Detail = p.Errors[0].Detail
		if p.Field != "" {
			p.Detail = p.Field + ": " + p.Detail
		}
	}
	if status == http.StatusInternalServerError {
		s.opts.Logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "request_id", w.Header().Get(RequestIDHeader), "err", err)
		p.Detail = "internal error; see the server log"
	}
	if status == http.StatusServiceUnavailable && code != "log_damaged" {
		// A damaged log stays so until it is repaired: no retry helps.
		w.Header().Set("Retry-After", "1")
	}
	var limited *rateLimitedError
	if errors.As(err, &limited) {
		w.Header().Set("Retry-After", limited.retryAfter())
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(p)
}

// sentinels whose text is noise in front of an arbiter.
var sentinels = []error{commands.ErrConflict, commands.ErrNotFound, commands.ErrForbidden, events.ErrConflict,
	events.ErrUnavailable, events.ErrInvalidID, ledger.ErrPrecondition, ledger.ErrKeyReused, errUnauthorized, errForbidden,
	errNotFound, errBadRequest, errTooLarge, errMethod, errTooManyRequests, errHeadersTooLarge, errReadOnly,
	hub.ErrVenue, hub.ErrNoVenue, hub.ErrDecision}

// detail renders an error for people: the sentinel's package prefix (the
// problem's code already says it) is left out.
func detail(err error) string {
	msg := err.Error()
	for _, s := range sentinels {
		if rest, ok := strings.CutPrefix(msg, s.Error()+": "); ok && errors.Is(err, s) {
			return rest
		}
	}
	return msg
}

// fieldErrors collects every *commands.FieldError in an error tree.
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
