package api

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

func (s *Server) listTournaments(w http.ResponseWriter, r *http.Request) error {
	ids, err := s.opts.Store.Tournaments()
	if err != nil {
		return err
	}
	out := make([]json.RawMessage, 0, len(ids))
	for _, id := range ids {
		if s.opts.Hub != nil && s.opts.Hub.Served(id) != nil {
			continue // held or quarantined at the hub
		}
		b, ok, err := s.opts.Store.Summary(id)
		if err != nil {
			return err
		}
		if ok {
			out = append(out, b)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tournaments": out})
	return nil
}

func (s *Server) getTournament(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	b, ok, err := s.opts.Store.Summary(t)
	if err == nil && !ok {
		err = fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

func (s *Server) getPlayers(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, ok, err := s.opts.Store.Summary(t); err != nil || !ok {
		return notFoundOr(err, "tournament "+t)
	}
	rows, err := s.opts.Store.Players(t)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []json.RawMessage{}
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
	if _, ok, err := s.opts.Store.Summary(t); err != nil || !ok {
		return notFoundOr(err, "tournament "+t)
	}
	refs, err := s.opts.Store.Commits(t, from, int(limit))
	if err != nil {
		return err
	}
	var lines [][]byte
	var envs []events.Envelope
	for _, ref := range refs {
		m, err := s.opts.Log.Get(r.Context(), ref.StreamSeq)
		var c events.Commit
		if err == nil {
			c, err = events.DecodeCommit(m.Data)
		}
		if err != nil && !errors.Is(err, events.ErrUnavailable) {
			if derr := s.inspect(r.Context(), t); derr != nil {
				err = derr
			}
		}
		if err != nil {
			return err
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
		return nil
	}
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

func notFoundOr(err error, what string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: %s", errNotFound, what)
}

func (s *Server) getTables(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	round, err := strconv.Atoi(mux.Vars(r)["r"])
	if err != nil || round < 1 {
		return &commands.FieldError{Field: "r", Msg: "the round is a positive integer"}
	}
	head, ok, err := s.opts.Store.Round(t, round)
	if err == nil && !ok {
		err = fmt.Errorf("%w: round %d of %s has not been drawn", errNotFound, round, t)
	}
	if err != nil {
		return err
	}
	tables, err := s.opts.Store.Tables(t, round)
	if err != nil {
		return err
	}
	// The stored header is a JSON object; add the tables to it.
	var out map[string]json.RawMessage
	if err := json.Unmarshal(head, &out); err != nil {
		return err
	}
	out["tables"], _ = json.Marshal(tables)
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
		return s.serveRanking(w, t, false, func(st *projections.Tournament) any { return st.Standings() })
	}
	st, err := s.stateAt(r.Context(), t, at)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st.Standings())
	return nil
}

// stateAt folds a tournament's log up to and including event seq. The
// reads that use it are public (DESIGN: standings?at= for anyone), so at
// most maxFolds run at once (readSlot).
func (s *Server) stateAt(ctx context.Context, t string, seq uint64) (*projections.Tournament, error) {
	release, err := readSlot(ctx, s.folds, "past states being folded from the log")
	if err != nil {
		return nil, err
	}
	defer release()
	first, err := s.opts.Store.Commits(t, 1, 1)
	if err != nil {
		return nil, err
	}
	upto, err := s.opts.Store.Commits(t, seq, 1)
	if err != nil {
		return nil, err
	}
	if len(first) == 0 {
		return nil, fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	if len(upto) == 0 || upto[0].First > seq {
		return nil, &commands.FieldError{Field: "at", Msg: fmt.Sprintf("tournament %s has no event %d", t, seq)}
	}
	var envs []events.Envelope
	err = s.opts.Log.Scan(ctx, first[0].StreamSeq, upto[0].StreamSeq, t, func(m events.StoredCommit) error {
		c, err := events.DecodeCommit(m.Data)
		if err != nil {
			return err
		}
		envs = append(envs, c.Envelopes...)
		return nil
	})
	var st *projections.Tournament
	if err == nil {
		st, err = projections.Fold(t, envs, seq)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, events.ErrUnavailable) {
		if derr := s.inspect(ctx, t); derr != nil {
			return nil, derr
		}
	}
	return st, err
}

// readSlot takes one of sem's slots for a read of the log, waiting up to
// scanWait for one: past that the read is refused (events.ErrUnavailable:
// 503 with Retry-After), what names what is busy. release gives the slot
// back.
func readSlot(ctx context.Context, sem chan struct{}, what string) (release func(), err error) {
	wait := time.NewTimer(scanWait)
	defer wait.Stop()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-wait.C:
	case <-ctx.Done():
	}
	return nil, fmt.Errorf("%w: too many %s at once (at most %d); try again", events.ErrUnavailable, what, cap(sem))
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
	return s.serveRanking(w, t, true, func(st *projections.Tournament) any { return st.Classification() })
}

// serveRanking serves the standings or the classification: as stored, or,
// while the runner has not yet written them (it defers those costly views
// while commands keep coming), computed from the in-memory fold, so that a
// GET after a 201 sees the command.
func (s *Server) serveRanking(w http.ResponseWriter, t string, classification bool, fresh func(*projections.Tournament) any) error {
	var b []byte
	var err error
	if !s.opts.Runner.Stale(t) || !s.opts.Runner.Read(t, func(st *projections.Tournament) { b, err = json.Marshal(fresh(st)) }) {
		var ok bool
		b, ok, err = s.opts.Runner.Ranking(t, classification)
		if err == nil && !ok {
			err = fmt.Errorf("%w: tournament %s", errNotFound, t)
		}
	}
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
	var b []byte
	if at > 0 {
		var st *projections.Tournament
		if st, err = s.stateAt(r.Context(), t, at); err == nil {
			b, err = stateJSON(st)
		}
	} else if v, ok := s.currentState(t); !ok {
		err = fmt.Errorf("%w: tournament %s", errNotFound, t)
	} else {
		b, err = v.json, v.err
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

// getMe says who a token acts as: the web UI offers only what that role may do.
func (s *Server) getMe(w http.ResponseWriter, r *http.Request) error {
	p, err := s.authenticate(r)
	if err != nil {
		return err
	}
	name := p.Official
	// The tournament's ruleset may narrow what the role may send (who
	// rules on contestations); the administrator's token names none.
	permittedHere := func(typ string) bool { return commands.Permitted(p.Role, typ) }
	if p.Tournament != "" {
		s.opts.Runner.Read(p.Tournament, func(st *projections.Tournament) {
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
	writeJSON(w, http.StatusOK, map[string]any{"role": p.Role, "tournament": p.Tournament, "official": p.Official, "name": name, "commands": permitted})
	return nil
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

// officialView is an appointed official as GET /v1/tournaments/{t}/officials
// lists him: never his token's hash.
type officialView struct {
	Official  string `json:"official"`
	Name      string `json:"name"`
	Role      string `json:"role"`
	Appointed uint64 `json:"appointed"`
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
	out := []officialView{}
	if !s.opts.Runner.Read(t, func(st *projections.Tournament) {
		for _, o := range st.Officials {
			out = append(out, officialView{Official: o.ID, Name: o.Name, Role: o.Role, Appointed: o.Appointed})
		}
	}) {
		return fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	slices.SortFunc(out, func(a, b officialView) int { return cmp.Compare(a.Appointed, b.Appointed) })
	writeJSON(w, http.StatusOK, map[string]any{"officials": out})
	return nil
}
