package replay

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
)

// ProveFromExport makes the proof of player's row in the last
// classification published in an export (in memory), or imported from a
// club workbook, under the export's signed checkpoint, which must be of
// the whole export.
func ProveFromExport(export, signed []byte, player string) (*proof.Proof, error) {
	cp, _, err := checkpoint.OpenUnverified(signed)
	if err != nil {
		return nil, err
	}
	nodes := map[checkpoint.NodeID][]byte{}
	tree := checkpoint.NewTree()
	var line []byte
	var index uint64
	tournament := ""
	var lineErr error // fn's errors, apart from an export that does not split
	err = events.CommitLines(export, func(l []byte) error {
		env, err := events.DecodeEnvelope(l)
		if err != nil {
			lineErr = fmt.Errorf("line %d: %w", tree.Size()+1, err)
			return lineErr
		}
		tournament = env.Tournament
		if env.Type == events.TypeClassificationPublished || env.Type == events.TypeClassificationImported {
			if hasRow(l, player) {
				line, index = l, tree.Size()
			}
		}
		lineErr = tree.Append(l, func(id checkpoint.NodeID, h []byte) { nodes[id] = h })
		return lineErr
	})
	if err != nil && err != lineErr {
		err = fmt.Errorf("%w: the last line is not newline-terminated", ErrLog)
	}
	if err != nil {
		return nil, err
	}
	if line == nil {
		return nil, fmt.Errorf("no published classification in the export has a row of player %s", player)
	}
	if cp.Size != tree.Size() || !bytes.Equal(cp.Root, tree.Root()) || cp.Origin != checkpoint.Origin(tournament) {
		return nil, fmt.Errorf("the checkpoint (%s, size %d) is not the export's (%s, %d events)", cp.Origin, cp.Size, checkpoint.Origin(tournament), tree.Size())
	}
	path, err := checkpoint.InclusionProof(index, tree.Size(), func(ids []checkpoint.NodeID) ([][]byte, error) {
		out := make([][]byte, len(ids))
		for i, id := range ids {
			out[i] = nodes[id]
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return proof.New(tournament, string(signed), index, line, path, player)
}

// hasRow reports whether the publication stored as line has a row of
// player.
func hasRow(line []byte, player string) bool {
	rows, _, err := proof.Rows(line)
	for _, r := range rows {
		if r.Player == player {
			return err == nil
		}
	}
	return false
}

// ProofReport is VerifyProofFile's verdict on a proof file.
type ProofReport struct {
	// File is the proof file; Refused is why it proves nothing (nil when
	// it proves Result).
	File    string
	Refused error
	*proof.Result
	// Key and Witness are the keys it was checked with (Witness nil when
	// none was given).
	Key, Witness note.Verifier
}

// VerifyProofFile checks the proof file at path offline (proof.Verify)
// with the trusted key and, when given, the witness key, each the key
// itself or a file holding it (--key, --witness). An error is returned for
// a file or key that cannot be read; a refusal is in the report.
func VerifyProofFile(path, key, witness string) (*ProofReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &ProofReport{File: path}
	if r.Key, r.Witness, err = readKeys(key, witness); err != nil {
		return nil, err
	}
	r.Result, r.Refused = proof.Verify(b, r.Key, r.Witness)
	return r, nil
}

// Print writes what the proof proved, step by step, and the row, or why
// it was refused; ok is false when it was.
func (r *ProofReport) Print(w io.Writer) (ok bool) {
	if r.Refused != nil {
		fmt.Fprintf(w, "verdict: REFUSED %s: %v\n", r.File, r.Refused)
		return false
	}
	p := r.Proof
	fmt.Fprintf(w, "ok   checkpoint of %s: %d events, signed by %s\n", p.Tournament, r.Checkpoint.Size, r.Key.Name())
	switch {
	case r.Witnessed:
		fmt.Fprintf(w, "ok   cosigned by the witness %s\n", r.Witness.Name())
	case p.Cosignatures != "":
		fmt.Fprintln(w, "note a witness cosigned it, but no --witness key was given to check it")
	}
	if r.Imported {
		fmt.Fprintf(w, "ok   event %d is the classification imported from a club workbook (the file's standings, as published), included in the signed log\n", p.Index+1)
		fmt.Fprintf(w, "verdict: OK: %s (%s) ranked %d, %.2f points, in the standings of %s's workbook\n", p.Row.Player, p.Row.Name, p.Row.Rank, float64(p.Row.Total)/100, p.Tournament)
		return true
	}
	fmt.Fprintf(w, "ok   event %d is the published classification, included in the signed log\n", p.Index+1)
	fmt.Fprintf(w, "verdict: OK: %s (%s) ranked %d, %s, %.2f points, in %s\n", p.Row.Player, p.Row.Name, p.Row.Rank, p.Row.Phase, float64(p.Row.Total)/100, p.Tournament)
	return true
}

// ProveFile writes to out the proof file of player's row in the last
// classification published in the export log at path (ProveFromExport),
// under the signed checkpoint in the file cp (default: the one beside
// the log, FindCheckpoint); out defaults to <tournament>-<player>.proof.json.
// It returns the proof and the file it is in.
func ProveFile(path, cp, player, out string) (*proof.Proof, string, error) {
	if beside, ok := FindCheckpoint(path); cp == "" && ok {
		cp = beside
	}
	if cp == "" {
		return nil, "", fmt.Errorf("no signed checkpoint beside %s: give --checkpoint", path)
	}
	export, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	signed, err := os.ReadFile(cp)
	if err != nil {
		return nil, "", err
	}
	p, err := ProveFromExport(export, signed, player)
	if err != nil {
		return nil, "", err
	}
	if out == "" {
		out = p.Tournament + "-" + player + ".proof.json"
	}
	return p, out, os.WriteFile(out, p.Encode(), 0o644)
}
