package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// The state cache alone, without NATS or Pebble: what the command side
// reads of the runner.

// TestStateCacheReadiness: a cache is ready once started and caught up
// with the log's end seen at start, and never again once stopped; Lag
// counts what is left.
func TestStateCacheReadiness(t *testing.T) {
	c := newStateCache()
	stopped := errors.New("stopped here")
	for _, step := range []struct {
		name      string
		do        func()
		ready     bool
		lag       uint64
		applied   uint64
		stoppedBy error
	}{
		{"new", func() {}, false, 0, 0, nil},
		{"resumed from a snapshot", func() { c.advance(4) }, false, 0, 4, nil},
		{"started behind the log", func() { c.start(10) }, false, 6, 4, nil},
		{"catching up", func() { c.advance(9) }, false, 1, 9, nil},
		{"caught up", func() { c.advance(10) }, true, 0, 10, nil},
		{"past the log's end seen at start", func() { c.advance(12) }, true, 0, 12, nil},
		{"stopped", func() { c.stop(stopped) }, false, 0, 12, stopped},
		{"stopped again: the first reason stays", func() { c.stop(errors.New("later")) }, false, 0, 12, stopped},
		{"a batch applied while stopping", func() { c.advance(13) }, false, 0, 13, stopped},
	} {
		step.do()
		if got := c.Ready(); got != step.ready {
			t.Errorf("%s: Ready() = %v, want %v", step.name, got, step.ready)
		}
		if got := c.Lag(); got != step.lag {
			t.Errorf("%s: Lag() = %d, want %d", step.name, got, step.lag)
		}
		if got := c.Applied(); got != step.applied {
			t.Errorf("%s: Applied() = %d, want %d", step.name, got, step.applied)
		}
		if got := c.Err(); got != step.stoppedBy {
			t.Errorf("%s: Err() = %v, want %v", step.name, got, step.stoppedBy)
		}
	}
}

// TestStateCacheWaitFor: WaitFor returns once the sequence is applied
// (at once if it is), ErrNotReady with the reason once the runner stops
// short of it, and the context's error when it is done first.
func TestStateCacheWaitFor(t *testing.T) {
	c := newStateCache()
	c.start(0)
	ctx := context.Background()

	done := make(chan error, 1)
	go func() { done <- c.WaitFor(ctx, 3) }()
	c.advance(1)
	c.advance(2)
	select {
	case err := <-done:
		t.Fatalf("WaitFor(3) returned %v with 2 applied", err)
	case <-time.After(20 * time.Millisecond):
	}
	c.advance(3)
	if err := <-done; err != nil {
		t.Fatalf("WaitFor(3) with 3 applied: %v", err)
	}
	if err := c.WaitFor(ctx, 2); err != nil {
		t.Errorf("WaitFor(2) with 3 applied: %v", err)
	}

	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := c.WaitFor(short, 4); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitFor(4) until the deadline: got %v, want DeadlineExceeded", err)
	}

	go func() { done <- c.WaitFor(ctx, 4) }()
	reason := errors.New("unknown event")
	c.stop(reason)
	if err := <-done; !errors.Is(err, projections.ErrNotReady) || !strings.Contains(fmt.Sprint(err), reason.Error()) {
		t.Errorf("WaitFor(4) when the runner stops: got %v, want ErrNotReady naming %v", err, reason)
	}
	if err := c.WaitFor(ctx, 3); err != nil {
		t.Errorf("WaitFor(3), applied before the stop: %v", err)
	}
}

// TestStateCacheWaitReady: WaitReady returns once the cache has started
// and caught up, and ErrNotReady once stopped.
func TestStateCacheWaitReady(t *testing.T) {
	c := newStateCache()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- c.WaitReady(ctx) }()
	c.advance(5) // a snapshot restored: not started yet
	c.start(7)
	c.advance(6)
	select {
	case err := <-done:
		t.Fatalf("WaitReady returned %v at 6 of 7", err)
	case <-time.After(20 * time.Millisecond):
	}
	c.advance(7)
	if err := <-done; err != nil {
		t.Fatalf("WaitReady caught up: %v", err)
	}

	c.stop(errors.New("gone"))
	if err := c.WaitReady(ctx); !errors.Is(err, projections.ErrNotReady) {
		t.Errorf("WaitReady once stopped: got %v, want ErrNotReady", err)
	}
}

// TestStateCacheWaitersSeeEveryAdvance: many waiters on many sequences,
// and one writer advancing one at a time; every waiter returns, with what
// it waited for applied (run with -race).
func TestStateCacheWaitersSeeEveryAdvance(t *testing.T) {
	c := newStateCache()
	c.start(200)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for seq := uint64(1); seq <= 200; seq++ {
		wg.Go(func() {
			if err := c.WaitFor(ctx, seq); err != nil {
				errs <- err
				return
			}
			if got := c.Applied(); got < seq {
				t.Errorf("WaitFor(%d) returned with %d applied", seq, got)
			}
		})
	}
	for seq := uint64(1); seq <= 200; seq++ {
		c.advance(seq)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if !c.Ready() {
		t.Error("not ready at the log's end")
	}
}

// TestStateCacheStates: a tournament's first commit creates its state, a
// commit the state already holds (from a snapshot taken later than the
// point the runner resumed from) is passed over, and ReadHead reads the
// state with its tree's head.
func TestStateCacheStates(t *testing.T) {
	c := newStateCache()
	if c.ReadHead("alpha", func(*projections.Tournament, checkpoint.Head) { t.Error("fn called for no tournament") }) {
		t.Error("ReadHead reports a tournament never seen")
	}
	e := c.forCommit("alpha", 3)
	if e == nil {
		t.Fatal("no entry for alpha's first commit")
	}
	if e.tree.AppendLeaf(checkpoint.LeafHash([]byte("line 1")), func(checkpoint.NodeID, []byte) {}) != nil {
		t.Fatal("append leaf")
	}
	e.t.Seq, e.t.LastStreamSeq = 1, 3
	if again := c.forCommit("alpha", 5); again != e {
		t.Error("a later commit of alpha folds into another entry")
	}
	var size, seq uint64
	if !c.ReadHead("alpha", func(tr *projections.Tournament, h checkpoint.Head) { size, seq = h.Size, tr.Seq }) {
		t.Fatal("ReadHead does not find alpha")
	}
	if size != 1 || seq != 1 {
		t.Errorf("ReadHead: head of %d leaves at seq %d, want 1 and 1", size, seq)
	}

	restored := projections.New("beta")
	restored.Seq, restored.LastStreamSeq = 40, 90
	c.put(restored, checkpoint.NewTree())
	if got := c.forCommit("beta", 90); got != nil {
		t.Error("a commit in beta's snapshot is folded again")
	}
	if got := c.forCommit("beta", 91); got == nil || got.t != restored {
		t.Error("the commit after beta's snapshot is not folded into the restored state")
	}
}

// decideSide is what the decide-and-append loop reads of the state cache:
// the Runner passes it on unchanged, and the cache alone has it too.
type decideSide interface {
	Ready() bool
	Lag() uint64
	Applied() uint64
	ReadHead(t string, fn func(*projections.Tournament, checkpoint.Head)) bool
	WaitFor(ctx context.Context, seq uint64) error
}

var (
	_ decideSide = (*Runner)(nil)
	_ decideSide = (*stateCache)(nil)
)
