package api

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/ranking"
)

// SeasonRegistry is what the API of a national hub asks of its season registry
// (api/hub/registry.Keeper): commands, the registry folded, its log,
// and the snapshot of its stream a backup (backup.Write) carries.
type SeasonRegistry interface {
	Submit(ctx context.Context, sub registry.Submission) (ledger.Outcome, error)
	Registry() (*ranking.Registry, uint64, error)
	Export(ctx context.Context, w io.Writer, begin func(signed string, events uint64)) error
	backup.RegistryLog
}

// RouteRegistry is the route of the registry's commands, as bound into
// their requests' fingerprints (ledger.Fingerprint).
const RouteRegistry = "POST /v1/registry/commands"

func (s *Server) registryRoutes(r *mux.Router) {
	r.HandleFunc("/v1/registry", s.serve(s.getRegistry)).Methods(http.MethodGet)
	r.HandleFunc("/v1/registry/commands", s.command("", s.postRegistryCommand)).Methods(http.MethodPost)
	r.HandleFunc("/v1/registry/export", s.serve(s.getRegistryExport)).Methods(http.MethodGet)
}

// postRegistryCommand records a link, a merge or a disqualification in the
// season registry (the hub's administrator only; the one write the hub
// takes besides a venue's registration).
func (s *Server) postRegistryCommand(w *commandWriter, r *http.Request) error {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the hub's administrator records in the season registry", errForbidden)
	}
	var body []byte
	if err == nil {
		body, err = s.readBody(w, r)
	}
	var cmd commands.RegistryCommand
	if err == nil {
		cmd, err = commands.ParseRegistry(body)
	}
	sub := registry.Submission{Command: cmd, Actor: p.actor()}
	if err == nil {
		w.typ = cmd.CommandType()
		sub.Key, err = s.idempotencyKey(r.Header.Get("Idempotency-Key"))
	}
	if err == nil && len(r.Header.Values("If-Match")) > 0 {
		err = &commands.FieldError{Field: "If-Match", Msg: "the season registry's commands take no If-Match: each is decided against the registry as it is"}
	}
	if err == nil {
		if sub.Request, err = ledger.Fingerprint(RouteRegistry, events.RegistryID, sub.Actor, body); err != nil {
			err = errors.Join(errBadRequest, err)
		}
	}
	var o ledger.Outcome
	if err == nil {
		o, err = func() (ledger.Outcome, error) {
			defer s.inFlight.begin()()
			return s.opts.Registry.Submit(r.Context(), sub)
		}()
	}
	if err != nil {
		return err
	}
	respond(w, o)
	return nil
}

// registryView is GET /v1/registry: what the registry holds, in the order
// recorded.
type registryView struct {
	Events            uint64                            `json:"events"`
	Links             []events.NationalIDLinked         `json:"links"`
	Merges            []events.PlayersMerged            `json:"merges"`
	Disqualifications []events.DisqualificationRecorded `json:"disqualifications"`
}

func (s *Server) getRegistry(w http.ResponseWriter, r *http.Request) error {
	reg, n, err := s.opts.Registry.Registry()
	if err != nil {
		return err
	}
	v := registryView{Events: n, Links: reg.Linked, Merges: reg.Merges, Disqualifications: reg.Periods}
	if v.Links == nil {
		v.Links = []events.NationalIDLinked{}
	}
	if v.Merges == nil {
		v.Merges = []events.PlayersMerged{}
	}
	if v.Disqualifications == nil {
		v.Disqualifications = []events.DisqualificationRecorded{}
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// getRegistryExport streams the registry's log, one event a line exactly
// as stored, with the hub's signed checkpoint of exactly those lines: what
// verify --season --registry folds again. Like the registry, it is public.
func (s *Server) getRegistryExport(w http.ResponseWriter, r *http.Request) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	started := false
	err := s.opts.Registry.Export(r.Context(), bw, func(signed string, n uint64) {
		started = true
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set(CheckpointHeader, base64.StdEncoding.EncodeToString([]byte(signed)))
		w.Header().Set("Referto-Events", strconv.FormatUint(n, 10))
		w.WriteHeader(http.StatusOK)
	})
	if err == nil {
		err = bw.Flush()
	}
	switch {
	case err == nil:
	case !started:
		return err
	case r.Context().Err() == nil:
		s.opts.Logger.Error("registry export aborted", "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}
