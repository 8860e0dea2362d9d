package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
)

// RunnerOptions configures a Runner.
type RunnerOptions struct {
	// SnapshotEvery is how often, in stream sequences, the runner considers
	// snapshotting tournament states (at every multiple, and once when it
	// has caught up with the log it found at start). A tournament changed
	// since its last snapshot is snapshotted once its unsnapshotted commits
	// span SnapshotEvery stream sequences or an eighth of its events,
	// whichever is more: a large tournament is not rewritten every few
	// thousand commits (which made the cost of a rebuild quadratic), and a
	// restart replays at most about SnapshotEvery stream sequences plus an
	// eighth of the largest tournament. The default is 4096.
	SnapshotEvery uint64
	// MaxBatch caps the commits applied in one Pebble batch. The default is 1024.
	MaxBatch int
	// ViewsBatchBytes is the size past which the views written when the
	// runner has caught up (hundreds of MB after the rebuild of a large
	// tournament) are committed and a new batch begun: no batch doubles
	// and copies itself up to that size. The default is 4 MiB.
	ViewsBatchBytes int
	// Logger receives progress and errors; nil discards.
	Logger *slog.Logger
	// Observe, when set, is called for every commit once it is committed
	// to the store, with its number of events and the time spent appending
	// them to the tournament's Merkle tree (their leaf hashes, computed as
	// the commit was decoded, excluded). It runs on the runner's
	// goroutine and must return quickly. The default is none.
	Observe func(events int, merkle time.Duration)
	// ObserveSnapshot, when set, is called for every tournament state
	// snapshotted, with its tournament and size in bytes, on the runner's
	// goroutine. The default is none.
	ObserveSnapshot func(tournament string, bytes int)
	// Tolerate, when set, is asked about a commit that cannot be applied
	// (a corrupt commit, an unknown event, a fold error): true sets that
	// tournament aside (its later commits are skipped, its projections
	// are left as they were and must not be served) and the runner goes
	// on with the others; false stops the runner with the error. A hub,
	// holding other parties' logs, tolerates and quarantines; a venue's
	// own log is never skipped. The default is none: every such error
	// stops the runner.
	Tolerate func(tournament string, streamSeq uint64, err error) bool
	// Hold, when set, names for a tournament the first event its state
	// must not hold (a damaged log's first damaged event): its commit and
	// every later one of the tournament are set aside as Tolerate sets
	// them aside, and its state stays the verified prefix. The default is
	// none.
	Hold func(tournament string) (seq uint64, held bool)
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *RunnerOptions) EnsureDefaults() {
	if o.SnapshotEvery == 0 {
		o.SnapshotEvery = 4096
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = 1024
	}
	if o.ViewsBatchBytes == 0 {
		o.ViewsBatchBytes = 4 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Runner keeps the store current with the log and holds the in-memory
// tournament states the command side decides against. It is a façade
// over the parts that do the work, each a type in its own file; Run
// drives them, on its goroutine but the flusher's:
//
//   - stateCache (states.go): the states, the heads of their Merkle
//     trees, the applied sequence, readiness, WaitFor: what the command
//     side reads;
//   - projector (projector.go): applies batches of commits, folding them
//     and writing views, indexes and Merkle nodes;
//   - rankings (rankings.go): which standings and classifications the
//     store lacks, and the stored ones in memory;
//   - flusher (flusher.go): ranks and writes them, on a goroutine of its
//     own;
//   - snapshotter (snapshot.go): the states a restart resumes from.
type Runner struct {
	log   *eventlog.Log
	store *Store
	opts  RunnerOptions

	states   *stateCache
	rankings *rankings
	flusher  *flusher
	snaps    *snapshotter
	proj     *projector
}

// NewRunner returns a runner over log and store. Call Run to start it.
func NewRunner(log *eventlog.Log, store *Store, opts RunnerOptions) *Runner {
	opts.EnsureDefaults()
	r := &Runner{log: log, store: store, opts: opts, states: newStateCache(), rankings: newRankings(store)}
	r.flusher = newFlusher(store, r.states, r.rankings)
	r.snaps = newSnapshotter(store, r.states, r.flusher, opts)
	r.proj = newProjector(store, r.states, r.rankings, r.snaps, opts)
	return r
}

// Applied returns the last stream sequence folded into memory and committed
// to the store by this runner.
func (r *Runner) Applied() uint64 { return r.states.Applied() }

// Lag returns how far the store is behind the log's sequence seen at start,
// or 0 once caught up.
func (r *Runner) Lag() uint64 { return r.states.Lag() }

// Ready reports whether the runner has caught up with the log as it was at
// start and has not stopped.
func (r *Runner) Ready() bool { return r.states.Ready() }

// Err returns why the runner stopped, or nil while it runs.
func (r *Runner) Err() error { return r.states.Err() }

// WaitFor blocks until the store reflects stream sequence seq, the runner
// stops, or ctx is done.
func (r *Runner) WaitFor(ctx context.Context, seq uint64) error { return r.states.WaitFor(ctx, seq) }

// WaitReady blocks until Ready or the runner stops or ctx is done.
func (r *Runner) WaitReady(ctx context.Context) error { return r.states.WaitReady(ctx) }

// Read calls fn with the current state of tournament id under a read lock
// and reports whether the tournament exists. fn must not keep the state.
func (r *Runner) Read(id string, fn func(t *projections.Tournament)) bool {
	return r.states.ReadHead(id, func(t *projections.Tournament, _ checkpoint.Head) { fn(t) })
}

// ReadHead is Read with the head of the tournament's Merkle tree as the
// state has it (t.Seq leaves): the root a publication signs and the last
// leaf the next event links to.
func (r *Runner) ReadHead(id string, fn func(t *projections.Tournament, h checkpoint.Head)) bool {
	return r.states.ReadHead(id, fn)
}

// Stale reports whether the stored standings and classification of a
// tournament lag behind its state: a reader then computes them from the
// fold (Read) to see every acknowledged command.
func (r *Runner) Stale(t string) bool { return r.rankings.Stale(t) }

// Ranking returns the stored standings (classification when final) of
// tournament t as the store holds them, from memory when this runner
// wrote or read them before, and whether there are any. The bytes are
// shared: the caller must not modify them.
func (r *Runner) Ranking(t string, classification bool) ([]byte, bool, error) {
	return r.rankings.Ranking(t, classification)
}

// Run follows the log until ctx is done or an event cannot be applied. An
// unknown event type or version, a corrupt commit or a fold error stops the
// runner with that error: events are never skipped. Events are decoded as
// events.DecodeForFold decodes them: a draw's inputs, which no projection
// reads, are checked as JSON only; that they are the inputs the log gives
// is what replay.Verify checks.
func (r *Runner) Run(ctx context.Context) (err error) {
	defer func() {
		if err == nil || errors.Is(err, context.Canceled) {
			r.states.stop(fmt.Errorf("%w: runner stopped", projections.ErrNotReady))
			return
		}
		r.opts.Logger.Error("projection runner stopped", "err", err, "applied", r.states.Applied())
		r.states.stop(err)
	}()
	from, err := r.start(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	msgs, followErr := r.follow(ctx, from)
	fctx, stopFlusher := context.WithCancel(ctx)
	flushErr, flusherDone := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(flusherDone)
		if err := r.flusher.run(fctx); err != nil {
			flushErr <- err
		}
	}()
	defer func() {
		stopFlusher()
		<-flusherDone
		if err == nil || errors.Is(err, context.Canceled) {
			if ferr := r.flusher.flush(); ferr != nil && err == nil {
				err = ferr
			}
		}
	}()
	return r.loop(ctx, msgs, followErr, flushErr)
}

// start restores the states from their snapshots, checks the store
// against the log, and marks the runner started. It returns the stream
// sequence to follow from: every commit before it is in a snapshot.
func (r *Runner) start(ctx context.Context) (uint64, error) {
	snap, err := r.snaps.restore()
	if err != nil {
		return 0, err
	}
	stored, err := r.store.Applied()
	if err != nil {
		return 0, err
	}
	r.states.advance(snap)
	// The last message stored, not the stream's sequence counter: a
	// damaged store's counter may be past messages it lost, which would
	// never come.
	last, err := r.log.LastStored(ctx)
	if err != nil {
		return 0, err
	}
	if stored > last {
		return 0, fmt.Errorf("pebble: projections are at stream sequence %d but the log ends at %d: the log lost messages the projections had applied, or this store belongs to another log", stored, last)
	}
	r.proj.resume(stored, snap >= last)
	r.states.start(last)
	r.opts.Logger.Info("projections resuming", "snapshot", snap, "stored", stored, "log", last)
	return snap + 1, nil
}

// follow follows the log from stream sequence from until ctx is done,
// decoding each message on the follower's goroutine, so that decoding
// (most of a rebuild's work) runs beside folding and writing.
func (r *Runner) follow(ctx context.Context, from uint64) (<-chan decoded, <-chan error) {
	msgs := make(chan decoded, 4*r.opts.MaxBatch)
	followErr := make(chan error, 1)
	go func() {
		followErr <- r.log.Follow(ctx, from, "", func(m events.StoredCommit) error {
			select {
			case msgs <- decode(m):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return msgs, followErr
}

// loop applies the decoded messages in batches of up to MaxBatch (ending
// at a multiple of SnapshotEvery, where a snapshot may be due) and wakes
// the flusher once the runner has been idle for staleIdle, or rankings
// have been stale for staleMax, until ctx is done or an error comes.
func (r *Runner) loop(ctx context.Context, msgs <-chan decoded, followErr, flushErr <-chan error) error {
	batch := make([]decoded, 0, r.opts.MaxBatch)
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	defer idle.Stop()
	var flush <-chan time.Time
	for {
		batch = batch[:0]
		select {
		case m := <-msgs:
			batch = append(batch, m)
		case <-flush:
			flush = nil
			r.flusher.wake()
			continue
		case err := <-flushErr:
			return err
		case err := <-followErr:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	fill:
		for len(batch) < r.opts.MaxBatch && batch[len(batch)-1].StreamSeq%r.opts.SnapshotEvery != 0 {
			select {
			case m := <-msgs:
				batch = append(batch, m)
			default:
				break fill
			}
		}
		if err := r.proj.apply(batch); err != nil {
			return err
		}
		// While catching up nobody reads the store (the node is not
		// ready) and a flush would rank every player of a tournament
		// that is still growing: the costly views wait for the end.
		if since, ok := r.rankings.oldest(); r.proj.caughtUp && ok {
			if time.Since(since) >= staleMax {
				r.flusher.wake()
				flush = nil
				continue
			}
			idle.Reset(staleIdle)
			flush = idle.C
		}
	}
}
