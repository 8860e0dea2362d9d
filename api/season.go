package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/web"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/ranking"
)

// The season's national ranking over the tournaments this server holds
// (docs/rules.md#15-the-national-ranking), a page per player, and the
// offline proof of a player's row in a published classification.

// seasonRanking ranks season s over the tournaments the server holds, with
// the season registry's links, merges and disqualifications when it is a
// hub's. At a hub, a tournament counts only as far as the hub verified its
// log: one held, quarantined, or whose final classification is past the
// last checkpoint verified is listed with why, and counts for nothing.
func (s *Server) seasonRanking(season string) (*ranking.Ranking, error) {
	if !events.ValidID(season) {
		return nil, &commands.FieldError{Field: "season", Msg: fmt.Sprintf("%q must match [a-z0-9][a-z0-9-]{0,63}", season)}
	}
	th, err := ranking.Season(season)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotFound, err)
	}
	var reg *ranking.Registry
	if s.opts.Registry != nil {
		if reg, _, err = s.opts.Registry.Registry(); err != nil {
			return nil, err
		}
	}
	var ts []ranking.Tournament
	ids, err := s.reader.Season(season, func(st *projections.Tournament) { ts = append(ts, ranking.FromState(st)) })
	if err != nil {
		return nil, err
	}
	if s.opts.Hub != nil {
		for i := range ts {
			ts[i].Withheld = s.unverified(ts[i])
		}
		// Tournaments not run on referto, from their clubs' workbooks.
		wbs, err := s.hubWorkbooks(season, ids)
		if err != nil {
			return nil, err
		}
		ts = append(ts, wbs...)
	}
	return ranking.Compute(th, ts, reg), nil
}

// unverified says, at a hub, why tournament t's log is not one the hub
// verified as far as the ranking reads it (nil when it is): held or
// quarantined (what hubGate refuses to serve), no checkpoint cosigned, or
// a final classification past the last one.
func (s *Server) unverified(t ranking.Tournament) *ranking.Why {
	var why ranking.Why
	_, size, cosigned := s.opts.Hub.Cosigned(t.ID)
	switch err := s.opts.Hub.Served(t.ID); {
	case errors.Is(err, hub.ErrQuarantined):
		why = ranking.Because(ranking.WhyQuarantined, strings.TrimPrefix(err.Error(), hub.ErrQuarantined.Error()+": "))
	case err != nil:
		why = ranking.Because(ranking.WhyHeld, strings.TrimPrefix(err.Error(), hub.ErrHeld.Error()+": "))
	case !cosigned:
		why = ranking.Because(ranking.WhyUnverified)
	case t.Final && t.Seq > size:
		why = ranking.Because(ranking.WhyPastCheckpoint, t.Seq, size)
	default:
		return nil
	}
	return &why
}

func (s *Server) getSeasonRanking(w http.ResponseWriter, r *http.Request) error {
	rk, err := s.seasonRanking(mux.Vars(r)["s"])
	if err != nil {
		return err
	}
	if rk.Rows == nil {
		rk.Rows = []ranking.Row{}
	}
	if rk.Tournaments == nil {
		rk.Tournaments = []ranking.TournamentUse{}
	}
	writeJSON(w, http.StatusOK, rk)
	return nil
}

// playerPage is a player's season: his row, every result with whether it
// counts and why, and where to fetch the proof of each.
func (s *Server) getSeasonPlayer(w http.ResponseWriter, r *http.Request) error {
	page, err := s.seasonPlayer(mux.Vars(r)["s"], mux.Vars(r)["id"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// seasonPlayer is player id's season in the national ranking: every
// result, whether it counts and why not, and where the proof file of each
// is served.
func (s *Server) seasonPlayer(season, id string) (web.SeasonPlayer, error) {
	rk, err := s.seasonRanking(season)
	if err != nil {
		return web.SeasonPlayer{}, err
	}
	row, ok := rk.Player(id)
	if !ok {
		return web.SeasonPlayer{}, fmt.Errorf("%w: national id %s has no result in season %s", errNotFound, id, rk.Season)
	}
	page := web.SeasonPlayer{Season: rk.Season, Thresholds: rk.Thresholds, ThresholdsSHA256: rk.ThresholdsSHA256, Row: row, Proofs: []string{}}
	for _, res := range row.Results {
		proof := ""
		if res.Seq > 0 { // a hub's workbook of a tournament not run on referto has no log to prove it in
			proof = ProofPath(res.Tournament, res.Player)
		}
		page.Proofs = append(page.Proofs, proof)
	}
	return page, nil
}

// ProofPath is where a player's proof file is served.
func ProofPath(tournament, player string) string {
	return "/v1/tournaments/" + url.PathEscape(tournament) + "/players/" + url.PathEscape(player) + "/proof"
}

// getPlayerProof serves the proof file (proof.Proof) of a player's row in
// the tournament's last published classification: under the last
// checkpoint the hub's witness cosigned when it covers the publication (the
// proof then carries the cosignature), else under one of the whole log
// signed now (proofCheckpoint).
func (s *Server) getPlayerProof(w http.ResponseWriter, r *http.Request) error {
	t, player := mux.Vars(r)["t"], mux.Vars(r)["p"]
	// A checkpoint the hub's witness cosigned, when it covers the
	// publication, makes the proof carry the cosignature too (verify
	// --proof --witness).
	pf, err := s.reader.PlayerProof(r.Context(), t, player, func(seq uint64) (string, uint64, error) {
		return s.proofCheckpoint(t, seq, true)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", t+"-"+player+".proof.json"))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pf.Encode())
	return nil
}
