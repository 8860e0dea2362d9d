package pebble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections"
)

// ErrNotReady reports that the runner has not yet caught up with the log it
// found at start, or has stopped.
var ErrNotReady = errors.New("pebble: projections not ready")

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
// tournament states the command side decides against.
type Runner struct {
	log   *jetstream.Log
	store *Store
	opts  RunnerOptions

	refBuf []byte // the runner goroutine's buffer for index values

	mu     sync.RWMutex // guards states
	states map[string]*entry

	// applied is the last stream sequence this runner has folded into
	// memory and committed to the store. After a restart it starts at the
	// snapshot, below what the store already holds (stored), and catches up.
	applied atomic.Uint64
	stored  uint64        // sys/applied as last written; owned by the Run goroutine
	target  atomic.Uint64 // the log's last sequence when Run started
	started atomic.Bool

	nmu    sync.Mutex
	notify chan struct{} // closed and replaced whenever applied moves or the runner stops
	failed error         // why the runner stopped, under nmu

	// Owned by the Run goroutine.
	// dirtySnap maps a tournament changed since its stored snapshot to
	// the stream sequence of its first commit not in that snapshot.
	dirtySnap map[string]uint64
	caughtUp  bool          // applied has reached target once: snapshots and flushes may run
	deferred  touched       // while catching up, the views touched so far, written once caught up
	observed  []commitStats // of the batch being applied, for Observe

	smu        sync.Mutex
	stale      map[string]uint64 // tournaments whose standings and classification are not written yet → generation of their last change
	staleGen   uint64            // the last generation given, under smu
	staleSince time.Time         // when the oldest unwritten standings became stale, under smu

	// fmu serializes the writers of standings and classifications (the
	// flusher, snapshots and the final flush): an older ranking is never
	// written over a newer one.
	fmu sync.Mutex
	// rankings holds, under smu, the stored standings and classification
	// (by key) as written: what most reads serve, without a Pebble read
	// and copy of a value of hundreds of KB. Shared, never modified.
	rankings map[string][]byte
	kick     chan struct{} // asks the flusher to write the stale views
}

// Standings and classification are the costly read models: ranking every
// player. A flusher goroutine writes them when the runner has been idle
// for staleIdle or they have been stale for staleMax, beside the runner
// (which so never stops applying commits to rank players); snapshots and
// the runner's stop write them too. In between, readers compute them from
// the in-memory fold (Stale). At rest the store holds exactly what a
// rebuild writes.
const (
	staleIdle = 50 * time.Millisecond
	staleMax  = time.Second
)

// Stale reports whether the stored standings and classification of a
// tournament lag behind its state: a reader then computes them from the
// fold (Read) to see every acknowledged command.
func (r *Runner) Stale(t string) bool {
	r.smu.Lock()
	defer r.smu.Unlock()
	_, ok := r.stale[t]
	return ok
}

type entry struct {
	mu   sync.RWMutex
	t    *projections.Tournament
	tree *checkpoint.Tree // the tournament's Merkle tree, t.Seq leaves
}

// NewRunner returns a runner over log and store. Call Run to start it.
func NewRunner(log *jetstream.Log, store *Store, opts RunnerOptions) *Runner {
	opts.EnsureDefaults()
	return &Runner{log: log, store: store, opts: opts, states: map[string]*entry{},
		notify: make(chan struct{}), dirtySnap: map[string]uint64{}, stale: map[string]uint64{}, deferred: touched{}, rankings: map[string][]byte{},
		kick: make(chan struct{}, 1)}
}

// Applied returns the last stream sequence folded into memory and committed
// to the store by this runner.
func (r *Runner) Applied() uint64 { return r.applied.Load() }

// Lag returns how far the store is behind the log's sequence seen at start,
// or 0 once caught up.
func (r *Runner) Lag() uint64 {
	if a, t := r.applied.Load(), r.target.Load(); t > a {
		return t - a
	}
	return 0
}

// Ready reports whether the runner has caught up with the log as it was at
// start and has not stopped.
func (r *Runner) Ready() bool {
	return r.started.Load() && r.Err() == nil && r.applied.Load() >= r.target.Load()
}

// Err returns why the runner stopped, or nil while it runs.
func (r *Runner) Err() error {
	r.nmu.Lock()
	defer r.nmu.Unlock()
	return r.failed
}

// WaitFor blocks until the store reflects stream sequence seq, the runner
// stops, or ctx is done.
func (r *Runner) WaitFor(ctx context.Context, seq uint64) error {
	for {
		r.nmu.Lock()
		ch, failed := r.notify, r.failed
		r.nmu.Unlock()
		if r.applied.Load() >= seq {
			return nil
		}
		if failed != nil {
			return fmt.Errorf("%w: %v", ErrNotReady, failed)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitReady blocks until Ready or the runner stops or ctx is done.
func (r *Runner) WaitReady(ctx context.Context) error {
	for {
		r.nmu.Lock()
		ch, failed := r.notify, r.failed
		r.nmu.Unlock()
		if failed != nil {
			return fmt.Errorf("%w: %v", ErrNotReady, failed)
		}
		if r.Ready() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *Runner) wake(failed error) {
	r.nmu.Lock()
	if failed != nil && r.failed == nil {
		r.failed = failed
	}
	close(r.notify)
	r.notify = make(chan struct{})
	r.nmu.Unlock()
}

// Read calls fn with the current state of tournament id under a read lock
// and reports whether the tournament exists. fn must not keep the state.
func (r *Runner) Read(id string, fn func(t *projections.Tournament)) bool {
	return r.ReadHead(id, func(t *projections.Tournament, _ checkpoint.Head) { fn(t) })
}

// ReadHead is Read with the head of the tournament's Merkle tree as the
// state has it (t.Seq leaves): the root a publication signs and the last
// leaf the next event links to.
func (r *Runner) ReadHead(id string, fn func(t *projections.Tournament, h checkpoint.Head)) bool {
	r.mu.RLock()
	e := r.states[id]
	r.mu.RUnlock()
	if e == nil {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	fn(e.t, e.tree.Head())
	return true
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
			r.wake(fmt.Errorf("%w: runner stopped", ErrNotReady))
			return
		}
		r.opts.Logger.Error("projection runner stopped", "err", err, "applied", r.applied.Load())
		r.wake(err)
	}()
	from, err := r.load()
	if err != nil {
		return err
	}
	last, err := r.log.LastSeq(ctx)
	if err != nil {
		return err
	}
	if r.stored > last {
		return fmt.Errorf("pebble: projections are at stream sequence %d but the log ends at %d: this store belongs to another log; rebuild it", r.stored, last)
	}
	r.target.Store(last)
	r.caughtUp = r.applied.Load() >= last
	r.started.Store(true)
	r.wake(nil)
	r.opts.Logger.Info("projections resuming", "snapshot", from-1, "stored", r.stored, "log", last)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Messages are decoded on the follower's goroutine, so that decoding
	// (most of a rebuild's work) runs beside folding and writing.
	msgs := make(chan decoded, 4*r.opts.MaxBatch)
	followErr := make(chan error, 1)
	go func() {
		followErr <- r.log.Follow(ctx, from, "", func(m jetstream.Msg) error {
			select {
			case msgs <- decode(m):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	batch := make([]decoded, 0, r.opts.MaxBatch)
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	defer idle.Stop()
	var flush <-chan time.Time
	fctx, stopFlusher := context.WithCancel(ctx)
	flushErr, flusherDone := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(flusherDone)
		for {
			select {
			case <-r.kick:
				if err := r.flushStale(); err != nil {
					flushErr <- err
					return
				}
			case <-fctx.Done():
				return
			}
		}
	}()
	defer func() {
		stopFlusher()
		<-flusherDone
		if err == nil || errors.Is(err, context.Canceled) {
			if ferr := r.flushStale(); ferr != nil && err == nil {
				err = ferr
			}
		}
	}()
	for {
		batch = batch[:0]
		select {
		case m := <-msgs:
			batch = append(batch, m)
		case <-flush:
			flush = nil
			r.kickFlusher()
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
		if err := r.applyBatch(batch); err != nil {
			return err
		}
		// While catching up nobody reads the store (the node is not
		// ready) and a flush would rank every player of a tournament
		// that is still growing: the costly views wait for the end.
		if since, ok := r.oldestStale(); r.caughtUp && ok {
			if time.Since(since) >= staleMax {
				r.kickFlusher()
				flush = nil
				continue
			}
			idle.Reset(staleIdle)
			flush = idle.C
		}
	}
}

// load restores the tournament states from their snapshots and returns the
// stream sequence to follow from: every commit before it is in a snapshot,
// and the commits after it that are too (those of tournaments snapshotted
// later) are skipped as they come.
func (r *Runner) load() (uint64, error) {
	snap, err := r.store.getU64(keySnapshot)
	if err != nil {
		return 0, err
	}
	applied, err := r.store.Applied()
	if err != nil {
		return 0, err
	}
	err = r.store.snapshots(func(t *projections.Tournament) { r.states[t.ID] = &entry{t: t} })
	if err != nil {
		return 0, err
	}
	for id, e := range r.states {
		if e.tree, err = checkpoint.Resume(e.t.Seq, r.store.NodeGetter(id)); err != nil {
			return 0, fmt.Errorf("pebble: merkle tree of %s: %w", id, err)
		}
	}
	if err != nil {
		return 0, err
	}
	r.stored = applied
	r.applied.Store(snap)
	return snap + 1, nil
}

// decoded is a message with its commit and events decoded, or why they
// could not be.
type decoded struct {
	jetstream.Msg
	commit events.Commit
	evs    []events.Event
	leaves [][]byte // the Merkle leaf hash of each line, hashed beside the fold
	err    error
}

func decode(m jetstream.Msg) decoded {
	d := decoded{Msg: m}
	d.commit, d.evs, d.err = events.DecodeCommitForFold(m.Data)
	if d.err == nil {
		d.leaves = make([][]byte, len(d.commit.Lines))
		for i, line := range d.commit.Lines {
			d.leaves[i] = checkpoint.LeafHash(line)
		}
	}
	return d
}

// viewBatch is the batch views are written into. With parts > 0, it is
// committed and replaced whenever it holds that many bytes.
type viewBatch struct {
	db     *pebble.DB
	b      *pebble.Batch
	parts  int
	reused bool // b is the reusable batch of the parts after the first
}

func (v *viewBatch) set(key, value []byte) error {
	if err := v.b.Set(key, value, nil); err != nil {
		return err
	}
	if v.parts == 0 || v.b.Len() < v.parts {
		return nil
	}
	if err := v.b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebble: commit views: %w", err)
	}
	if v.reused {
		v.b.Reset()
		return nil
	}
	// The parts that follow reuse one buffer: memory freshly taken for
	// each would be faulted in page by page. A part of the default size
	// (4 MiB) stays under Pebble's large-batch threshold (half the
	// memtable, 16 MiB), so it is copied into the memtable and its buffer
	// is free again after the commit; a larger part only costs a new
	// buffer each time.
	v.b.Close()
	v.b = v.db.NewBatch(pebble.WithInitialSizeBytes(v.parts+1<<20), pebble.WithMaxRetainedSizeBytes(2*v.parts+1<<20))
	v.reused = true
	return nil
}

// commitStats is what Observe is told of one commit.
type commitStats struct {
	events int
	merkle time.Duration
}

// touched collects, per tournament, the read models a batch changed.
type touched map[string]*projections.Changes

func (r *Runner) applyBatch(msgs []decoded) error {
	// The views written once a rebuild has caught up can be hundreds of
	// MB: they are committed in parts (nobody reads the store before the
	// runner is ready), so that no batch doubles and copies itself up to
	// that size. Once caught up, a batch is committed whole.
	vb := &viewBatch{db: r.store.db, b: r.store.db.NewBatch()}
	if !r.caughtUp {
		vb.parts = r.opts.ViewsBatchBytes
	}
	defer func() { vb.b.Close() }()
	ch := touched{}
	r.observed = r.observed[:0]
	for _, m := range msgs {
		if err := r.applyMsg(vb.b, m, ch); err != nil {
			return fmt.Errorf("stream sequence %d: %w", m.StreamSeq, err)
		}
	}
	last := msgs[len(msgs)-1].StreamSeq
	if !r.caughtUp {
		// While catching up (a rebuild, a restart) nobody reads the
		// store: a view is written once, when the runner has caught up,
		// not again for every batch that touches it (a player's row for
		// each of its games).
		for id, c := range ch {
			if r.deferred[id] == nil {
				r.deferred[id] = &projections.Changes{}
			}
			r.deferred[id].Merge(c)
		}
		ch = touched{}
		if last >= r.target.Load() {
			ch, r.deferred = r.deferred, touched{}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ch)) {
		if err := r.writeViews(vb, id, ch[id]); err != nil {
			return err
		}
	}
	b := vb.b
	if last > r.stored {
		if err := b.Set(keyApplied, u64(last), nil); err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebble: commit batch ending at %d: %w", last, err)
	}
	// Observed before applied moves: whoever sees a commit applied sees
	// it counted.
	if r.opts.Observe != nil {
		for _, c := range r.observed {
			r.opts.Observe(c.events, c.merkle)
		}
	}
	r.stored = max(r.stored, last)
	r.applied.Store(last)
	r.wake(nil)
	// Snapshots follow the batch in a batch of their own: the views are
	// readable (and the waiting commands answered) without waiting for
	// a large state to be encoded.
	if done := !r.caughtUp && last >= r.target.Load(); done || r.caughtUp && last%r.opts.SnapshotEvery == 0 {
		r.caughtUp = true
		if err := r.writeSnapshots(last); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) applyMsg(b *pebble.Batch, m decoded, ch touched) error {
	if m.err != nil {
		return m.err
	}
	c, evs := m.commit, m.evs
	first := c.Envelopes[0]
	if first.Tournament != m.Tournament {
		return fmt.Errorf("%w: event %s stored under tournament %s", events.ErrCorrupt, first.ID, m.Tournament)
	}
	var err error
	r.mu.Lock()
	e := r.states[m.Tournament]
	if e != nil && m.StreamSeq <= e.t.LastStreamSeq {
		// Already in the tournament's snapshot (it was taken after the
		// point this runner resumed from).
		r.mu.Unlock()
		return nil
	}
	if e == nil {
		e = &entry{t: projections.New(m.Tournament), tree: checkpoint.NewTree()}
		r.states[m.Tournament] = e
	}
	r.mu.Unlock()

	chg := ch[m.Tournament]
	if chg == nil {
		chg = &projections.Changes{}
		ch[m.Tournament] = chg
	}
	// A tournament being ranked by the flusher is stale again from this
	// fold on: the ranking may not have it, so it must not clear the flag
	// (writeViews gives the generation too, but only after the fold).
	r.smu.Lock()
	if _, ok := r.stale[m.Tournament]; ok {
		r.staleGen++
		r.stale[m.Tournament] = r.staleGen
	}
	r.smu.Unlock()
	e.mu.Lock()
	created := e.t.Seq == 0
	var nodeErr error
	var merkle time.Duration
	// Every event but a tournament's first links to the one before it.
	if p, want := c.Envelopes[0].Prev, events.LinkTo(e.tree.Last()); p != want && (p != "" || e.tree.Size() > 0) {
		err = fmt.Errorf("%w: event %s is not linked to the last event of %s", events.ErrCorrupt, c.Envelopes[0].ID, m.Tournament)
	}
	for i, env := range c.Envelopes {
		if err != nil {
			break
		}
		if err = e.t.Apply(env, evs[i], chg); err != nil {
			break
		}
		// The event's stored line is its leaf: every node it completes is
		// stored in this batch.
		start := time.Now()
		err = e.tree.AppendLeaf(m.leaves[i], func(id checkpoint.NodeID, h []byte) {
			if nodeErr == nil {
				nodeErr = b.Set(keyNode(m.Tournament, id.Level, id.Index), h, nil)
			}
		})
		merkle += time.Since(start)
		if err != nil {
			break
		}
	}
	if err == nil {
		err = nodeErr
	}
	if err == nil {
		e.t.LastStreamSeq = m.StreamSeq
	}
	name := e.t.Name
	e.mu.Unlock()
	if err != nil {
		return err
	}
	if _, ok := r.dirtySnap[m.Tournament]; !ok {
		r.dirtySnap[m.Tournament] = m.StreamSeq
	}
	r.observed = append(r.observed, commitStats{events: len(c.Envelopes), merkle: merkle})

	last := c.Envelopes[len(c.Envelopes)-1]
	ref := CommitRef{Tournament: m.Tournament, StreamSeq: m.StreamSeq, First: first.Seq, Last: last.Seq, CommandID: first.CommandID}
	if created {
		if err := b.Set(keyTournament(m.Tournament), []byte(name), nil); err != nil {
			return err
		}
	}
	r.refBuf = appendCommitRef(r.refBuf[:0], ref)
	if err := b.Set(keyCommit(m.Tournament, first.Seq), r.refBuf, nil); err != nil {
		return err
	}
	if first.CommandID != "" {
		// A command's outcome is found by its stream sequence alone.
		r.refBuf = appendCommitRef(r.refBuf[:0], CommitRef{StreamSeq: m.StreamSeq})
		if err := b.Set(keyCommand(m.Tournament, first.CommandID), r.refBuf, nil); err != nil {
			return err
		}
	}
	for _, ev := range evs {
		if a, ok := ev.(events.OfficialAppointed); ok {
			p, _ := json.Marshal(Principal{Tournament: m.Tournament, Official: a.Official, Role: a.Role, Name: a.Name})
			if err := b.Set(keyToken(a.TokenSHA256), p, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeViews rewrites the read models a batch touched for one tournament.
func (r *Runner) writeViews(b *viewBatch, id string, chg *projections.Changes) error {
	r.mu.RLock()
	e := r.states[id]
	r.mu.RUnlock()
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := e.t
	put := func(key []byte, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("pebble: encode %s: %w", key, err)
		}
		return b.set(key, data)
	}
	if chg.Summary {
		if err := put(keySummary(id), t.SummaryView()); err != nil {
			return err
		}
	}
	for _, r := range slices.Sorted(maps.Keys(chg.Rounds)) {
		if v, ok := t.RoundView(r); ok {
			if err := put(keyRound(id, r), v); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(chg.Tables), func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	}) {
		if v, ok := t.TableView(k[0], k[1]); ok {
			if err := put(keyTable(id, k[0], k[1]), v); err != nil {
				return err
			}
		}
	}
	if chg.Standings {
		r.smu.Lock()
		if len(r.stale) == 0 {
			r.staleSince = time.Now()
		}
		r.staleGen++
		r.stale[id] = r.staleGen
		r.smu.Unlock()
	}
	for _, p := range slices.Sorted(maps.Keys(chg.Players)) {
		row, ok := t.PlayerView(p)
		if !ok {
			continue
		}
		if err := put(keyPlayer(id, p), row); err != nil {
			return err
		}
	}
	return nil
}

// oldestStale returns since when the oldest unwritten standings have been
// stale, and whether any are.
func (r *Runner) oldestStale() (time.Time, bool) {
	r.smu.Lock()
	defer r.smu.Unlock()
	return r.staleSince, len(r.stale) > 0
}

// kickFlusher asks the flusher to write the stale views, unless it has
// been asked already.
func (r *Runner) kickFlusher() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// staleWrite is what writeStale put in a batch: the generation of each
// tournament written, and the rankings by key.
type staleWrite struct {
	gens     map[string]uint64
	rankings map[string][]byte
}

// writeStale writes the standings and classification of the stale
// tournaments among only (every stale one if only is nil) into b and
// returns what it wrote. The caller holds fmu.
func (r *Runner) writeStale(b *pebble.Batch, only []string) (staleWrite, error) {
	r.smu.Lock()
	gens := map[string]uint64{}
	if only == nil {
		maps.Copy(gens, r.stale)
	} else {
		for _, id := range only {
			if g, ok := r.stale[id]; ok {
				gens[id] = g
			}
		}
	}
	r.smu.Unlock()
	// The state read below is at least as new as each generation taken
	// above: a change is folded before its generation is given.
	w := staleWrite{gens: gens, rankings: map[string][]byte{}}
	for _, id := range slices.Sorted(maps.Keys(gens)) {
		r.mu.RLock()
		e := r.states[id]
		r.mu.RUnlock()
		e.mu.RLock()
		st, cl := e.t.Standings(), e.t.Classification()
		e.mu.RUnlock()
		for key, v := range map[string]any{string(keyStandings(id)): st, string(keyClassification(id)): cl} {
			data, err := json.Marshal(v)
			if err != nil {
				return staleWrite{}, fmt.Errorf("pebble: encode %s: %w", key, err)
			}
			if err := b.Set([]byte(key), data, nil); err != nil {
				return staleWrite{}, err
			}
			w.rankings[key] = data
		}
	}
	return w, nil
}

// clearStale marks tournaments written, once their batch is committed:
// each one not changed again since the generation written. Those changed
// meanwhile are as stale as the write: staleMax counts from it, so that
// under steady load the flusher ranks every staleMax, not back to back.
func (r *Runner) clearStale(w staleWrite) {
	r.smu.Lock()
	for id, g := range w.gens {
		if r.stale[id] == g {
			delete(r.stale, id)
		}
	}
	maps.Copy(r.rankings, w.rankings)
	if len(w.gens) > 0 {
		r.staleSince = time.Now()
	}
	r.smu.Unlock()
}

// Ranking returns the stored standings (classification when final) of
// tournament t as the store holds them, from memory when this runner
// wrote or read them before, and whether there are any. The bytes are
// shared: the caller must not modify them.
func (r *Runner) Ranking(t string, classification bool) ([]byte, bool, error) {
	key := string(keyStandings(t))
	if classification {
		key = string(keyClassification(t))
	}
	r.smu.Lock()
	defer r.smu.Unlock()
	if b, ok := r.rankings[key]; ok {
		return b, true, nil
	}
	// Read under smu: a flush commits before it takes smu to record what
	// it wrote, so nothing older is recorded over it.
	b, ok, err := r.store.get([]byte(key))
	if err == nil && ok {
		r.rankings[key] = b
	}
	return b, ok, err
}

// flushStale writes the stale standings and classifications in one batch.
func (r *Runner) flushStale() error {
	r.fmu.Lock()
	defer r.fmu.Unlock()
	if _, ok := r.oldestStale(); !ok {
		return nil
	}
	b := r.store.db.NewBatch()
	defer b.Close()
	w, err := r.writeStale(b, nil)
	if err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebble: commit standings: %w", err)
	}
	r.clearStale(w)
	return nil
}

// snapshotChunk is the size of the pieces a snapshot is stored in: a large
// tournament's state (hundreds of MB at a million events) is never one
// buffer.
const snapshotChunk = 1 << 20

// snapshotParts is the size of the batches a snapshot's pieces are
// committed in: a state of hundreds of MB is never one batch (a buffer
// faulted in page by page, then held by Pebble until it is flushed).
const snapshotParts = 4 << 20

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

// writeSnapshots stores and commits, as of stream sequence at, the state of
// every tournament due a snapshot (see SnapshotEvery), with its standings
// and classification if stale: what a restart resumes from must be
// complete. sys/snapshot records where a restart resumes: just before the
// first commit of a tournament that is still not in its snapshot.
//
// A state is written as the pieces of a new generation, committed in
// parts; one last batch then makes each new generation current, deletes
// the pieces of every other one and moves sys/snapshot. A crash before
// that batch leaves the previous snapshots and resume point in force.
func (r *Runner) writeSnapshots(at uint64) error {
	r.fmu.Lock()
	defer r.fmu.Unlock()
	resume := at
	var due []string
	for _, id := range slices.Sorted(maps.Keys(r.dirtySnap)) {
		since := r.dirtySnap[id]
		r.mu.RLock()
		e := r.states[id]
		r.mu.RUnlock()
		e.mu.RLock()
		seq := e.t.Seq
		e.mu.RUnlock()
		if span := at - since + 1; span >= max(r.opts.SnapshotEvery, seq/8) {
			due = append(due, id)
		} else {
			resume = min(resume, since-1)
		}
	}
	parts := &viewBatch{db: r.store.db, b: r.store.db.NewBatch(), parts: snapshotParts}
	defer func() { parts.b.Close() }()
	sizes := make([]int, len(due))
	for i, id := range due {
		r.mu.RLock()
		e := r.states[id]
		r.mu.RUnlock()
		gen := prefixSnapGen(id, at)
		// Pieces of this generation left by an attempt cut short go
		// first: a shorter state would otherwise read them as its tail.
		if err := parts.b.DeleteRange(gen, upperBound(gen), nil); err != nil {
			return err
		}
		cw := &chunkWriter{out: parts, prefix: gen}
		e.mu.RLock()
		err := e.t.WriteSnapshot(cw)
		e.mu.RUnlock()
		if err == nil {
			err = cw.flush()
		}
		if err != nil {
			return fmt.Errorf("pebble: snapshot %s: %w", id, err)
		}
		sizes[i] = cw.n
	}
	if err := parts.b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebble: commit snapshots at %d: %w", at, err)
	}
	b := r.store.db.NewBatch()
	defer b.Close()
	var written staleWrite
	if len(due) > 0 {
		var err error
		if written, err = r.writeStale(b, due); err != nil {
			return err
		}
	}
	for i, id := range due {
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
		delete(r.dirtySnap, id)
		if r.opts.ObserveSnapshot != nil {
			r.opts.ObserveSnapshot(id, sizes[i])
		}
	}
	if err := b.Set(keySnapshot, u64(resume), nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebble: commit snapshots at %d: %w", at, err)
	}
	r.clearStale(written)
	return nil
}
