package replay

import (
	"bytes"
	"fmt"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
)

// ProveFromExport makes the proof of player's row in the last
// classification published in an export (in memory), under the export's
// signed checkpoint, which must be of the whole export.
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
		if env.Type == events.TypeClassificationPublished {
			if _, ev, err := events.DecodeLine(l); err == nil && hasRow(ev, player) {
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

func hasRow(ev events.Event, player string) bool {
	pub, _ := ev.(events.ClassificationPublished)
	for _, r := range pub.Rows {
		if r.Player == player {
			return true
		}
	}
	return false
}
