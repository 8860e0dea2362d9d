package api

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// projectionsAt is the projections' applied sequence as a test moves it,
// counting who follows it.
type projectionsAt struct {
	mu        sync.Mutex
	applied   uint64
	err       error
	moved     chan struct{}
	followers int // callers inside WaitFor now
	most      int // the most there ever were at once
}

func newProjectionsAt() *projectionsAt { return &projectionsAt{moved: make(chan struct{})} }

func (p *projectionsAt) Applied() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.applied
}

func (p *projectionsAt) WaitFor(ctx context.Context, seq uint64) error {
	p.mu.Lock()
	p.followers++
	p.most = max(p.most, p.followers)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.followers--
		p.mu.Unlock()
	}()
	for {
		p.mu.Lock()
		applied, err, moved := p.applied, p.err, p.moved
		p.mu.Unlock()
		switch {
		case applied >= seq:
			return nil
		case err != nil:
			return err
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// apply moves the applied sequence to seq, or stops the projections with err.
func (p *projectionsAt) apply(seq uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.applied, p.err = max(p.applied, seq), err
	close(p.moved)
	p.moved = make(chan struct{})
}

func (p *projectionsAt) following() (now, most int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.followers, p.most
}

// TestStreamBell: however many streams are open, one goroutine follows
// the projections for them; it rings once the projections moved and the
// commands in flight are answered, ends the streams' wait with the
// projections' error when they stop, and stops following with the last
// stream.
func TestStreamBell(t *testing.T) {
	p := newProjectionsAt()
	var c commandsInFlight
	var b streamBell
	givingWay := make(chan struct{}, 1)
	giveWay := func(ctx context.Context) {
		select {
		case givingWay <- struct{}{}:
		default:
		}
		c.giveWay(ctx, time.Hour)
	}
	const streams = 50
	var leaves []func()
	for range streams {
		leaves = append(leaves, b.join(p, giveWay))
	}
	waiting := func() []chan error {
		var all []chan error
		seen := b.seen()
		for range streams {
			done := make(chan error, 1)
			go func() { done <- b.wait(context.Background(), seen) }()
			all = append(all, done)
		}
		return all
	}
	rung := func(all []chan error, what string) []error {
		t.Helper()
		var errs []error
		deadline := time.After(10 * time.Second)
		for _, done := range all {
			select {
			case err := <-done:
				errs = append(errs, err)
			case <-deadline:
				t.Fatalf("%s: a stream still waits", what)
			}
		}
		return errs
	}
	rungNil := func(all []chan error, what string) {
		t.Helper()
		for _, err := range rung(all, what) {
			if err != nil {
				t.Fatalf("%s: the wait ended with %v", what, err)
			}
		}
	}
	notRung := func(all []chan error, what string) {
		t.Helper()
		time.Sleep(50 * time.Millisecond)
		for _, done := range all {
			select {
			case <-done:
				t.Fatalf("%s: the bell rang", what)
			default:
			}
		}
	}
	following := func(want int, what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			now, _ := p.following()
			if now == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d follow the projections, want %d", what, now, want)
			}
		}
	}

	all := waiting()
	end := c.begin()
	p.apply(1, nil)
	Within(t, givingWay, "applied while a command is in flight: the follower giving way")
	notRung(all, "applied while a command is in flight")
	end()
	rungNil(all, "the command answered")
	if b.seen() != 1 {
		t.Fatalf("the bell rang for %d, want 1", b.seen())
	}
	if _, most := p.following(); most != 1 {
		t.Fatalf("%d streams: %d followed the projections at once, want 1", streams, most)
	}

	all = waiting()
	following(1, "nothing applied")
	notRung(all, "nothing applied")
	stopped := errors.New("the runner stopped")
	p.apply(1, stopped)
	for _, err := range rung(all, "the projections stopped") {
		if !errors.Is(err, stopped) {
			t.Fatalf("the projections stopped: the wait ended with %v", err)
		}
	}
	following(0, "the projections stopped")

	p.apply(1, nil)
	leaves = append(leaves, b.join(p, giveWay))
	following(0, "a stream joining others after the projections stopped")
	for _, leave := range leaves {
		leave()
	}
	leave := b.join(p, giveWay) // the first stream again: a follower again
	following(1, "a stream after the last left")
	all = waiting()
	notRung(all, "a stream after the last left, nothing applied")
	p.apply(2, nil)
	rungNil(all, "a stream after the last left")
	leave()
	following(0, "the last stream left")
}

// TestStreamBellNext: a stream is told a tournament's seq once it changed,
// after giving way, and misses no change made between what the bell rang
// for and the seq it reads.
func TestStreamBellNext(t *testing.T) {
	p := newProjectionsAt()
	var b streamBell
	gaveWay := 0 // the stream's, not the follower's
	giveWay := func(context.Context) { gaveWay++ }
	defer b.join(p, func(context.Context) {})()
	var mu sync.Mutex
	seq := uint64(5)
	var between func() // run inside the next read of the seq, once
	current := func() (uint64, bool) {
		mu.Lock()
		defer mu.Unlock()
		cur := seq
		if f := between; f != nil {
			between = nil
			f()
		}
		return cur, true
	}
	next := func(from uint64, what string) uint64 {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		type result struct {
			cur uint64
			err error
		}
		done := make(chan result, 1)
		go func() {
			cur, _, err := b.next(ctx, from, current, giveWay)
			done <- result{cur, err}
		}()
		r := Within(t, done, what)
		if r.err != nil {
			t.Fatalf("%s: %v", what, r.err)
		}
		return r.cur
	}
	if cur := next(4, "a seq already past"); cur != 5 || gaveWay != 1 {
		t.Fatalf("a seq already past: told %d after giving way %d times, want 5 after 1", cur, gaveWay)
	}
	// The projections apply seq 6 and the bell rings for it while the
	// stream reads the seq, which it still reads as 5.
	between = func() {
		seq = 6
		p.apply(1, nil)
		for deadline := time.Now().Add(10 * time.Second); b.seen() < 1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("the bell did not ring within 10 s")
				return
			}
		}
	}
	if cur := next(5, "a change made while the seq was read"); cur != 6 || gaveWay != 2 {
		t.Fatalf("a change made while the seq was read: told %d after giving way %d times, want 6 after 2", cur, gaveWay)
	}
}
