package store

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// snapshotter stores the tournament states a restart resumes from, and
// restores them at start. A tournament changed since its last snapshot is
// due another once its unsnapshotted commits span SnapshotEvery stream
// sequences or an eighth of its events, whichever is more (see
// RunnerOptions.SnapshotEvery). It has no lock: the runner's goroutine
// alone calls it, between batches, so the states it encodes do not move.
type snapshotter struct {
	store   *Store
	states  *stateCache
	flusher *flusher // writes the rankings of the states snapshotted
	every   uint64
	observe func(tournament string, bytes int) // RunnerOptions.ObserveSnapshot

	// dirty maps a tournament changed since its stored snapshot to the
	// stream sequence of its first commit not in that snapshot.
	dirty map[string]uint64
}

func newSnapshotter(store *Store, states *stateCache, f *flusher, opts RunnerOptions) *snapshotter {
	return &snapshotter{store: store, states: states, flusher: f, every: opts.SnapshotEvery, observe: opts.ObserveSnapshot,
		dirty: map[string]uint64{}}
}

// snapshotChunk is the size of the pieces a snapshot is stored in: a large
// tournament's state (hundreds of MB at a million events) is never one
// buffer.
const snapshotChunk = 1 << 20

// snapshotParts is the size of the batches a snapshot's pieces are
// committed in: a state of hundreds of MB is never one batch (a buffer
// faulted in page by page, then held by Pebble until it is flushed).
const snapshotParts = 4 << 20

// restore puts the tournament states of the stored snapshots, with their
// Merkle trees, into the state cache, and returns the stream sequence
// every commit up to which is in a snapshot (sys/snapshot). The commits
// after it that are in one too (those of tournaments snapshotted later)
// are skipped as they come (stateCache.forCommit).
func (s *snapshotter) restore() (uint64, error) {
	snap, err := s.store.getU64(keySnapshot)
	if err != nil {
		return 0, err
	}
	var ts []*projections.Tournament
	if err := s.store.snapshots(func(t *projections.Tournament) { ts = append(ts, t) }); err != nil {
		return 0, err
	}
	for _, t := range ts {
		tree, err := checkpoint.Resume(t.Seq, s.store.NodeGetter(t.ID))
		if err != nil {
			return 0, fmt.Errorf("pebble: merkle tree of %s: %w", t.ID, err)
		}
		s.states.put(t, tree)
	}
	return snap, nil
}

// changed records that a commit of tournament id at stream sequence seq
// was folded, unless an earlier one since its snapshot was.
func (s *snapshotter) changed(id string, seq uint64) {
	if _, ok := s.dirty[id]; !ok {
		s.dirty[id] = seq
	}
}

// write stores and commits, as of stream sequence at, the state of every
// tournament due a snapshot, with its standings and classification if
// stale: what a restart resumes from must be complete. sys/snapshot
// records where a restart resumes: just before the first commit of a
// tournament that is still not in its snapshot.
//
// A state is written as the pieces of a new generation, committed in
// parts; one last batch then makes each new generation current, deletes
// the pieces of every other one and moves sys/snapshot. A crash before
// that batch leaves the previous snapshots and resume point in force.
func (s *snapshotter) write(at uint64) error {
	due, resume := s.due(at)
	sizes, err := s.writePieces(due, at)
	if err != nil {
		return err
	}
	b := s.store.db.NewBatch()
	defer b.Close()
	for _, id := range due {
		gen := prefixSnapGen(id, at)
		// Every other generation goes, and the pieces of an older store.
		if err := b.DeleteRange(prefixSnap(id), gen, nil); err != nil {
			return err
		}
		if err := b.DeleteRange(upperBound(gen), upperBound(prefixSnap(id)), nil); err != nil {
			return err
		}
		if err := b.Delete(keySnap(id), nil); err != nil {
			return err
		}
		if err := b.Set(keySnapCur(id), u64(at), nil); err != nil {
			return err
		}
	}
	if err := b.Set(keySnapshot, u64(resume), nil); err != nil {
		return err
	}
	commit := func() error {
		if err := b.Commit(pebble.NoSync); err != nil {
			return fmt.Errorf("pebble: commit snapshots at %d: %w", at, err)
		}
		return nil
	}
	if len(due) > 0 {
		err = s.flusher.write(b, due, commit)
	} else {
		err = commit()
	}
	if err != nil {
		return err
	}
	for i, id := range due {
		delete(s.dirty, id)
		if s.observe != nil {
			s.observe(id, sizes[i])
		}
	}
	return nil
}

// due returns the tournaments due a snapshot at stream sequence at, in id
// order, and the stream sequence a restart may resume after once they are
// stored.
func (s *snapshotter) due(at uint64) (due []string, resume uint64) {
	resume = at
	for _, id := range slices.Sorted(maps.Keys(s.dirty)) {
		since := s.dirty[id]
		e := s.states.get(id)
		e.mu.RLock()
		seq := e.t.Seq
		e.mu.RUnlock()
		if span := at - since + 1; span >= max(s.every, seq/8) {
			due = append(due, id)
		} else {
			resume = min(resume, since-1)
		}
	}
	return due, resume
}

// writePieces stores the states of due as the pieces of generation at,
// committed in parts, and returns their sizes in bytes.
func (s *snapshotter) writePieces(due []string, at uint64) ([]int, error) {
	parts := &viewBatch{db: s.store.db, b: s.store.db.NewBatch(), parts: snapshotParts}
	defer func() { parts.b.Close() }()
	sizes := make([]int, len(due))
	for i, id := range due {
		e := s.states.get(id)
		gen := prefixSnapGen(id, at)
		// Pieces of this generation left by an attempt cut short go
		// first: a shorter state would otherwise read them as its tail.
		if err := parts.b.DeleteRange(gen, upperBound(gen), nil); err != nil {
			return nil, err
		}
		cw := &chunkWriter{out: parts, prefix: gen}
		e.mu.RLock()
		err := e.t.WriteSnapshot(cw)
		e.mu.RUnlock()
		if err == nil {
			err = cw.flush()
		}
		if err != nil {
			return nil, fmt.Errorf("pebble: snapshot %s: %w", id, err)
		}
		sizes[i] = cw.n
	}
	if err := parts.b.Commit(pebble.NoSync); err != nil {
		return nil, fmt.Errorf("pebble: commit snapshots at %d: %w", at, err)
	}
	return sizes, nil
}

// chunkWriter stores what is written to it as the pieces of a tournament's
// snapshot, <prefix><chunk>, committing them in parts.
type chunkWriter struct {
	out    *viewBatch
	prefix []byte // snap/<T>/g<gen>/
	size   int    // of a piece; snapshotChunk when 0
	buf    []byte
	i      int // pieces stored
	n      int // bytes written
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	if w.size == 0 {
		w.size = snapshotChunk
	}
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, w.size)
		}
		k := min(len(p), w.size-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		w.n += k
		if len(w.buf) == w.size {
			if err := w.flush(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

// flush stores the piece being filled.
func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.out.set(keySnapChunk(w.prefix, w.i), w.buf)
	w.i++
	w.buf = w.buf[:0]
	return err
}
