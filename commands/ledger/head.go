package ledger

import (
	"log/slog"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/pebble"
)

// RecordedHead is the Merkle head (size and root) the directory recorded
// for tournament t: what the log read back from the directory must pass
// through. It is the head acknowledged of t (Heads), or, when none is
// recorded, the one the projections recorded. ok is false when neither
// has seen t. No server may run on the directory.
func (l Layout) RecordedHead(t string) (size uint64, root []byte, ok bool, err error) {
	heads, err := ReadHeads(l.Heads())
	if err != nil {
		return 0, nil, false, err
	}
	if h, ok := heads[t]; ok {
		return h.Size, h.Root, true, nil
	}
	st, err := pebble.Open(l.Projections(), slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, nil, false, err
	}
	defer st.Close()
	ref, ok, err := st.LastCommit(t)
	if err != nil || !ok {
		return 0, nil, false, err
	}
	root, err = checkpoint.RootAt(ref.Last, st.NodeGetter(t))
	return ref.Last, root, err == nil, err
}
