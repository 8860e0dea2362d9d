package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// A tournament's whole state (GET /v1/tournaments/{t}/state, and what
// every page of the web UI shows) is made once per seq and shared: its
// JSON, encoded under the tournament's read lock, and the State decoded
// from it, which the pages read without a lock since no fold touches it.
// A hall of phones following a tournament then costs one encoding per
// event, not one per page read.

// maxStateViews bounds the tournaments whose current state is kept: one
// more drops another's, made again when next read.
const maxStateViews = 64

// stateViews holds the latest state made of each tournament read.
type stateViews struct {
	mu    sync.Mutex
	views map[string]*stateView
}

// stateView is a tournament's state at seq: its JSON made once, and the
// State decoded from it once, when a page first asks.
type stateView struct {
	seq     uint64
	once    sync.Once
	json    []byte
	err     error
	decoded sync.Once
	st      *projections.TournamentView
	stErr   error
}

// state is the State of v's JSON, decoded at the first call.
func (v *stateView) state() (*projections.TournamentView, error) {
	v.decoded.Do(func() {
		if v.err != nil {
			v.stErr = v.err
			return
		}
		v.st = new(projections.TournamentView)
		v.stErr = json.Unmarshal(v.json, v.st)
	})
	return v.st, v.stErr
}

// currentState returns tournament t's state as it stands, made at most once per
// seq; false when the tournament does not exist.
func (s *Server) currentState(t string) (*stateView, bool) {
	seq, ok := s.tournamentSeq(t)
	if !ok {
		return nil, false
	}
	vs := &s.stateViews
	vs.mu.Lock()
	v := vs.views[t]
	if v == nil || v.seq != seq {
		if vs.views == nil {
			vs.views = map[string]*stateView{}
		}
		if _, held := vs.views[t]; !held && len(vs.views) >= maxStateViews {
			for other := range vs.views {
				delete(vs.views, other)
				break
			}
		}
		v = &stateView{seq: seq}
		vs.views[t] = v
	}
	vs.mu.Unlock()
	v.once.Do(func() {
		if !s.opts.Runner.Read(t, func(st *projections.Tournament) { v.json, v.err = stateJSON(st) }) {
			v.err = fmt.Errorf("%w: tournament %s", errNotFound, t)
		}
	})
	return v, true
}

// stateJSON is the JSON of a tournament's whole state: its StateView and
// who would qualify for the next phase.
func stateJSON(st *projections.Tournament) ([]byte, error) {
	v := st.StateView()
	if phase, players, err := commands.NextQualifiers(st); err == nil {
		v.Next = &projections.NextPhase{Phase: phase, Players: players}
	} else if len(st.Rounds) >= st.Ruleset.QualifyingRounds && st.Ruleset.Knockout != events.KnockoutNone &&
		st.Phase() != events.PhaseFinal && st.Phase() != events.PhaseFinalina && !st.Closed {
		// Why the cut cannot be told yet; after the final there is none.
		v.Next = &projections.NextPhase{Note: err.Error()}
	}
	return json.Marshal(v)
}

// pageState is the state a page of the web UI shows of tournament t, read
// as GET /v1/tournaments/{t}/state reads it (after what this process
// acknowledged, through the hub's gate) but without encoding it for the
// page: the State is shared, and the page must not modify it. false when
// it cannot be read so: the page then asks the API, which says why.
func (s *Server) pageState(r *http.Request, t string) (*projections.TournamentView, bool) {
	if s.opts.Hub != nil && s.opts.Hub.Served(t) != nil {
		return nil, false
	}
	if s.opts.Ledger.AwaitAcked(r.Context(), t) != nil {
		return nil, false
	}
	v, ok := s.currentState(t)
	if !ok {
		return nil, false
	}
	st, err := v.state()
	return st, err == nil
}
