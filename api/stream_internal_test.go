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
	giveWay := func(ctx context.Context) { c.giveWay(ctx, time.Hour) }
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
	notRung := func(all []chan error, what string) {
		t.Helper()
		select {
		case <-all[0]:
			t.Fatalf("%s: the bell rang", what)
		case <-time.After(50 * time.Millisecond):
		}
	}

	all := waiting()
	end := c.begin()
	p.apply(1, nil)
	notRung(all, "applied while a command is in flight")
	end()
	for _, err := range rung(all, "the command answered") {
		if err != nil {
			t.Fatalf("the command answered: %v", err)
		}
	}
	if b.seen() != 1 {
		t.Fatalf("the bell rang for %d, want 1", b.seen())
	}
	if _, most := p.following(); most != 1 {
		t.Fatalf("%d streams: %d followed the projections at once, want 1", streams, most)
	}

	all = waiting()
	notRung(all, "nothing applied")
	stopped := errors.New("the runner stopped")
	p.apply(1, stopped)
	for _, err := range rung(all, "the projections stopped") {
		if !errors.Is(err, stopped) {
			t.Fatalf("the projections stopped: the wait ended with %v", err)
		}
	}

	p.apply(1, nil)
	leaves = append(leaves, b.join(p, giveWay)) // the follower ended: the next join does not start one
	for _, leave := range leaves {
		leave()
	}
	leave := b.join(p, giveWay) // the first stream again: a follower again
	all = waiting()[:1]
	p.apply(2, nil)
	rung(all, "a stream after the last left")
	leave()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if now, _ := p.following(); now == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the last stream left: the projections are still followed")
		}
		time.Sleep(time.Millisecond)
	}
}
