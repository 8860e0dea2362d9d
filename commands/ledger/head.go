package ledger

import (
	"log/slog"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/pebble"
)

// RecordedHead is the Merkle head (size and root) the projections in the
// layout's directory recorded for tournament t: what the log read back
// from the directory must pass through. ok is false when they have not
// seen t. No server may run on the directory.
func (l Layout) RecordedHead(t string) (size uint64, root []byte, ok bool, err error) {
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
