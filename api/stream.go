package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
)

// Live updates: GET /v1/tournaments/{t}/stream is a stream of server-sent
// events (text/event-stream) that says, as soon as the projections have
// applied it, each new seq of the tournament. A page re-reads what it shows
// then (the read waits for the projections, read-your-writes), so the
// stream carries no data of its own and anyone may follow it.

// Streams are bounded per server and per tournament (Options.MaxStreams,
// MaxStreamsPerTournament): each holds a connection and a goroutine, which
// cost little, so the defaults hold the biggest hall. A stream past a
// bound is never refused with an error status, which an EventSource does
// not retry (a page would stop updating): it is answered as a stream that
// says the current seq and ends, with a longer retry, so the page reads
// itself once and comes back later.
const (
	// DefaultMaxStreams is the default of Options.MaxStreams.
	DefaultMaxStreams = 8192
	// DefaultMaxStreamsPerTournament is the default of
	// Options.MaxStreamsPerTournament.
	DefaultMaxStreamsPerTournament = 4096
	// streamRetry is how long an EventSource waits before reconnecting
	// after a stream ended; streamFullRetry after one past a bound.
	streamRetry     = 2 * time.Second
	streamFullRetry = 15 * time.Second
)

// streamCount counts the streams served, in all and per tournament.
type streamCount struct {
	mu    sync.Mutex
	all   int
	per   map[string]int
	most  int // Options.MaxStreams
	mostT int // Options.MaxStreamsPerTournament
}

// take counts one more stream of tournament t, false past a bound;
// release uncounts it.
func (c *streamCount) take(t string) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.all >= c.most || c.per[t] >= c.mostT {
		return nil, false
	}
	if c.per == nil {
		c.per = map[string]int{}
	}
	c.all++
	c.per[t]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.all--
		if c.per[t]--; c.per[t] == 0 {
			delete(c.per, t)
		}
	}, true
}

// streamHeartbeat is how often an idle stream sends a comment, so that
// proxies and phones keep the connection; streamMax is how long a stream
// lasts at most (?max_seconds=), after which the client reconnects.
const (
	streamHeartbeat = 20 * time.Second
	streamMax       = 10 * time.Minute
)

func (s *Server) getStream(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	maxSeconds, err := queryUint(r, "max_seconds", uint64(streamMax/time.Second))
	if err == nil && (maxSeconds < 1 || maxSeconds > uint64(streamMax/time.Second)) {
		err = &commands.FieldError{Field: "max_seconds", Msg: fmt.Sprintf("must be between 1 and %d", streamMax/time.Second)}
	}
	if err != nil {
		return err
	}
	seq, ok := s.reader.Seq(t)
	if !ok {
		return fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	release, open := s.streams.take(t)
	if open {
		defer release()
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(maxSeconds)*time.Second)
	defer cancel()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(text string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamHeartbeat + 10*time.Second))
		if _, err := w.Write([]byte(text)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// retry: how long an EventSource waits before reconnecting.
	retry := streamRetry
	if !open {
		retry = streamFullRetry
	}
	if !send(fmt.Sprintf("retry: %d\n\nid: %d\nevent: seq\ndata: %d\n\n", retry.Milliseconds(), seq, seq)) || !open {
		return nil
	}
	defer s.bell.join(s.opts.Runner, s.giveWay)()
	current := func() (uint64, bool) { return s.reader.Seq(t) }
	for {
		wait, stop := context.WithTimeout(ctx, streamHeartbeat)
		cur, ok, err := s.bell.next(wait, seq, current, s.giveWay)
		stop()
		switch {
		case ctx.Err() != nil || !ok:
			return nil
		case err != nil && wait.Err() == nil:
			return nil // the runner stopped
		case err != nil:
			if !send(": still here\n\n") {
				return nil
			}
		default:
			seq = cur
			if !send("id: " + strconv.FormatUint(seq, 10) + "\nevent: seq\ndata: " + strconv.FormatUint(seq, 10) + "\n\n") {
				return nil
			}
		}
	}
}

// streamBell wakes the live streams once for each burst of commands, once
// they are answered. The projections apply a command before it is
// answered (its tournament's lock and its recorded head wait for them): if
// every stream of a hall followed the projections itself, hundreds of
// goroutines would wake, find the command in flight and park again in the
// middle of each command, on the cores its append and its head wait for.
// So while any stream is open one goroutine follows the projections for
// all of them, gives way to the commands in flight, and then rings.
type streamBell struct {
	mu      sync.Mutex
	streams int
	stop    context.CancelFunc // ends the follower; nil while no stream is open
	applied uint64             // the projections' applied stream sequence, as last rung
	rung    chan struct{}      // closed when applied moves or err is set
	err     error              // why the projections stopped
}

// join counts one more open stream, starting the follower of applied for
// the first; leave uncounts it, stopping the follower with the last. The
// follower gives way with giveWay before it rings.
func (b *streamBell) join(applied appliedSeq, giveWay func(context.Context)) (leave func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rung == nil {
		b.rung = make(chan struct{})
	}
	if b.streams++; b.streams == 1 {
		b.applied = max(b.applied, applied.Applied())
		b.err = nil
		ctx, stop := context.WithCancel(context.Background())
		b.stop = stop
		go b.follow(ctx, applied, giveWay, b.applied)
	}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.streams--; b.streams == 0 {
			b.stop()
			b.stop = nil
		}
	}
}

// appliedSeq is what the bell follows: the projections' applied stream
// sequence (Runner).
type appliedSeq interface {
	Applied() uint64
	WaitFor(ctx context.Context, seq uint64) error
}

// follow rings the bell each time the projections have applied more than
// seq and giveWay has returned, until ctx is done or the projections stop.
func (b *streamBell) follow(ctx context.Context, applied appliedSeq, giveWay func(context.Context), seq uint64) {
	for {
		if err := applied.WaitFor(ctx, seq+1); err != nil {
			if ctx.Err() == nil {
				b.ring(seq, err)
			}
			return
		}
		giveWay(ctx)
		if ctx.Err() != nil {
			return
		}
		seq = applied.Applied()
		b.ring(seq, nil)
	}
}

// ring tells the streams that the projections applied up to applied, or
// stopped with err.
func (b *streamBell) ring(applied uint64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if applied <= b.applied && err == nil {
		return
	}
	b.applied = max(b.applied, applied)
	if err != nil {
		b.err = err
	}
	close(b.rung)
	b.rung = make(chan struct{})
}

// seen is the applied stream sequence the bell last rang for: what a
// stream waits to move past.
func (b *streamBell) seen() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.applied
}

// next returns a tournament's seq, read with current, once it is no
// longer seq: every page of the hall reads itself again on it. Between
// reads it waits for the bell; before it returns it gives way with
// giveWay, since a command may have come after the bell rang (the
// projections fold a command before it is answered), and reads the seq
// again. ok is false when the tournament is gone; err is ctx's, or the
// projections' when they stopped.
func (b *streamBell) next(ctx context.Context, seq uint64, current func() (uint64, bool), giveWay func(context.Context)) (cur uint64, ok bool, err error) {
	for {
		// What the bell rang for is read before the seq: a ring between
		// the two ends the wait below at once.
		seen := b.seen()
		if cur, ok = current(); !ok {
			return 0, false, nil
		}
		if cur != seq {
			giveWay(ctx)
			cur, ok = current()
			return cur, ok, nil
		}
		if err := b.wait(ctx, seen); err != nil {
			return seq, true, err
		}
	}
}

// wait returns once the bell rings past applied, with the projections'
// error if they stopped, or ctx's when it is done first.
func (b *streamBell) wait(ctx context.Context, applied uint64) error {
	for {
		b.mu.Lock()
		moved, rung, err := b.applied > applied, b.rung, b.err
		b.mu.Unlock()
		switch {
		case moved:
			return nil
		case err != nil:
			return err
		}
		select {
		case <-rung:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
