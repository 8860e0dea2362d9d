package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// stateCache is what the command side decides against: the in-memory state
// of every tournament with the head of its Merkle tree, the last stream
// sequence applied (folded and committed to the store), and whether the
// runner has caught up with the log it found at start or has stopped.
// WaitFor and WaitReady block on it.
//
// Its one lock, mu, guards the map of tournaments; each tournament's state
// has its own (entry.mu), written by the projector alone. The sequences
// are atomics and the wake-up a channel swapped atomically, so that a
// reader never waits for the projector to finish a batch.
type stateCache struct {
	mu     sync.RWMutex // guards states
	states map[string]*entry

	// applied is the last stream sequence folded into memory and
	// committed to the store. After a restart it starts at the snapshot,
	// below what the store already holds, and catches up.
	applied atomic.Uint64
	target  atomic.Uint64 // the log's last sequence when the runner started
	started atomic.Bool
	signal  atomic.Pointer[signal]
}

// entry is one tournament's state. Its lock is taken for writing by the
// projector as it folds a commit, for reading by everyone else.
type entry struct {
	mu   sync.RWMutex
	t    *projections.Tournament
	tree *checkpoint.Tree // the tournament's Merkle tree, t.Seq leaves
}

// signal is what a waiter blocks on: ch is closed, and the signal
// replaced, whenever applied moves or the runner stops. err, why the
// runner stopped, is carried from one signal to the next once set.
type signal struct {
	ch  chan struct{}
	err error
}

func newStateCache() *stateCache {
	c := &stateCache{states: map[string]*entry{}}
	c.signal.Store(&signal{ch: make(chan struct{})})
	return c
}

// Applied returns the last stream sequence folded into memory and
// committed to the store.
func (c *stateCache) Applied() uint64 { return c.applied.Load() }

// Lag returns how far the store is behind the log's sequence seen at
// start, or 0 once caught up.
func (c *stateCache) Lag() uint64 {
	if a, t := c.applied.Load(), c.target.Load(); t > a {
		return t - a
	}
	return 0
}

// Ready reports whether the runner has caught up with the log as it was at
// start and has not stopped.
func (c *stateCache) Ready() bool {
	return c.started.Load() && c.Err() == nil && c.applied.Load() >= c.target.Load()
}

// Err returns why the runner stopped, or nil while it runs.
func (c *stateCache) Err() error { return c.signal.Load().err }

// WaitFor blocks until the store reflects stream sequence seq, the runner
// stops, or ctx is done.
func (c *stateCache) WaitFor(ctx context.Context, seq uint64) error {
	for {
		s := c.signal.Load()
		if c.applied.Load() >= seq {
			return nil
		}
		if s.err != nil {
			return fmt.Errorf("%w: %v", projections.ErrNotReady, s.err)
		}
		select {
		case <-s.ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitReady blocks until Ready or the runner stops or ctx is done.
func (c *stateCache) WaitReady(ctx context.Context) error {
	for {
		s := c.signal.Load()
		if s.err != nil {
			return fmt.Errorf("%w: %v", projections.ErrNotReady, s.err)
		}
		if c.Ready() {
			return nil
		}
		select {
		case <-s.ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ReadHead calls fn with the current state of tournament id and the head
// of its Merkle tree under the tournament's read lock, and reports whether
// the tournament exists. fn must not keep the state.
func (c *stateCache) ReadHead(id string, fn func(t *projections.Tournament, h checkpoint.Head)) bool {
	e := c.get(id)
	if e == nil {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	fn(e.t, e.tree.Head())
	return true
}

// get returns the entry of tournament id, nil if there is none.
func (c *stateCache) get(id string) *entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.states[id]
}

// forCommit returns the entry a commit at stream sequence seq of
// tournament id is folded into, created empty for a tournament's first
// commit; nil when the entry already holds the commit (it came from a
// snapshot taken after the point the runner resumed from). Only the
// projector calls it: it alone writes LastStreamSeq, read here without
// the entry's lock.
func (c *stateCache) forCommit(id string, seq uint64) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.states[id]
	if e != nil && seq <= e.t.LastStreamSeq {
		return nil
	}
	if e == nil {
		e = &entry{t: projections.New(id), tree: checkpoint.NewTree()}
		c.states[id] = e
	}
	return e
}

// put adds a tournament restored from its snapshot with its tree.
func (c *stateCache) put(t *projections.Tournament, tree *checkpoint.Tree) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.states[t.ID] = &entry{t: t, tree: tree}
}

// start records the log's last sequence as the runner found it, and that
// the runner has started: Ready from now on once applied reaches it.
func (c *stateCache) start(target uint64) {
	c.target.Store(target)
	c.started.Store(true)
	c.wake(nil)
}

// advance records that every commit up to stream sequence seq is folded
// and committed, and wakes the waiters.
func (c *stateCache) advance(seq uint64) {
	c.applied.Store(seq)
	c.wake(nil)
}

// stop records why the runner stopped (the first reason given stays) and
// wakes the waiters: WaitFor and WaitReady return projections.ErrNotReady
// from now on.
func (c *stateCache) stop(err error) { c.wake(err) }

func (c *stateCache) wake(failed error) {
	next := &signal{ch: make(chan struct{})}
	for {
		s := c.signal.Load()
		next.err = s.err
		if next.err == nil {
			next.err = failed
		}
		if c.signal.CompareAndSwap(s, next) {
			close(s.ch)
			return
		}
	}
}
