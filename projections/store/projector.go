package store

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// projector applies batches of commits: it folds each into its
// tournament's state in the state cache and writes, in one Pebble batch,
// the read models the batch touched, the command, commit and token
// indexes, the tournaments' Merkle tree nodes and the last applied stream
// sequence; then it moves the cache's applied sequence, and snapshots the
// states due one. It has no lock: the runner's goroutine alone calls it.
// The rankings it leaves to the flusher, marking them stale.
type projector struct {
	store    *Store
	states   *stateCache
	rankings *rankings
	snaps    *snapshotter
	opts     RunnerOptions

	stored   uint64        // sys/applied as last written
	caughtUp bool          // applied has reached the log's end seen at start once: snapshots and flushes may run
	deferred touched       // while catching up, the views touched so far, written once caught up
	observed []commitStats // of the batch being applied, for Observe
	refBuf   []byte        // for index values
	// setAside are the tournaments Tolerate set aside, with why.
	setAside map[string]error
}

func newProjector(store *Store, states *stateCache, rk *rankings, snaps *snapshotter, opts RunnerOptions) *projector {
	return &projector{store: store, states: states, rankings: rk, snaps: snaps, opts: opts, deferred: touched{}}
}

// resume sets where the projector starts: the stream sequence the store
// holds (sys/applied), and whether the states restored from snapshots
// already reach the log's end seen at start.
func (p *projector) resume(stored uint64, caughtUp bool) {
	p.stored, p.caughtUp = stored, caughtUp
}

// decoded is a message with its commit and events decoded, or why they
// could not be.
type decoded struct {
	events.StoredCommit
	commit events.Commit
	evs    []events.Event
	leaves [][]byte // the Merkle leaf hash of each line, hashed beside the fold
	err    error
}

func decode(m events.StoredCommit) decoded {
	d := decoded{StoredCommit: m}
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

// apply folds and stores a batch of commits, in stream order.
func (p *projector) apply(msgs []decoded) error {
	// The views written once a rebuild has caught up can be hundreds of
	// MB: they are committed in parts (nobody reads the store before the
	// runner is ready), so that no batch doubles and copies itself up to
	// that size. Once caught up, a batch is committed whole.
	vb := &viewBatch{db: p.store.db, b: p.store.db.NewBatch()}
	if !p.caughtUp {
		vb.parts = p.opts.ViewsBatchBytes
	}
	defer func() { vb.b.Close() }()
	ch := touched{}
	p.observed = p.observed[:0]
	for _, m := range msgs {
		if p.setAside[m.Tournament] != nil {
			continue
		}
		err := p.held(m)
		if err == nil {
			err = p.applyMsg(vb.b, m, ch)
		}
		if err != nil {
			err = fmt.Errorf("stream sequence %d: %w", m.StreamSeq, err)
			if p.opts.Tolerate == nil || m.Tournament == "" || !p.opts.Tolerate(m.Tournament, m.StreamSeq, err) {
				return err
			}
			if p.setAside == nil {
				p.setAside = map[string]error{}
			}
			p.setAside[m.Tournament] = err
			delete(ch, m.Tournament)
			p.opts.Logger.Error("tournament set aside", "tournament", m.Tournament, "err", err)
		}
	}
	last := msgs[len(msgs)-1].StreamSeq
	if !p.caughtUp {
		ch = p.deferViews(ch, last)
	}
	for _, id := range slices.Sorted(maps.Keys(ch)) {
		if err := p.writeViews(vb, id, ch[id]); err != nil {
			return err
		}
	}
	b := vb.b
	if last > p.stored {
		if err := b.Set(keyApplied, u64(last), nil); err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("pebble: commit batch ending at %d: %w", last, err)
	}
	// Observed before applied moves: whoever sees a commit applied sees
	// it counted.
	if p.opts.Observe != nil {
		for _, c := range p.observed {
			p.opts.Observe(c.events, c.merkle)
		}
	}
	p.stored = max(p.stored, last)
	p.states.advance(last)
	// Snapshots follow the batch in a batch of their own: the views are
	// readable (and the waiting commands answered) without waiting for
	// a large state to be encoded.
	if done := !p.caughtUp && last >= p.states.target.Load(); done || p.caughtUp && last%p.opts.SnapshotEvery == 0 {
		p.caughtUp = true
		if err := p.snaps.write(last); err != nil {
			return err
		}
	}
	return nil
}

// held refuses a commit holding an event its tournament's state must not
// hold (RunnerOptions.Hold).
func (p *projector) held(m decoded) error {
	if p.opts.Hold == nil || m.err != nil || len(m.commit.Envelopes) == 0 {
		return nil
	}
	seq, ok := p.opts.Hold(m.Tournament)
	if last := m.commit.Envelopes[len(m.commit.Envelopes)-1]; ok && last.Seq >= seq {
		return fmt.Errorf("%w: event %d of %s is damaged in the log: its commit and the later ones are not applied", events.ErrCorrupt, seq, m.Tournament)
	}
	return nil
}

// deferViews is what a batch ending at stream sequence last writes while
// catching up (a rebuild, a restart), when nobody reads the store: no
// view until it has caught up, then every view touched since, once, not
// again for every batch that touched it (a player's row for each of its
// games).
func (p *projector) deferViews(ch touched, last uint64) touched {
	for id, c := range ch {
		if p.deferred[id] == nil {
			p.deferred[id] = &projections.Changes{}
		}
		p.deferred[id].Merge(c)
	}
	if last < p.states.target.Load() {
		return touched{}
	}
	ch, p.deferred = p.deferred, touched{}
	return ch
}

// applyMsg folds one commit and puts its indexes and Merkle nodes into b.
func (p *projector) applyMsg(b *pebble.Batch, m decoded, ch touched) error {
	if m.err != nil {
		return m.err
	}
	first := m.commit.Envelopes[0]
	if first.Tournament != m.Tournament {
		return fmt.Errorf("%w: event %s stored under tournament %s", events.ErrCorrupt, first.ID, m.Tournament)
	}
	e := p.states.forCommit(m.Tournament, m.StreamSeq)
	if e == nil {
		return nil // already in the tournament's snapshot
	}
	chg := ch[m.Tournament]
	if chg == nil {
		chg = &projections.Changes{}
		ch[m.Tournament] = chg
	}
	p.rankings.folding(m.Tournament)
	created, name, merkle, err := p.fold(b, e, m, chg)
	if err != nil {
		return err
	}
	p.snaps.changed(m.Tournament, m.StreamSeq)
	p.observed = append(p.observed, commitStats{events: len(m.commit.Envelopes), merkle: merkle})
	if created {
		if err := b.Set(keyTournament(m.Tournament), []byte(name), nil); err != nil {
			return err
		}
	}
	return p.index(b, m)
}

// fold applies a commit's events to e under its lock and appends them to
// its Merkle tree, putting every node they complete into b. It returns
// whether the commit created the tournament, its name, and the time spent
// on the tree.
func (p *projector) fold(b *pebble.Batch, e *entry, m decoded, chg *projections.Changes) (created bool, name string, merkle time.Duration, err error) {
	c := m.commit
	e.mu.Lock()
	defer e.mu.Unlock()
	created = e.t.Seq == 0
	// Every event but a tournament's first links to the one before it.
	if prev, want := c.Envelopes[0].Prev, events.LinkTo(e.tree.Last()); prev != want && (prev != "" || e.tree.Size() > 0) {
		return false, "", 0, fmt.Errorf("%w: event %s is not linked to the last event of %s", events.ErrCorrupt, c.Envelopes[0].ID, m.Tournament)
	}
	var nodeErr error
	for i, env := range c.Envelopes {
		if err := e.t.Apply(env, m.evs[i], chg); err != nil {
			return false, "", 0, err
		}
		// The event's stored line is its leaf: every node it completes is
		// stored in this batch.
		start := time.Now()
		err := e.tree.AppendLeaf(m.leaves[i], func(id checkpoint.NodeID, h []byte) {
			if nodeErr == nil {
				nodeErr = b.Set(keyNode(m.Tournament, id.Level, id.Index), h, nil)
			}
		})
		merkle += time.Since(start)
		if err != nil {
			return false, "", 0, err
		}
	}
	if nodeErr != nil {
		return false, "", 0, nodeErr
	}
	e.t.LastStreamSeq = m.StreamSeq
	return created, e.t.Name, merkle, nil
}

// index puts a commit's entries of the commit, command and token indexes
// into b.
func (p *projector) index(b *pebble.Batch, m decoded) error {
	first, last := m.commit.Envelopes[0], m.commit.Envelopes[len(m.commit.Envelopes)-1]
	ref := projections.CommitRef{Tournament: m.Tournament, StreamSeq: m.StreamSeq, First: first.Seq, Last: last.Seq, CommandID: first.CommandID}
	p.refBuf = appendCommitRef(p.refBuf[:0], ref)
	if err := b.Set(keyCommit(m.Tournament, first.Seq), p.refBuf, nil); err != nil {
		return err
	}
	if first.CommandID != "" {
		// A command's outcome is found by its stream sequence alone.
		p.refBuf = appendCommitRef(p.refBuf[:0], projections.CommitRef{StreamSeq: m.StreamSeq})
		if err := b.Set(keyCommand(m.Tournament, first.CommandID), p.refBuf, nil); err != nil {
			return err
		}
		// A creation's key stands for it across tournaments: the key of
		// POST /v1/tournaments is not scoped by the id in its body.
		if first.Type == events.TypeTournamentCreated {
			if err := b.Set(keyCreation(first.CommandID), p.refBuf, nil); err != nil {
				return err
			}
		}
	}
	for _, ev := range m.evs {
		if a, ok := ev.(events.OfficialAppointed); ok {
			pr, _ := json.Marshal(projections.Principal{Tournament: m.Tournament, Official: a.Official, Role: a.Role, Name: a.Name})
			if err := b.Set(keyToken(a.TokenSHA256), pr, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeViews rewrites the read models a batch touched for one tournament,
// and marks its rankings stale if they changed: the flusher writes them.
func (p *projector) writeViews(b *viewBatch, id string, chg *projections.Changes) error {
	e := p.states.get(id)
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
		p.rankings.changed(id)
	}
	for _, pl := range slices.Sorted(maps.Keys(chg.Players)) {
		row, ok := t.PlayerView(pl)
		if !ok {
			continue
		}
		if err := put(keyPlayer(id, pl), row); err != nil {
			return err
		}
	}
	return nil
}
