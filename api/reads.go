package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
)

func (s *Server) listTournaments(w http.ResponseWriter, r *http.Request) {
	ids, err := s.opts.Store.Tournaments()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]json.RawMessage, 0, len(ids))
	for _, id := range ids {
		b, ok, err := s.opts.Store.Summary(id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if ok {
			out = append(out, b)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tournaments": out})
}

func (s *Server) getTournament(w http.ResponseWriter, r *http.Request) {
	t := mux.Vars(r)["t"]
	b, ok, err := s.opts.Store.Summary(t)
	if err == nil && !ok {
		err = fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, b)
}

func (s *Server) getPlayers(w http.ResponseWriter, r *http.Request) {
	t := mux.Vars(r)["t"]
	if _, ok, err := s.opts.Store.Summary(t); err != nil || !ok {
		s.writeError(w, r, notFoundOr(err, "tournament "+t))
		return
	}
	rows, err := s.opts.Store.Players(t)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if rows == nil {
		rows = []json.RawMessage{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tournament": t, "players": rows})
}

// getEvents serves a page of a tournament's envelopes, exactly as stored,
// as JSON or (Accept: application/x-ndjson) one stored line per event.
func (s *Server) getEvents(w http.ResponseWriter, r *http.Request) {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		s.writeError(w, r, err)
		return
	}
	from, err := queryUint(r, "from", 1)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit, err := queryUint(r, "limit", 100)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, limit = max(from, 1), min(max(limit, 1), 1000)
	if _, ok, err := s.opts.Store.Summary(t); err != nil || !ok {
		s.writeError(w, r, notFoundOr(err, "tournament "+t))
		return
	}
	refs, err := s.opts.Store.Commits(t, from, int(limit))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var lines [][]byte
	var envs []events.Envelope
	for _, ref := range refs {
		m, err := s.opts.Log.Get(r.Context(), ref.StreamSeq)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		c, err := events.DecodeCommit(m.Data)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		for i, env := range c.Envelopes {
			if env.Seq >= from && uint64(len(envs)) < limit {
				envs = append(envs, env)
				lines = append(lines, c.Lines[i])
			}
		}
	}
	if strings.Contains(r.Header.Get("Accept"), "application/x-ndjson") {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		for _, l := range lines {
			_, _ = w.Write(l)
			_, _ = w.Write([]byte("\n"))
		}
		return
	}
	if envs == nil {
		envs = []events.Envelope{}
	}
	body := map[string]any{"tournament": t, "events": envs}
	if n := len(envs); n > 0 && uint64(n) == limit {
		body["next"] = envs[n-1].Seq + 1
	}
	writeJSON(w, http.StatusOK, body)
}

func queryUint(r *http.Request, name string, def uint64) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, &commands.FieldError{Field: name, Msg: "must be a non-negative integer"}
	}
	return n, nil
}

func notFoundOr(err error, what string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: %s", errNotFound, what)
}
