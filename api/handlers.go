package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
)

// The JSON handlers of the command routes: each reads its request into a
// commandCall, calls the route's service (service.go) and writes what it
// returns.

func (s *Server) postTournament(w http.ResponseWriter, r *http.Request) error {
	o, err := s.createTournament(r.Context(), s.callOf(w, r, ""))
	if err != nil {
		return err
	}
	respond(w, o)
	return nil
}

// officialCreated is the response to an appointment: the token is shown once.
type officialCreated struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Role  string `json:"role"`
	Token string `json:"token"`
	Seq   uint64 `json:"seq"`
}

func (s *Server) postOfficial(w http.ResponseWriter, r *http.Request) error {
	o, token, err := s.appointOfficial(r.Context(), s.callOf(w, r, mux.Vars(r)["t"]))
	if err != nil {
		return err
	}
	a, _ := mustDecode(o.Events[0]).(events.OfficialAppointed)
	writeJSON(w, http.StatusCreated, officialCreated{ID: a.Official, Name: a.Name, Role: a.Role, Token: token, Seq: o.Seq})
	return nil
}

func (s *Server) postCommand(w http.ResponseWriter, r *http.Request) error {
	o, err := s.submitCommand(r.Context(), s.callOf(w, r, mux.Vars(r)["t"]))
	if err != nil {
		return err
	}
	respond(w, o)
	return nil
}

func (s *Server) checkTournamentID(t string) error {
	if !events.ValidID(t) {
		return fmt.Errorf("%w: tournament %q", errNotFound, t)
	}
	return nil
}

// commandTypeOf is the type a refused payload names, when it is one of the
// commands the endpoint accepts, for the metrics; "unknown" otherwise.
func commandTypeOf(body []byte) string {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(body, &head) == nil && slices.Contains(commands.Types(), head.Type) {
		return head.Type
	}
	return "unknown"
}

// mustDecode decodes an envelope this server has just sealed.
func mustDecode(env events.Envelope) events.Event {
	ev, err := events.Decode(env)
	if err != nil {
		return nil
	}
	return ev
}

// draftEvent is one event a draft would append: its type and payload.
type draftEvent struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// postDraft answers the events a draw would append, with the seq it was
// decided on, appending nothing (draft): the arbiter sees the tables and
// the constraints they break before recording the draw, which he does with
// the same payload (the seed included, or the tables made by hand) and
// If-Match on that seq.
func (s *Server) postDraft(w http.ResponseWriter, r *http.Request) error {
	seq, evs, err := s.draft(r.Context(), s.callOf(w, r, mux.Vars(r)["t"]))
	if err != nil {
		return err
	}
	out := struct {
		Seq    uint64       `json:"seq"`
		Events []draftEvent `json:"events"`
	}{Seq: seq, Events: make([]draftEvent, 0, len(evs))}
	for _, e := range evs {
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		out.Events = append(out.Events, draftEvent{Type: e.EventType(), Data: data})
	}
	w.Header().Set("ETag", `"`+strconv.FormatUint(seq, 10)+`"`)
	writeJSON(w, http.StatusOK, out)
	return nil
}
