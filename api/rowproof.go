package api

import (
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
	"github.com/referto/referto/projections"
)

// rowProof is the proof that one row of the published classification is
// in the tournament's log (proof.RowProof, which `referto verify --proof`
// checks offline with the server's verifier key, GET /v1/keys).
type rowProof = proof.RowProof

// getRowProof serves the proof of the player's row of the last published
// classification (or the one imported from a club workbook), as a file to
// download: the row as the publication's line states it.
func (s *Server) getRowProof(w http.ResponseWriter, r *http.Request) error {
	t, player := mux.Vars(r)["t"], mux.Vars(r)["player"]
	var out rowProof
	published := false
	if !s.opts.Runner.Read(t, func(st *projections.Tournament) {
		if st.Published == nil || len(st.Publications) == 0 {
			return
		}
		published = true
		out.Seq, out.PublishedCheckpoint = st.Publications[len(st.Publications)-1].Seq, st.Published.Checkpoint
	}) {
		return fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	if !published {
		return fmt.Errorf("%w: tournament %s has published no classification", errNotFound, t)
	}
	out.Tournament, out.Player, out.Index = t, player, out.Seq-1
	line, err := s.eventLine(r, t, out.Seq)
	if err == nil {
		err = fmt.Errorf("%w: %s has no row in the published classification of %s", errNotFound, player, t)
		rows, _, rerr := proof.Rows(line)
		for _, row := range rows {
			if row.Player == player && rerr == nil {
				out.Row, err = row, nil
			}
		}
	}
	if err == nil {
		out.Line = string(line)
		out.Checkpoint, out.Size, err = s.proofCheckpoint(t, out.Seq, false)
	}
	if err == nil {
		out.Hashes, err = checkpoint.InclusionProof(out.Index, out.Size, s.opts.Store.NodeGetter(t))
	}
	if err == nil {
		out.LeafHash = checkpoint.LeafHash(line)
	}
	if err == nil && out.PublishedCheckpoint != "" {
		if c, _, perr := checkpoint.OpenUnverified([]byte(out.PublishedCheckpoint)); perr == nil && c.Size >= 1 && c.Size <= out.Size {
			out.Consistency, err = checkpoint.ConsistencyProof(c.Size, out.Size, s.opts.Store.NodeGetter(t))
		}
	}
	if err != nil {
		return err
	}
	if out.Hashes == nil {
		out.Hashes = [][]byte{}
	}
	if out.Consistency == nil {
		out.Consistency = [][]byte{}
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", t+"-"+player+"-proof.json"))
	writeJSON(w, http.StatusOK, out)
	return nil
}

// eventLine reads the stored line of event seq of t.
func (s *Server) eventLine(r *http.Request, t string, seq uint64) ([]byte, error) {
	refs, err := s.opts.Store.Commits(t, seq, 1)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 || refs[0].First > seq || refs[0].Last < seq {
		return nil, fmt.Errorf("%w: event %d of %s", errNotFound, seq, t)
	}
	m, err := s.opts.Log.Get(r.Context(), refs[0].StreamSeq)
	if err != nil {
		return nil, err
	}
	c, err := events.DecodeCommit(m.Data)
	if err != nil {
		return nil, err
	}
	for i, env := range c.Envelopes {
		if env.Seq == seq {
			return c.Lines[i], nil
		}
	}
	return nil, fmt.Errorf("%w: event %d of %s", errNotFound, seq, t)
}
