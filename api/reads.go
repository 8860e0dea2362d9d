package api

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/web"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

func (s *Server) listTournaments(w http.ResponseWriter, r *http.Request) error {
	out, err := s.reader.Tournaments()
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tournaments": out})
	return nil
}

func (s *Server) getTournament(w http.ResponseWriter, r *http.Request) error {
	b, err := s.reader.Summary(mux.Vars(r)["t"])
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

func (s *Server) getPlayers(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	rows, err := s.reader.Players(t)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"tournament": t, "players": rows})
	return nil
}

// getEvents serves a page of a tournament's envelopes, exactly as stored,
// as JSON or (Accept: application/x-ndjson) one stored line per event.
func (s *Server) getEvents(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		return err
	}
	from, err := queryUint(r, "from", 1)
	if err != nil {
		return err
	}
	limit, err := queryUint(r, "limit", 100)
	if err != nil {
		return err
	}
	from, limit = max(from, 1), min(max(limit, 1), 1000)
	page, err := s.reader.Events(r.Context(), t, from, limit)
	if err != nil {
		return err
	}
	if strings.Contains(r.Header.Get("Accept"), "application/x-ndjson") {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		for _, l := range page.Lines {
			_, _ = w.Write(l)
			_, _ = w.Write([]byte("\n"))
		}
		return nil
	}
	envs := page.Envelopes
	if envs == nil {
		envs = []events.Envelope{}
	}
	body := map[string]any{"tournament": t, "events": envs}
	if n := len(envs); n > 0 && uint64(n) == limit {
		body["next"] = envs[n-1].Seq + 1
	}
	writeJSON(w, http.StatusOK, body)
	return nil
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

func (s *Server) getTables(w http.ResponseWriter, r *http.Request) error {
	round, err := strconv.Atoi(mux.Vars(r)["r"])
	if err != nil || round < 1 {
		return &commands.FieldError{Field: "r", Msg: "the round is a positive integer"}
	}
	out, err := s.reader.Tables(mux.Vars(r)["t"], round)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getStandings serves the standings as they stand, or with ?at=SEQ as they
// stood right after event SEQ (folded from the log).
func (s *Server) getStandings(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	at, err := queryUint(r, "at", 0)
	if err != nil {
		return err
	}
	if at == 0 {
		b, err := s.reader.StandingsJSON(t)
		if err != nil {
			return err
		}
		writeRaw(w, http.StatusOK, b)
		return nil
	}
	st, err := s.reader.StandingsAt(r.Context(), t, at)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// getClassification serves the final classification as it stands, with the
// signed checkpoint once published (docs/rules.md#7-formats-and-the-rur-knockout).
// CosignedHeader carries, on a classification, the last checkpoint of its
// tournament a hub cosigned (base64 of the note), once the venue synced.
const CosignedHeader = "Referto-Cosigned-Checkpoint"

func (s *Server) getClassification(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if s.opts.Cosigned != nil {
		if signed, _, ok := s.opts.Cosigned(t); ok {
			w.Header().Set(CosignedHeader, base64.StdEncoding.EncodeToString([]byte(signed)))
		}
	}
	b, err := s.reader.ClassificationJSON(t)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

// getState serves the whole tournament (projections.TournamentView) as it stands, or
// with ?at=SEQ as it stood right after event SEQ (folded from the log).
func (s *Server) getState(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	at, err := queryUint(r, "at", 0)
	if err != nil {
		return err
	}
	if at > 0 {
		v, err := s.reader.StateAt(r.Context(), t, at)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, v)
		return nil
	}
	b, err := s.reader.StateJSON(t)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

// getMe says who a token acts as: the web UI offers only what that role may do.
func (s *Server) getMe(w http.ResponseWriter, r *http.Request) error {
	m, err := s.me(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// me is who the token r carries acts as (GET /v1/me): the role, the
// official's or player's name, and the commands that role may send under
// the tournament's ruleset.
func (s *Server) me(r *http.Request) (web.Me, error) {
	p, err := s.authenticate(r)
	if err != nil {
		return web.Me{}, err
	}
	name := p.Official
	// The tournament's ruleset may narrow what the role may send (who
	// rules on contestations); the administrator's token names none.
	permittedHere := func(typ string) bool { return commands.Permitted(p.Role, typ) }
	if p.Tournament != "" {
		s.reader.Read(p.Tournament, func(st *projections.Tournament) {
			if o := st.Officials[p.Official]; o != nil && p.Role != events.RolePlayer {
				name = o.Name
			}
			if pl := st.Players[p.Official]; pl != nil && p.Role == events.RolePlayer {
				name = pl.Name
			}
			rs := st.Ruleset
			permittedHere = func(typ string) bool { return commands.PermittedUnder(rs, p.Role, typ) }
		})
	}
	permitted := []string{} // an auditor may send none: [], not null
	for _, typ := range commands.Types() {
		if permittedHere(typ) {
			permitted = append(permitted, typ)
		}
	}
	return web.Me{Role: p.Role, Tournament: p.Tournament, Official: p.Official, Name: name, Commands: permitted}, nil
}

// bearer is r as the API reads a request that carries token (none when
// ""), from r's address and with its context: what a web page reads on
// behalf of its official or player is refused as the API refuses it, and
// a failed authentication counts against that browser.
func bearer(r *http.Request, token string) *http.Request {
	req := r.WithContext(r.Context())
	req.Header = http.Header{}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// pageMe is who token acts as, for a web page answering r
// (web.Options.Me).
func (s *Server) pageMe(r *http.Request, token string) (web.Me, error) {
	if err := s.reader.Fresh(r.Context(), ""); err != nil {
		return web.Me{}, err
	}
	return s.me(bearer(r, token))
}

// pageAuthorize refuses a web page answering r what the API refuses token
// for tournament t when only roles may read it (web.Options.Authorize).
func (s *Server) pageAuthorize(r *http.Request, token, t string, roles ...string) error {
	_, err := s.authorize(bearer(r, token), t, roles...)
	return err
}

// getRulesets lists the presets with every parameter resolved.
func (s *Server) getRulesets(w http.ResponseWriter, _ *http.Request) {
	out := []events.Ruleset{}
	for _, id := range events.Presets() {
		rs, _ := events.Preset(id)
		out = append(out, rs)
	}
	writeJSON(w, http.StatusOK, map[string]any{"rulesets": out})
}

// getOfficials lists a tournament's appointed officials, in the order of
// appointment, to the administrator and the tournament's officials: the
// web UI names them in the event log and lists them on the tournament's
// page.
func (s *Server) getOfficials(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		return err
	}
	out, err := s.reader.Officials(t)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"officials": out})
	return nil
}
