package node

import (
	"log/slog"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/store"
)

// RecordedHead is the Merkle head (size and root) the directory recorded
// for tournament t: what the log read back from the directory must pass
// through. It is the one the projections recorded, or the head
// acknowledged of t (Heads) when that is longer (projections rebuilt from a
// log that lost events) or the projections have none. ok is false when
// neither has seen t. No server may run on the directory.
func (l Layout) RecordedHead(t string) (size uint64, root []byte, ok bool, err error) {
	heads, err := ReadHeads(l.Heads())
	if err != nil {
		return 0, nil, false, err
	}
	acked, isAcked := heads[t]
	size, root, ok, err = l.projectedHead(t)
	if err == nil && isAcked && (!ok || acked.Size > size) {
		return acked.Size, acked.Root, true, nil
	}
	return size, root, ok, err
}

// projectedHead is the head the projections recorded for t.
func (l Layout) projectedHead(t string) (size uint64, root []byte, ok bool, err error) {
	st, err := store.Open(l.Projections(), slog.New(slog.DiscardHandler))
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
