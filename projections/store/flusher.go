package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Standings and classification are the costly read models: ranking every
// player. The flusher writes them on a goroutine of its own when the
// runner has been idle for staleIdle or they have been stale for staleMax,
// beside the runner (which so never stops applying commits to rank
// players); snapshots and the runner's stop write them too. In between,
// readers compute them from the in-memory fold (Runner.Stale). At rest the
// store holds exactly what a rebuild writes.
const (
	staleIdle = 50 * time.Millisecond
	staleMax  = time.Second
)

// flusher ranks the tournaments whose standings and classification are
// stale and writes them. Every writer of rankings (the flusher's own
// goroutine, the snapshotter, the runner's final flush) goes through
// write, under its one lock: an older ranking is never written over a
// newer one. The lock is held while ranking, which the projector never
// waits for.
type flusher struct {
	store    *Store
	states   *stateCache
	rankings *rankings

	mu   sync.Mutex    // serializes the writers of rankings
	kick chan struct{} // asks the flusher's goroutine to write the stale rankings
}

func newFlusher(store *Store, states *stateCache, rk *rankings) *flusher {
	return &flusher{store: store, states: states, rankings: rk, kick: make(chan struct{}, 1)}
}

// run writes the stale rankings whenever asked (wake) until ctx is done,
// and returns nil then, or the first error of a write.
func (f *flusher) run(ctx context.Context) error {
	for {
		select {
		case <-f.kick:
			if err := f.flush(); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// wake asks run to write the stale rankings, unless it has been asked
// already.
func (f *flusher) wake() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// flush writes every stale ranking in one batch.
func (f *flusher) flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.rankings.oldest(); !ok {
		return nil
	}
	b := f.store.db.NewBatch()
	defer b.Close()
	return f.writeLocked(b, nil, func() error {
		if err := b.Commit(pebble.NoSync); err != nil {
			return fmt.Errorf("pebble: commit standings: %w", err)
		}
		return nil
	})
}

// write puts into b the standings and classification of the stale
// tournaments among only (every stale one if only is nil), calls commit
// (which commits b with whatever else the caller put in it), and then
// records the rankings written. All of it under the writers' lock.
func (f *flusher) write(b *pebble.Batch, only []string, commit func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writeLocked(b, only, commit)
}

func (f *flusher) writeLocked(b *pebble.Batch, only []string, commit func() error) error {
	w, err := f.rank(b, f.rankings.pending(only))
	if err != nil {
		return err
	}
	if err := commit(); err != nil {
		return err
	}
	f.rankings.written(w)
	return nil
}

// rankingWrite is what rank put in a batch: the generation of each
// tournament written, and the rankings by key.
type rankingWrite struct {
	gens     map[string]uint64
	rankings map[string][]byte
}

// rank puts the standings and classification of the tournaments of gens
// into b, ranked from their current states.
func (f *flusher) rank(b *pebble.Batch, gens map[string]uint64) (rankingWrite, error) {
	w := rankingWrite{gens: gens, rankings: map[string][]byte{}}
	for _, id := range slices.Sorted(maps.Keys(gens)) {
		e := f.states.get(id)
		e.mu.RLock()
		st, cl := e.t.Rankings()
		e.mu.RUnlock()
		for key, v := range map[string]any{string(keyStandings(id)): st, string(keyClassification(id)): cl} {
			data, err := json.Marshal(v)
			if err != nil {
				return rankingWrite{}, fmt.Errorf("pebble: encode %s: %w", key, err)
			}
			if err := b.Set([]byte(key), data, nil); err != nil {
				return rankingWrite{}, err
			}
			w.rankings[key] = data
		}
	}
	return w, nil
}
