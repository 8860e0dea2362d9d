package api

import (
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// rowProof is the proof that one row of the published classification is
// in the tournament's log: the row, the stored line of the publication
// that states it, that line's RFC 6962 audit path in the log of Size
// events, the checkpoint of that log signed now, and the consistency
// proof from the checkpoint the publication embeds (the log it was
// derived from) to it. With the server's verifier key (GET /v1/keys) it
// is checked without trusting the server: the row is in the line; the
// line's leaf hash, SHA-256(0x00 ‖ line), and the audit path give the
// root of the signed checkpoint; the consistency proof ties the embedded
// checkpoint to it.
type rowProof struct {
	Tournament          string                   `json:"tournament"`
	Player              string                   `json:"player"`
	Row                 events.ClassificationRow `json:"row"`
	Seq                 uint64                   `json:"seq"`
	Line                string                   `json:"line"`
	Index               uint64                   `json:"index"`
	Size                uint64                   `json:"size"`
	LeafHash            []byte                   `json:"leaf_hash"`
	Hashes              [][]byte                 `json:"hashes"`
	Checkpoint          string                   `json:"checkpoint"`
	PublishedCheckpoint string                   `json:"published_checkpoint,omitempty"`
	Consistency         [][]byte                 `json:"consistency"`
}

// getRowProof serves the proof of the player's row of the last published
// classification, as a file to download.
func (s *Server) getRowProof(w http.ResponseWriter, r *http.Request) {
	t, player := mux.Vars(r)["t"], mux.Vars(r)["player"]
	var out rowProof
	found, published := false, false
	if !s.opts.Runner.Read(t, func(st *projections.Tournament) {
		if st.Published == nil || len(st.Publications) == 0 {
			return
		}
		published = true
		out.Seq, out.PublishedCheckpoint = st.Publications[len(st.Publications)-1].Seq, st.Published.Checkpoint
		for _, row := range st.Published.Rows {
			if row.Player == player {
				out.Row, found = row, true
			}
		}
	}) {
		s.writeError(w, r, fmt.Errorf("%w: tournament %s", errNotFound, t))
		return
	}
	switch {
	case !published:
		s.writeError(w, r, fmt.Errorf("%w: tournament %s has published no classification", errNotFound, t))
		return
	case !found:
		s.writeError(w, r, fmt.Errorf("%w: %s has no row in the published classification of %s", errNotFound, player, t))
		return
	}
	out.Tournament, out.Player, out.Index = t, player, out.Seq-1
	line, err := s.eventLine(r, t, out.Seq)
	if err == nil {
		out.Line = string(line)
		out.Size, err = s.logSize(t)
	}
	if err == nil {
		out.Hashes, err = checkpoint.InclusionProof(out.Index, out.Size, s.opts.Store.NodeGetter(t))
	}
	if err == nil {
		out.LeafHash = checkpoint.LeafHash(line)
		out.Checkpoint, err = s.signedCheckpoint(t, out.Size)
	}
	if err == nil && out.PublishedCheckpoint != "" {
		if c, _, perr := checkpoint.OpenUnverified([]byte(out.PublishedCheckpoint)); perr == nil && c.Size >= 1 && c.Size <= out.Size {
			out.Consistency, err = checkpoint.ConsistencyProof(c.Size, out.Size, s.opts.Store.NodeGetter(t))
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if out.Hashes == nil {
		out.Hashes = [][]byte{}
	}
	if out.Consistency == nil {
		out.Consistency = [][]byte{}
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", t+"-"+player+"-proof.json"))
	writeJSON(w, http.StatusOK, out)
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
