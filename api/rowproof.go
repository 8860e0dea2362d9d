package api

import (
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"github.com/referto/referto/events/proof"
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
	out, err := s.reader.RowProof(r.Context(), t, player, func(seq uint64) (string, uint64, error) {
		return s.proofCheckpoint(t, seq, false)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", t+"-"+player+"-proof.json"))
	writeJSON(w, http.StatusOK, out)
	return nil
}
