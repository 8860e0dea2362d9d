package projections

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
)

// The tamper evidence a Reader reads: a tournament's Merkle tree as the
// Store keeps it (its size, its root at a size, inclusion and consistency
// proofs), its log exported line for line, and the proofs of a row of its
// published classification. Signing is not a read: the caller signs the
// checkpoints these proofs are made under.

// Head is tournament t's last commit: its tree's size is Head's Last.
func (r *Reader) Head(t string) (CommitRef, error) {
	ref, ok, err := r.opts.Store.LastCommit(t)
	if err == nil && !ok {
		err = fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	return ref, err
}

// Size is the number of tournament t's events: its Merkle tree's size.
func (r *Reader) Size(t string) (uint64, error) {
	head, err := r.Head(t)
	return head.Last, err
}

// RootAt is the Merkle root of tournament t's first size events.
func (r *Reader) RootAt(t string, size uint64) ([]byte, error) {
	return checkpoint.RootAt(size, r.opts.Store.NodeGetter(t))
}

// InclusionProof is the RFC 6962 audit path of event seq (leaf seq-1) in
// the tree of tournament t's first size events, and the leaf's hash.
func (r *Reader) InclusionProof(t string, seq, size uint64) (leaf []byte, path [][]byte, err error) {
	nodes := r.opts.Store.NodeGetter(t)
	path, err = checkpoint.InclusionProof(seq-1, size, nodes)
	if err != nil {
		return nil, nil, err
	}
	hs, err := nodes([]checkpoint.NodeID{checkpoint.LeafID(seq - 1)})
	if err != nil {
		return nil, nil, err
	}
	return hs[0], nonNil(path), nil
}

// ConsistencyProof is the RFC 6962 proof that tournament t's tree of from
// events is a prefix of its tree of to.
func (r *Reader) ConsistencyProof(t string, from, to uint64) ([][]byte, error) {
	path, err := checkpoint.ConsistencyProof(from, to, r.opts.Store.NodeGetter(t))
	return nonNil(path), err
}

func nonNil(path [][]byte) [][]byte {
	if path == nil {
		return [][]byte{}
	}
	return path
}

// Export calls fn with each commit of tournament t's log, from its first,
// exactly as stored (its events' lines, newline-terminated), until it
// gave size events. With root, the lines are checked as they go out: a
// log whose first size events do not have that Merkle root is cut off
// with an error, which names the damage found there when there is some.
// At most Exports exports read the log at once: one more waits FoldWait
// for a slot, then is refused (events.ErrUnavailable) before fn is called.
func (r *Reader) Export(ctx context.Context, t string, size uint64, root []byte, fn func(commit []byte) error) error {
	release, err := r.exports.Take(ctx, "exports being read from the log")
	if err != nil {
		return err
	}
	defer release()
	head, err := r.Head(t)
	var first []CommitRef
	if err == nil {
		first, err = r.opts.Store.Commits(t, 1, 1)
	}
	if err == nil && len(first) == 0 {
		err = fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	if err != nil {
		return err
	}
	tree := checkpoint.NewTree()
	var n uint64
	done := errors.New("done")
	err = r.opts.Log.Scan(ctx, first[0].StreamSeq, head.StreamSeq, t, func(m events.StoredCommit) error {
		if err := events.CommitLines(m.Data, func(line []byte) error {
			n++
			if root == nil {
				return nil
			}
			return tree.Append(line, nil)
		}); err != nil {
			return err
		}
		if err := fn(m.Data); err != nil {
			return err
		}
		if n >= size { // a checkpoint's size ends a commit
			return done
		}
		return nil
	})
	if errors.Is(err, done) {
		err = nil
	}
	if err == nil && root != nil && (tree.Size() != size || !bytes.Equal(tree.Root(), root)) {
		err = fmt.Errorf("the log's %d events of %s do not have the Merkle root of the %d the projections applied", tree.Size(), t, size)
	}
	if err != nil {
		return r.damaged(ctx, t, err)
	}
	return nil
}

// EventLine is event seq of tournament t as its line is stored in the log.
func (r *Reader) EventLine(ctx context.Context, t string, seq uint64) ([]byte, error) {
	refs, err := r.opts.Store.Commits(t, seq, 1)
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 || refs[0].First > seq || refs[0].Last < seq {
		return nil, fmt.Errorf("%w: event %d of %s", ErrNotFound, seq, t)
	}
	c, err := r.commit(ctx, t, refs[0])
	if err != nil {
		return nil, err
	}
	for i, env := range c.Envelopes {
		if env.Seq == seq {
			return c.Lines[i], nil
		}
	}
	return nil, fmt.Errorf("%w: event %d of %s", ErrNotFound, seq, t)
}

// Under is the signed checkpoint a proof of event seq is made under, and
// its size: the caller's to sign, or to find cosigned.
type Under func(seq uint64) (note string, size uint64, err error)

// publication is the seq of tournament t's last published classification
// and the checkpoint it was published under; 0 when it has published
// none (with withCheckpoint, none with a stored checkpoint).
func (r *Reader) publication(t string, withCheckpoint bool) (uint64, string, error) {
	var seq uint64
	var cp string
	if !r.opts.Memory.Read(t, func(st *Tournament) {
		if n := len(st.Publications); n > 0 && (st.Published != nil || !withCheckpoint) {
			seq = st.Publications[n-1].Seq
			if st.Published != nil {
				cp = st.Published.Checkpoint
			}
		}
	}) {
		return 0, "", fmt.Errorf("%w: tournament %s", ErrNotFound, t)
	}
	if seq == 0 {
		return 0, "", fmt.Errorf("%w: tournament %s has published no classification", ErrNotFound, t)
	}
	return seq, cp, nil
}

// PlayerProof is the proof (proof.Proof) of player's row in tournament
// t's last published classification, under the checkpoint under gives.
func (r *Reader) PlayerProof(ctx context.Context, t, player string, under Under) (*proof.Proof, error) {
	seq, _, err := r.publication(t, false)
	if err != nil {
		return nil, err
	}
	note, size, err := under(seq)
	var line []byte
	if err == nil {
		line, err = r.EventLine(ctx, t, seq)
	}
	var path [][]byte
	if err == nil {
		path, err = checkpoint.InclusionProof(seq-1, size, r.opts.Store.NodeGetter(t))
	}
	if err != nil {
		return nil, err
	}
	pf, err := proof.New(t, note, seq-1, line, path, player)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	return pf, nil
}

// RowProof is the proof (proof.RowProof) of player's row of tournament t's
// last published classification (or the one imported from a club
// workbook), the row as the publication's line states it, under the
// checkpoint under gives, with the proof that the checkpoint it was
// published under is a prefix of that one.
func (r *Reader) RowProof(ctx context.Context, t, player string, under Under) (proof.RowProof, error) {
	var out proof.RowProof
	seq, published, err := r.publication(t, true)
	if err != nil {
		return out, err
	}
	out.Tournament, out.Player, out.Seq, out.Index, out.PublishedCheckpoint = t, player, seq, seq-1, published
	line, err := r.EventLine(ctx, t, seq)
	if err == nil {
		err = fmt.Errorf("%w: %s has no row in the published classification of %s", ErrNotFound, player, t)
		rows, _, rerr := proof.Rows(line)
		for _, row := range rows {
			if row.Player == player && rerr == nil {
				out.Row, err = row, nil
			}
		}
	}
	if err == nil {
		out.Line, out.LeafHash = string(line), checkpoint.LeafHash(line)
		out.Checkpoint, out.Size, err = under(seq)
	}
	if err == nil {
		out.Hashes, err = checkpoint.InclusionProof(out.Index, out.Size, r.opts.Store.NodeGetter(t))
	}
	out.Consistency = [][]byte{}
	if err == nil && published != "" {
		if c, _, perr := checkpoint.OpenUnverified([]byte(published)); perr == nil && c.Size >= 1 && c.Size <= out.Size {
			out.Consistency, err = r.ConsistencyProof(t, c.Size, out.Size)
		}
	}
	out.Hashes = nonNil(out.Hashes)
	return out, err
}
