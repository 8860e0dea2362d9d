package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

// Hub is what the API of a national hub (referto hub) asks of it: venue
// registration, which tournaments it serves, and the checkpoints it
// cosigned as a witness.
type Hub interface {
	Register(venue, key string) error
	// IssueLink makes venue's leaf link password, shown once.
	IssueLink(venue, reason string) (password string, d hub.Decision, err error)
	// Decide records an administrator's decision about a venue.
	Decide(venue string, req hub.DecisionRequest) (hub.Decision, error)
	Venues() ([]hub.Venue, []hub.Tournament)
	Served(t string) error
	Cosigned(t string) (signed string, size uint64, ok bool)
	WitnessKey() string
	// State is the hub's state file as it stands, for backups.
	State() ([]byte, error)
	// VenueLog checks a venue's proof for tournament t and returns the
	// last checkpoint of t cosigned and what scans the venue's messages of
	// t as the hub holds them (hub.Hub.VenueLog).
	VenueLog(t string, proof []byte) (cosigned string, scan func(context.Context, func(hub.VenueMessage) error) error, err error)
}

// VenueProofHeader carries, on GET /v1/venue-logs/{tournament}, the
// venue's proof (hub.VenueLogProof), base64.
const VenueProofHeader = "Referto-Venue-Proof"

// errReadOnly refuses a command at the hub: commands go to the venue.
var errReadOnly = fault.New(problem.MethodNotAllowed, "api: read-only")

// hubGate, on a hub, refuses every command and every read of a
// tournament the hub does not serve (held or quarantined).
// served is nil when tournament t may be read here: always at a venue, at
// a hub once it verified and serves t (hub.Hub.Served).
func (s *Server) served(t string) error {
	if s.opts.Hub == nil {
		return nil
	}
	return s.opts.Hub.Served(t)
}

func (s *Server) hubGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, ok := mux.Vars(r)["t"]
		if r.Method == http.MethodPost && (ok || r.URL.Path == "/v1/tournaments") {
			s.writeError(w, r, fmt.Errorf("%w: this is a hub; commands go to the tournament's venue", errReadOnly))
			return
		}
		if ok {
			if err := s.reader.Served(t); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) hubRoutes(r *mux.Router) {
	r.HandleFunc("/v1/venues", s.serve(s.postVenue)).Methods(http.MethodPost)
	r.HandleFunc("/v1/venues", s.getVenues).Methods(http.MethodGet)
	r.HandleFunc("/v1/venues/{venue}/link", s.serve(s.postVenueLink)).Methods(http.MethodPost)
	r.HandleFunc("/v1/venues/{venue}/decisions", s.serve(s.postVenueDecision)).Methods(http.MethodPost)
	r.HandleFunc("/v1/workbooks", s.serve(s.postHubWorkbook)).Methods(http.MethodPost)
	// Not under /v1/tournaments/{t}: the hub serves a venue its own log of
	// a tournament it holds or quarantined too.
	r.HandleFunc("/v1/venue-logs/{tournament}", s.serve(s.getVenueLog)).Methods(http.MethodGet)
}

// getVenueLog serves a venue its own messages of a tournament, as the hub
// sourced them, each with its stream sequence at the venue, and the last
// checkpoint the hub cosigned: what referto repair rebuilds a damaged log
// from. The venue proves itself with its checkpoint key (VenueProofHeader).
func (s *Server) getVenueLog(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["tournament"]
	if err := events.CheckID("tournament", t); err != nil {
		return err
	}
	proof, err := base64.StdEncoding.DecodeString(r.Header.Get(VenueProofHeader))
	if err != nil || len(proof) == 0 {
		return fmt.Errorf("%w: %s must carry the venue's signed request (base64)", errUnauthorized, VenueProofHeader)
	}
	cosigned, scan, err := s.opts.Hub.VenueLog(t, proof)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	if cosigned != "" {
		w.Header().Set(CosignedHeader, base64.StdEncoding.EncodeToString([]byte(cosigned)))
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(bw)
	err = scan(r.Context(), func(m hub.VenueMessage) error { return enc.Encode(m) })
	if err == nil {
		err = bw.Flush()
	}
	if err != nil && r.Context().Err() == nil {
		// Cut rather than end: a short log must not read as a whole one.
		s.opts.Logger.Error("venue log aborted", "tournament", t, "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// adminBody authorizes the administrator alone (what names the act, for
// the refusal) and reads the JSON body into v.
func (s *Server) adminBody(w http.ResponseWriter, r *http.Request, what string, v any) error {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator %s", errForbidden, what)
	}
	var body []byte
	if err == nil {
		body, err = s.readBody(w, r)
	}
	if err == nil && len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if jerr := dec.Decode(v); jerr != nil {
			err = fmt.Errorf("%w: %v", errBadRequest, jerr)
		}
	}
	return err
}

// venueLink is a venue's new leaf link password, shown once.
type venueLink struct {
	Venue    string       `json:"venue"`
	User     string       `json:"user"`
	Password string       `json:"password"`
	Decision hub.Decision `json:"decision"`
}

// postVenueLink issues a venue's leaf link password (administrator only):
// the venue's server connects to the hub's leaf port as
// nats://VENUE:PASSWORD@HUB:PORT, and the password it replaces no longer
// admits it.
func (s *Server) postVenueLink(w http.ResponseWriter, r *http.Request) error {
	venue := mux.Vars(r)["venue"]
	var req struct {
		Reason string `json:"reason"`
	}
	err := s.adminBody(w, r, "issues a venue's link", &req)
	var out venueLink
	if err == nil {
		out.Venue, out.User = venue, venue
		out.Password, out.Decision, err = s.opts.Hub.IssueLink(venue, req.Reason)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// postVenueDecision records an administrator's decision about a venue: a
// new key, its flag lifted, a tournament's quarantine lifted, each with
// its reason and the evidence it sets aside (GET /v1/venues shows them).
func (s *Server) postVenueDecision(w http.ResponseWriter, r *http.Request) error {
	var req hub.DecisionRequest
	err := s.adminBody(w, r, "decides about a venue", &req)
	var d hub.Decision
	if err == nil {
		d, err = s.opts.Hub.Decide(mux.Vars(r)["venue"], req)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, d)
	return nil
}

// postVenue registers a venue's checkpoint key (administrator only).
func (s *Server) postVenue(w http.ResponseWriter, r *http.Request) error {
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
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"venue": req.Venue, "key": req.Key})
	return nil
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
func (s *Server) hubCheckpoint(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	signed, _, ok := s.opts.Hub.Cosigned(t)
	if !ok {
		return fmt.Errorf("%w: no cosigned checkpoint of tournament %s", errNotFound, t)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(signed))
	return nil
}

// hubExport streams, on a hub, the events of a tournament its last
// cosigned checkpoint covers, with that checkpoint in the header.
func (s *Server) hubExport(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		return err
	}
	signed, size, ok := s.opts.Hub.Cosigned(t)
	var err error
	if !ok {
		err = fmt.Errorf("%w: no cosigned checkpoint of tournament %s", errNotFound, t)
	} else if _, err = s.reader.Head(t); errors.Is(err, projections.ErrNotFound) {
		err = fmt.Errorf("%w: no cosigned checkpoint of tournament %s", errNotFound, t)
	}
	if err != nil {
		return err
	}
	// A cosigned checkpoint is a venue's head: it ends a commit.
	return s.writeExport(w, r, t, size, signed, nil)
}
