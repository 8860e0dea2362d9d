package store

import (
	"maps"
	"sync"
	"time"
)

// rankings knows which tournaments' standings and classification (the
// rankings, the costly views: they rank every player) the store does not
// hold as of their state yet, and serves the stored ones from memory. The
// projector marks a tournament stale as it folds a commit that changes
// them; the flusher and the snapshotter write them and mark them written.
// Until then readers compute them from the fold (Runner.Stale).
//
// Its one lock guards all of it, and is never held while ranking.
type rankings struct {
	store *Store

	mu    sync.Mutex
	stale map[string]uint64 // tournaments whose rankings are not written yet → generation of their last change
	gen   uint64            // the last generation given
	since time.Time         // when the oldest unwritten rankings became stale
	// stored holds the stored standings and classification (by key) as
	// written: what most reads serve, without a Pebble read and copy of a
	// value of hundreds of KB. Shared, never modified.
	stored map[string][]byte
}

func newRankings(store *Store) *rankings {
	return &rankings{store: store, stale: map[string]uint64{}, stored: map[string][]byte{}}
}

// Stale reports whether the stored standings and classification of a
// tournament lag behind its state.
func (k *rankings) Stale(t string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.stale[t]
	return ok
}

// Ranking returns the stored standings (classification when final) of
// tournament t as the store holds them, from memory when they were
// written or read before, and whether there are any. The bytes are
// shared: the caller must not modify them.
func (k *rankings) Ranking(t string, classification bool) ([]byte, bool, error) {
	key := string(keyStandings(t))
	if classification {
		key = string(keyClassification(t))
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if b, ok := k.stored[key]; ok {
		return b, true, nil
	}
	// Read under mu: a flush commits before it takes mu to record what
	// it wrote, so nothing older is recorded over it.
	b, ok, err := k.store.get([]byte(key))
	if err == nil && ok {
		k.stored[key] = b
	}
	return b, ok, err
}

// folding is told that a commit of tournament t is about to be folded. A
// tournament being ranked by the flusher is stale again from this fold
// on: the ranking may not have it, so it must not clear the flag (changed
// gives a generation too, but only after the fold).
func (k *rankings) folding(t string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.stale[t]; ok {
		k.gen++
		k.stale[t] = k.gen
	}
}

// changed marks the rankings of tournament t stale: a folded commit
// changed them.
func (k *rankings) changed(t string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.stale) == 0 {
		k.since = time.Now()
	}
	k.gen++
	k.stale[t] = k.gen
}

// oldest returns since when the oldest unwritten rankings have been
// stale, and whether any are.
func (k *rankings) oldest() (time.Time, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.since, len(k.stale) > 0
}

// pending returns the stale tournaments among only (every stale one if
// only is nil) with the generation of their last change. A state read
// after it is at least as new as each generation: a change is folded
// before its generation is given.
func (k *rankings) pending(only []string) map[string]uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	gens := map[string]uint64{}
	if only == nil {
		maps.Copy(gens, k.stale)
		return gens
	}
	for _, id := range only {
		if g, ok := k.stale[id]; ok {
			gens[id] = g
		}
	}
	return gens
}

// written records rankings committed to the store: each tournament not
// changed again since the generation written is no longer stale. Those
// changed meanwhile are as stale as the write: staleMax counts from it,
// so that under steady load the flusher ranks every staleMax, not back to
// back.
func (k *rankings) written(w rankingWrite) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, g := range w.gens {
		if k.stale[id] == g {
			delete(k.stale, id)
		}
	}
	maps.Copy(k.stored, w.rankings)
	if len(w.gens) > 0 {
		k.since = time.Now()
	}
}
