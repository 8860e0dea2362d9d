package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

func (s *Server) createTournament(w *commandWriter, r *http.Request) error {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator creates tournaments", errForbidden)
	}
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	cmd, err := commands.ParseAs[commands.CreateTournament](body)
	if err != nil {
		return err
	}
	sub := ledger.Submission{Tournament: cmd.ID, Command: cmd, Actor: p.actor(), Route: ledger.RouteCreate}
	return s.run(w, r, sub, body)
}

// officialCreated is the response to an appointment: the token is shown once.
type officialCreated struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Role  string `json:"role"`
	Token string `json:"token"`
	Seq   uint64 `json:"seq"`
}

func (s *Server) appointOfficial(w *commandWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	p, err := s.authorize(r, t)
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator appoints officials", errForbidden)
	}
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	ap, err := commands.ParseAs[commands.AppointOfficial](body)
	if err != nil {
		return err
	}
	token, err := s.randomHex(32)
	if err != nil {
		return err
	}
	ap.TokenSHA256 = TokenHash(token)
	sub := ledger.Submission{Tournament: t, Command: ap, Actor: p.actor(), Route: ledger.RouteAppoint}
	if err := s.checkTournamentID(t); err != nil {
		return err
	}
	if err := s.preconditions(r, &sub, body); err != nil {
		return err
	}
	o, err := s.opts.Ledger.Submit(r.Context(), sub)
	if err != nil {
		return err
	}
	if o.Replayed {
		// The token of the original appointment was shown once and is not
		// stored; a retried appointment cannot show it again.
		return fmt.Errorf("%w: this Idempotency-Key already appointed an official; the token was shown once", events.ErrConflict)
	}
	a, _ := mustDecode(o.Events[0]).(events.OfficialAppointed)
	writeJSON(w, http.StatusCreated, officialCreated{ID: a.Official, Name: a.Name, Role: a.Role, Token: token, Seq: o.Seq})
	return nil
}

func (s *Server) postCommand(w *commandWriter, r *http.Request) error {
	t, p, body, err := s.commandRequest(w, r, events.RoleArbiter, events.RoleAppeals, events.RolePlayer)
	if err != nil {
		return err
	}
	cmd, err := commands.Parse(body)
	if err != nil {
		w.typ = commandTypeOf(body)
		return err
	}
	w.typ = cmd.CommandType()
	if !commands.Permitted(p.Role, cmd.CommandType()) {
		return fmt.Errorf("%w: role %s may not issue %s", errForbidden, p.Role, cmd.CommandType())
	}
	// Every command gets fresh randomness; only a draw uses it, and records it.
	seed, err := s.randomHex(16)
	if err != nil {
		return err
	}
	return s.run(w, r, ledger.Submission{Tournament: t, Command: cmd, Actor: p.actor(), Route: ledger.RouteCommands, Seed: seed}, body)
}

// commandRequest reads what a command's route reads first: the
// tournament its path addresses, the principal sending it (in one of
// roles) and the body.
func (s *Server) commandRequest(w http.ResponseWriter, r *http.Request, roles ...string) (t string, p principal, body []byte, err error) {
	t = mux.Vars(r)["t"]
	if err := s.checkTournamentID(t); err != nil {
		return t, p, nil, err
	}
	if p, err = s.authorize(r, t, roles...); err != nil {
		return t, p, nil, err
	}
	body, err = s.readBody(w, r)
	return t, p, body, err
}

// run reads the preconditions, submits and responds.
func (s *Server) run(w http.ResponseWriter, r *http.Request, sub ledger.Submission, body []byte) error {
	if err := s.preconditions(r, &sub, body); err != nil {
		return err
	}
	o, err := s.opts.Ledger.Submit(r.Context(), sub)
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

// postDraft decides a draw as POST /commands would, against the
// tournament as it stands, and answers the events it would append, with
// the seq it was decided on, appending nothing: the arbiter sees the tables
// and the constraints they break before recording the draw, which he does
// with the same payload (the seed included, or the tables made by hand)
// and If-Match on that seq. Only a draw has a draft.
func (s *Server) postDraft(w http.ResponseWriter, r *http.Request) error {
	t, p, body, err := s.commandRequest(w, r, events.RoleArbiter, events.RoleAppeals)
	if err != nil {
		return err
	}
	cmd, err := commands.ParseAs[commands.DrawTables](body)
	if err != nil {
		return err
	}
	if !commands.Permitted(p.Role, cmd.CommandType()) {
		return fmt.Errorf("%w: role %s may not issue %s", errForbidden, p.Role, cmd.CommandType())
	}
	if cmd.Seed == "" && len(cmd.Tables) == 0 {
		// The seed the draft was drawn with, recorded in its event: the
		// draw recorded with it seats the same tables.
		if cmd.Seed, err = s.randomHex(16); err != nil {
			return err
		}
	}
	if err := s.opts.Ledger.AwaitAcked(r.Context(), t); err != nil {
		return err
	}
	var evs []events.Event
	var seq uint64
	if !s.opts.Runner.Read(t, func(st *projections.Tournament) {
		seq = st.Seq
		evs, err = commands.Decide(st, cmd, commands.Input{Now: s.opts.Clock().UTC(), Actor: p.actor(), Seed: cmd.Seed})
	}) {
		err = fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
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
