package api

import (
	"errors"
	"net/http"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/events/fault"
)

// The API's own refusals; the domain's come marked from its packages.
var (
	errUnauthorized    = fault.New(fault.Unauthorized, "api: unauthorized")
	errForbidden       = fault.New(fault.Forbidden, "api: forbidden")
	errNotFound        = fault.New(fault.NotFound, "api: not found")
	errTooLarge        = fault.New(problem.TooLarge, "api: request body too large")
	errBadRequest      = fault.New(fault.Invalid, "api: bad request")
	errMethod          = fault.New(problem.MethodNotAllowed, "api: method not allowed")
	errTooManyRequests = fault.New(problem.TooManyRequests, "api: too many requests")
	errHeadersTooLarge = fault.New(problem.HeadersTooLarge, "api: request header fields too large")
)

// handler is a route that returns its failure rather than writing it:
// serve writes it, once.
type handler func(w http.ResponseWriter, r *http.Request) error

// serve adapts h to http: a failure h returns is answered as a problem.
func (s *Server) serve(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeError answers err as problem+json (package problem): the only way
// an error becomes an HTTP answer. An internal error is logged with the
// request's id.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	p := problem.Of(err)
	if cw, ok := w.(*commandWriter); ok {
		cw.code = string(p.Code)
	}
	if p.Code == fault.Internal {
		s.opts.Logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "request_id", w.Header().Get(RequestIDHeader), "err", err)
	}
	var limited *rateLimitedError
	if errors.As(err, &limited) {
		w.Header().Set("Retry-After", limited.RetryAfter())
	}
	problem.Write(w, p)
}
