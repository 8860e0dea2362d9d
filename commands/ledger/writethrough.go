package ledger

import (
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// tournamentLock is one tournament's lock: the holder of ch (a slot of
// one) alone decides for the tournament in this process, and alone reads
// and writes wt.
type tournamentLock struct {
	ch chan struct{}
	wt *writeThroughState // nil: decide on the state folded from the log
	// without counts the commits acknowledged since wt was dropped, none
	// of them folded into a write-through state (see copyAfter).
	without int
	// pending maps the idempotency keys of the commits this process
	// appended and acknowledged that the state had not applied when last
	// looked at, to their stream sequences (Ledger.find).
	pending map[string]uint64
}

// copyAfter is how many commits a tournament goes without a write-through
// state after it was dropped (another process appended) before one is
// copied from the projections again. A copy costs as much as a snapshot of
// the tournament: where several processes take turns appending to one
// tournament, each would copy the state for every command, only to drop it
// at the next command of another process.
const copyAfter = 4

// drop drops the write-through state.
func (lk *tournamentLock) drop() {
	if lk.wt != nil {
		lk.wt, lk.without = nil, 0
	}
}

func (lk *tournamentLock) unlock() { <-lk.ch }

// writeThroughState is a tournament's state as the commits this process
// appended and JetStream acknowledged left it, folded from their stored
// bytes at acknowledgement, before the projections apply them.
//
// Why it may be decided on: an append expects the tournament's last stream
// sequence to be the one the state was decided on (LastStreamSeq), and
// JetStream stores it only then. So when the append is acknowledged, no
// other commit of the tournament stands between the state and the new
// commit, and the state folded with it is the state the log holds,
// exactly as the projections will fold it (the same bytes, the same
// decoding, the same Apply). What this process cannot see this way is
// another process appending after it: the projections bring that commit,
// and the state is dropped as soon as the projections' state is ahead of
// it, or an append conflicts, or an append's outcome is unknown; the next
// command then decides on the state folded from the log, as after a
// restart, and the state is copied from it again at the next
// acknowledgement.
type writeThroughState struct {
	t    *projections.Tournament
	tree *checkpoint.Tree
}

// head is the acknowledged head wt stands at.
func (wt *writeThroughState) head() AckedHead {
	h := wt.tree.Head()
	return AckedHead{Tournament: wt.t.ID, Size: h.Size, StreamSeq: wt.t.LastStreamSeq, Root: h.Root, Last: h.Last}
}

// current returns the tournament's write-through state if it may be
// decided on: it holds at least what the projections' state holds. A
// state the projections have overtaken (another process appended) is
// dropped.
func (l *Ledger) current(lk *tournamentLock, t string) *writeThroughState {
	if lk.wt == nil {
		return nil
	}
	if l.opts.State.LastStreamSeq(t) > lk.wt.t.LastStreamSeq {
		lk.drop()
	}
	return lk.wt
}

// writeThrough folds the commit d stored into the tournament's
// write-through state, copying the state from the projections' first when
// the decision was not taken on it, and reports whether the tournament may
// be unlocked at once. When it may not (the state cannot be had, or the
// commit does not fold: it would not fold in the projections either, and
// they stop), the tournament stays locked until the projections have
// applied the commit, as without a write-through state.
func (l *Ledger) writeThrough(lk *tournamentLock, t string, d decision) bool {
	wt := lk.wt
	if wt == nil || wt.t.LastStreamSeq != d.expected {
		if lk.without < copyAfter {
			lk.drop()
			lk.without++
			return false
		}
		st, tree, ok, err := l.opts.State.Copy(t)
		switch {
		case err != nil:
			l.opts.Logger.Warn("write-through state: copy from the projections", "tournament", t, "err", err)
			lk.drop()
			return false
		case !ok:
			st, tree = projections.New(t), checkpoint.NewTree()
		}
		wt = &writeThroughState{t: st, tree: tree}
	}
	switch wt.t.LastStreamSeq {
	case d.appended:
		// The projections were quicker: the copy holds the commit.
		lk.wt = wt
		return true
	case d.expected:
	default:
		// The projections' state is at neither end of the commit (it may
		// lag the state decided on, after a restart): no state to fold into.
		lk.drop()
		return false
	}
	if err := fold(wt, d); err != nil {
		l.opts.Logger.Warn("write-through state: fold", "tournament", t, "stream_seq", d.appended, "err", err)
		lk.drop()
		return false
	}
	lk.wt = wt
	return true
}

// fold applies the commit d stored to wt as the projections apply it
// (FoldCommit).
func fold(wt *writeThroughState, d decision) error {
	if err := FoldCommit(wt.t, wt.tree, d.body); err != nil {
		return err
	}
	wt.t.LastStreamSeq = d.appended
	return nil
}

// FoldCommit applies a stored commit to a tournament's state and its
// Merkle tree as the projections apply it: decoded from its stored bytes
// (events.DecodeCommitForFold), folded event by event, each stored line a
// leaf of the tree. The write-through state and the generators of logs
// fold with it.
func FoldCommit(t *projections.Tournament, tree *checkpoint.Tree, body []byte) error {
	c, evs, err := events.DecodeCommitForFold(body)
	if err != nil {
		return err
	}
	for i, env := range c.Envelopes {
		if err := t.Apply(env, evs[i], nil); err != nil {
			return err
		}
		if err := tree.Append(c.Lines[i], nil); err != nil {
			return err
		}
	}
	return nil
}

// Split is where one accepted command's time went, for the Observer.
type Split struct {
	// LockWait is the wait for the tournament's lock.
	LockWait time.Duration
	// Decide is deciding (every attempt), sealing and chaining included.
	Decide time.Duration
	// Append is appending until JetStream's acknowledgement (every attempt).
	Append time.Duration
	// AckToUnlock is from the acknowledgement until the tournament is
	// unlocked: folding the commit into the write-through state, or
	// waiting for the projections to apply it when there is none.
	AckToUnlock time.Duration
	// Record is recording the tournament's acknowledged head (its fsync,
	// shared with the heads of commands answered together), after the
	// unlock with a write-through state; without one, from the
	// acknowledgement, the wait for the projections included.
	Record time.Duration
	// WriteThrough: the command was decided on the tournament's
	// write-through state, not on the projections'.
	WriteThrough bool
}
