package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
)

// The HTTP side of a command: its headers and body become a commandCall
// (service.go), its ledger.Outcome a 201, and reads wait for what the
// ledger acknowledged.

// idempotencyKey checks a command's Idempotency-Key, generating one when
// absent.
func (s *Server) idempotencyKey(key string) (string, error) {
	if key == "" {
		return s.randomHex(16)
	}
	if len(key) > 200 || strings.IndexFunc(key, func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
		return "", &commands.FieldError{Field: "Idempotency-Key", Msg: "must be 1 to 200 visible ASCII characters"}
	}
	return key, nil
}

// accepted is the body of a command's 201.
type accepted struct {
	Seq    uint64            `json:"seq"`
	Events []events.Envelope `json:"events"`
}

// respond writes a command's outcome: 201 with the events, or the stored
// outcome of the original when the idempotency key was seen before.
func respond(w http.ResponseWriter, o ledger.Outcome) {
	w.Header().Set("ETag", `"`+strconv.FormatUint(o.Seq, 10)+`"`)
	if o.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusCreated, accepted{Seq: o.Seq, Events: o.Events})
}

// readYourWrites holds every read of the API that comes from the
// projections (the web UI's pages included, which come through the router)
// until the reader says it may be made (projections.Reader.Fresh: served
// here, and after every command this node acknowledged for the tournament
// the path names, or for all). Probes, metrics, keys, rulesets and the
// OpenAPI document do not wait.
func (s *Server) readYourWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
			(strings.HasPrefix(p, "/v1/tournaments") || p == "/v1/me" || strings.HasPrefix(p, "/v1/admin/")) {
			if err := s.reader.Fresh(r.Context(), mux.Vars(r)["t"]); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
