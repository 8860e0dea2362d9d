package api

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands/hub"
	"github.com/referto/referto/events"
)

// Hub is what the API of a national hub (referto hub) asks of it: venue
// registration, which tournaments it serves, and the checkpoints it
// cosigned as a witness.
type Hub interface {
	Register(venue, key string) error
	Venues() ([]hub.Venue, []hub.Tournament)
	Served(t string) error
	Cosigned(t string) (signed string, size uint64, ok bool)
	WitnessKey() string
	// State is the hub's state file as it stands, for backups.
	State() ([]byte, error)
}

// errReadOnly refuses a command at the hub: commands go to the venue.
var errReadOnly = errors.New("api: read-only")

// hubGate, on a hub, refuses every command and every read of a
// tournament the hub does not serve (held or quarantined).
func (s *Server) hubGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, ok := mux.Vars(r)["t"]
		if r.Method == http.MethodPost && (ok || r.URL.Path == "/v1/tournaments") {
			s.writeError(w, r, fmt.Errorf("%w: this is a hub; commands go to the tournament's venue", errReadOnly))
			return
		}
		if ok {
			if err := s.opts.Hub.Served(t); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hubRoutes(r *mux.Router) {
	r.HandleFunc("/v1/venues", s.postVenue).Methods(http.MethodPost)
	r.HandleFunc("/v1/venues", s.getVenues).Methods(http.MethodGet)
	r.HandleFunc("/v1/workbooks", s.postHubWorkbook).Methods(http.MethodPost)
}

// postVenue registers a venue's checkpoint key (administrator only).
func (s *Server) postVenue(w http.ResponseWriter, r *http.Request) {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator registers venues", errForbidden)
	}
	var body []byte
	if err == nil {
		body, err = s.readBody(w, r)
	}
	var req struct {
		Venue string `json:"venue"`
		Key   string `json:"key"`
	}
	if err == nil {
		if jerr := json.Unmarshal(body, &req); jerr != nil {
			err = fmt.Errorf("%w: %v", errBadRequest, jerr)
		}
	}
	if err == nil {
		err = s.opts.Hub.Register(req.Venue, req.Key)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"venue": req.Venue, "key": req.Key})
}

// getVenues lists the venues and their tournaments, with the evidence
// against any venue that rewrote a log after a cosigned checkpoint.
func (s *Server) getVenues(w http.ResponseWriter, _ *http.Request) {
	vs, ts := s.opts.Hub.Venues()
	if vs == nil {
		vs = []hub.Venue{}
	}
	if ts == nil {
		ts = []hub.Tournament{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"venues": vs, "tournaments": ts})
}

// hubCheckpoint serves, on a hub, the last checkpoint it cosigned: the
// venue's signed note with the hub's cosignature.
func (s *Server) hubCheckpoint(w http.ResponseWriter, r *http.Request) {
	t := mux.Vars(r)["t"]
	signed, _, ok := s.opts.Hub.Cosigned(t)
	if !ok {
		s.writeError(w, r, fmt.Errorf("%w: no cosigned checkpoint of tournament %s", errNotFound, t))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(signed))
}

// hubExport streams, on a hub, the events of a tournament its last
// cosigned checkpoint covers, with that checkpoint in the header.
func (s *Server) hubExport(w http.ResponseWriter, r *http.Request) {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		s.writeError(w, r, err)
		return
	}
	signed, size, ok := s.opts.Hub.Cosigned(t)
	last, found, err := s.opts.Store.LastCommit(t)
	if err == nil && (!ok || !found) {
		err = fmt.Errorf("%w: no cosigned checkpoint of tournament %s", errNotFound, t)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set(CheckpointHeader, base64.StdEncoding.EncodeToString([]byte(signed)))
	w.Header().Set("Referto-Events", strconv.FormatUint(size, 10))
	bw := bufio.NewWriterSize(w, 256<<10)
	var n uint64
	done := errors.New("done")
	err = s.opts.Log.Scan(r.Context(), 1, last.StreamSeq, t, func(m events.StoredCommit) error {
		// A cosigned checkpoint is a venue's head: it ends a commit.
		if _, err := bw.Write(m.Data); err != nil {
			return err
		}
		if err := events.CommitLines(m.Data, func([]byte) error { n++; return nil }); err != nil {
			return err
		}
		if n >= size {
			return done
		}
		return nil
	})
	if errors.Is(err, done) {
		err = nil
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil && r.Context().Err() == nil {
		s.opts.Logger.Error("export aborted", "tournament", t, "err", err)
		panic(http.ErrAbortHandler)
	}
}
