package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/store"
)

type fixture struct {
	t    *testing.T
	log  *eventlog.Log
	nc   *nats.Conn
	seq  map[string]uint64 // per-tournament seq
	exp  map[string]uint64 // per-tournament last stream seq
	last map[string][]byte // per-tournament last leaf hash, what the next event links to
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	l, err := eventlog.Open(context.Background(), nc, eventlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, log: l, nc: nc, seq: map[string]uint64{}, exp: map[string]uint64{}, last: map[string][]byte{}}
}

// commit appends one command's events to tournament tour.
func (f *fixture) commit(tour string, evs ...events.Event) uint64 {
	f.t.Helper()
	envs, err := events.Seal(tour, f.seq[tour]+1, time.Unix(1700000000+int64(f.seq[tour]), 0), events.Actor{ID: "o1", Role: "arbiter"}, fmt.Sprintf("k%d", f.seq[tour]+1), evs)
	if err == nil {
		err = events.Chain(envs, f.last[tour])
	}
	if err != nil {
		f.t.Fatal(err)
	}
	body, _ := events.EncodeCommit(envs)
	a, err := f.log.Append(context.Background(), tour, f.exp[tour], "", body)
	if err != nil {
		f.t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
	f.last[tour] = checkpoint.LeafHash(lines[len(lines)-1])
	f.seq[tour] += uint64(len(evs))
	f.exp[tour] = a.StreamSeq
	return a.StreamSeq
}

// tournament appends a plausible registration phase with n players.
func (f *fixture) tournament(tour string, n int, rng *rand.Rand) uint64 {
	rs, _ := events.Preset("rur-2015")
	f.commit(tour, events.TournamentCreated{Tournament: tour, Name: "Raduno " + tour, Ruleset: rs})
	f.commit(tour, events.OfficialAppointed{Official: "o1", Name: "Arbitro", Role: "arbiter", TokenSHA256: fmt.Sprintf("%064x", rng.Uint64())})
	for i := range n {
		f.commit(tour, events.PlayerRegistered{Player: fmt.Sprintf("p%03d", i), Name: fmt.Sprintf("Player %d", i), Club: fmt.Sprintf("club-%d", rng.IntN(5))})
		if rng.IntN(10) == 0 {
			f.commit(tour, events.RegistrationRefused{Player: fmt.Sprintf("p%03d", i), Reason: "late"})
		}
	}
	return f.commit(tour, events.RegistrationClosed{})
}

type node struct {
	store  *store.Store
	runner *store.Runner
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, f *fixture, dir string, opts store.RunnerOptions) *node {
	t.Helper()
	st, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := store.NewRunner(f.log, st, opts)
	ctx, cancel := context.WithCancel(context.Background())
	n := &node{store: st, runner: r, cancel: cancel, done: make(chan error, 1)}
	go func() { n.done <- r.Run(ctx) }()
	return n
}

func (n *node) stop(t *testing.T) {
	t.Helper()
	n.stopAndDump(t)
}

// stopAndDump stops the runner (which writes the views it deferred), dumps
// the store and closes it.
func (n *node) stopAndDump(t *testing.T) []byte {
	t.Helper()
	n.cancel()
	<-n.done
	d := dump(t, n.store)
	if err := n.store.Close(); err != nil {
		t.Fatal(err)
	}
	return d
}

func (n *node) waitFor(t *testing.T, seq uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := n.runner.WaitFor(ctx, seq); err != nil {
		t.Fatalf("WaitFor(%d): %v", seq, err)
	}
}

func dump(t *testing.T, s *store.Store) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// foldAll rebuilds tournament tour from the log with the pure fold.
func foldAll(t *testing.T, f *fixture, tour string) *projections.Tournament {
	t.Helper()
	last, _ := f.log.LastSubjectSeq(context.Background(), tour)
	var envs []events.Envelope
	var lastStream uint64
	err := f.log.Scan(context.Background(), 1, last, tour, func(m events.StoredCommit) error {
		c, err := events.DecodeCommit(m.Data)
		envs = append(envs, c.Envelopes...)
		lastStream = m.StreamSeq
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := projections.Fold(tour, envs, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.LastStreamSeq = lastStream
	return st
}

func stateJSON(t *testing.T, r *store.Runner, tour string) string {
	t.Helper()
	var b []byte
	if !r.Read(tour, func(st *projections.Tournament) { b, _ = json.Marshal(st) }) {
		t.Fatalf("runner has no tournament %s", tour)
	}
	return string(b)
}

func TestRunnerResumesAfterRestartAndRebuildIsByteIdentical(t *testing.T) {
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(1, 2))
	// A small snapshot interval exercises snapshot + tail replay on restart.
	opts := store.RunnerOptions{SnapshotEvery: 7, MaxBatch: 5}
	live := t.TempDir()

	n := start(t, f, live, opts)
	f.tournament("alpha", 20, rng)
	last := f.tournament("beta", 15, rng)
	n.waitFor(t, last)
	n.stop(t)

	// While the runner is down, the log grows; after a restart it resumes.
	f.tournament("gamma", 12, rng)
	last = f.commit("alpha", events.RulesetAmended{Ruleset: mustPreset("rtu")})
	n = start(t, f, live, opts)
	n.waitFor(t, last)
	if !n.runner.Ready() {
		t.Error("runner not ready after catching up")
	}
	for _, tour := range []string{"alpha", "beta", "gamma"} {
		if got, want := stateJSON(t, n.runner, tour), mustJSON(foldAll(t, f, tour)); got != want {
			t.Errorf("%s: runner state differs from a pure fold of the log:\n got %s\nwant %s", tour, got, want)
		}
	}
	liveDump := n.stopAndDump(t)

	// A rebuild from sequence 1 into an empty directory, with different
	// batching (the views it writes once caught up committed in parts of
	// one view each), yields the same keys and values byte for byte.
	rebuilt := start(t, f, t.TempDir(), store.RunnerOptions{SnapshotEvery: 7, MaxBatch: 1000, ViewsBatchBytes: 1})
	rebuilt.waitFor(t, last)
	if got := rebuilt.stopAndDump(t); !bytes.Equal(got, liveDump) {
		t.Errorf("rebuild differs from the live projections (%d vs %d bytes)", len(got), len(liveDump))
	}
}

func mustPreset(id events.PresetID) events.Ruleset {
	rs, _ := events.Preset(id)
	return rs
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestUnknownEventStopsTheRunner(t *testing.T) {
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(3, 4))
	good := f.tournament("alpha", 3, rng)
	// A commit from a future version of referto (or a forged one).
	line := fmt.Sprintf(`{"id":"alpha/%d","tournament":"alpha","seq":%d,"type":"PlayerTeleported","v":1,"at":"2026-01-01T00:00:00Z","actor":{"id":"o1","role":"arbiter"},"command_id":"x","data":{}}`+"\n", f.seq["alpha"]+1, f.seq["alpha"]+1)
	if _, err := f.log.Append(context.Background(), "alpha", f.exp["alpha"], "", []byte(line)); err != nil {
		t.Fatal(err)
	}
	n := start(t, f, t.TempDir(), store.RunnerOptions{MaxBatch: 1})
	select {
	case err := <-n.done:
		if !errors.Is(err, events.ErrUnknownEvent) {
			t.Fatalf("runner stopped with %v, want ErrUnknownEvent", err)
		}
		n.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("runner did not stop on an unknown event")
	}
	if n.runner.Ready() || n.runner.Err() == nil {
		t.Error("a stopped runner reports ready")
	}
	if got := n.runner.Applied(); got != good {
		t.Errorf("applied = %d, want %d (everything before the unknown event, nothing after)", got, good)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := n.runner.WaitFor(ctx, good+1); !errors.Is(err, projections.ErrNotReady) {
		t.Errorf("WaitFor past the unknown event: got %v, want ErrNotReady", err)
	}
	n.stop(t)
}

// TestBrokenLinkStopsTheRunner: a commit that does not link to the last
// stored event (written around the API, or a store tampered with) stops
// the projections before it.
func TestBrokenLinkStopsTheRunner(t *testing.T) {
	for _, tc := range []struct {
		name string
		prev []byte // what the next commit is linked to
	}{
		{"linked to another line", checkpoint.LeafHash([]byte("some other line"))},
		{"not linked at all", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			rng := rand.New(rand.NewPCG(5, 6))
			good := f.tournament("alpha", 3, rng)
			f.last["alpha"] = tc.prev
			f.commit("alpha", events.PlayerRegistered{Player: "p900", Name: "Late"})
			n := start(t, f, t.TempDir(), store.RunnerOptions{MaxBatch: 1})
			select {
			case err := <-n.done:
				if !errors.Is(err, events.ErrCorrupt) || !strings.Contains(err.Error(), "not linked") {
					t.Fatalf("runner stopped with %v, want a broken link", err)
				}
				n.done <- err
			case <-time.After(20 * time.Second):
				t.Fatal("runner did not stop on a broken link")
			}
			if got := n.runner.Applied(); got != good {
				t.Errorf("applied = %d, want %d", got, good)
			}
			n.stop(t)
		})
	}
}

func TestStoreAheadOfLogIsRefused(t *testing.T) {
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(5, 6))
	last := f.tournament("alpha", 3, rng)
	dir := t.TempDir()
	n := start(t, f, dir, store.RunnerOptions{})
	n.waitFor(t, last)
	n.stop(t)

	other := newFixture(t) // a different, shorter log
	other.tournament("zeta", 1, rng)
	m := start(t, other, dir, store.RunnerOptions{})
	select {
	case err := <-m.done:
		if err == nil {
			t.Fatal("runner accepted a store ahead of its log")
		}
		m.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("runner did not refuse a store ahead of its log")
	}
	m.stop(t)
}

// TestStandingsAreWrittenOnceTheRunnerIsIdle: the costly views are deferred
// while commits arrive, reported stale meanwhile, and written within the
// bound, equal to the fold.
func TestStandingsAreWrittenOnceTheRunnerIsIdle(t *testing.T) {
	f := newFixture(t)
	n := start(t, f, t.TempDir(), store.RunnerOptions{})
	defer n.stop(t)
	last := f.tournament("alpha", 12, rand.New(rand.NewPCG(8, 8)))
	n.waitFor(t, last)
	deadline := time.Now().Add(5 * time.Second)
	for n.runner.Stale("alpha") {
		if time.Now().After(deadline) {
			t.Fatal("standings still stale 5 s after the last commit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stored, ok, err := n.store.Standings("alpha")
	if err != nil || !ok {
		t.Fatalf("stored standings: %v %v", ok, err)
	}
	var want []byte
	n.runner.Read("alpha", func(st *projections.Tournament) { want, _ = json.Marshal(st.Standings()) })
	if string(stored) != string(want) {
		t.Errorf("stored standings differ from the fold:\n got %s\nwant %s", stored, want)
	}
	// What reads serve from memory is what the store holds.
	if mem, ok, err := n.runner.Ranking("alpha", false); err != nil || !ok || string(mem) != string(stored) {
		t.Errorf("Ranking = %v %v, differs from the stored standings", ok, err)
	}
	// A commit that changes the standings makes them stale again, and the
	// next write replaces what reads serve.
	last = f.commit("alpha", events.RegistrationRefused{Player: "p000", Reason: "mistake"})
	n.waitFor(t, last)
	if !n.runner.Stale("alpha") {
		t.Log("standings already written when WaitFor returned (idle flush won the race)")
	}
	for deadline := time.Now().Add(5 * time.Second); n.runner.Stale("alpha"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("standings still stale 5 s after the last commit")
		}
	}
	n.runner.Read("alpha", func(st *projections.Tournament) { want, _ = json.Marshal(st.Standings()) })
	if mem, _, _ := n.runner.Ranking("alpha", false); string(mem) != string(want) {
		t.Errorf("after the refusal, Ranking serves\n%s\nwant\n%s", mem, want)
	}
	if stored, _, _ := n.store.Standings("alpha"); string(stored) != string(want) {
		t.Error("after the refusal, the store holds other standings than the fold")
	}
}

// TestLargeTournamentIsSnapshottedGeometrically: a tournament is snapshotted
// when its unsnapshotted commits span SnapshotEvery or an eighth of its
// events, so a growing tournament is rewritten a logarithmic number of times,
// not once per SnapshotEvery; a restart resumes before the oldest commit not
// in a snapshot and skips the commits of tournaments snapshotted later.
func TestLargeTournamentIsSnapshottedGeometrically(t *testing.T) {
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(9, 9))
	var mu sync.Mutex
	snaps := map[string]int{}
	opts := store.RunnerOptions{SnapshotEvery: 4, MaxBatch: 1, ObserveSnapshot: func(tour string, _ int) {
		mu.Lock()
		snaps[tour]++
		mu.Unlock()
	}}
	dir := t.TempDir()
	n := start(t, f, dir, opts)
	last := f.tournament("big", 400, rng)
	n.waitFor(t, last)
	// A few commits of big (fewer than an eighth of its events: no
	// snapshot is due), then enough of small to snapshot it after them.
	for i := range 5 {
		last = f.commit("big", events.PlayerRegistered{Player: fmt.Sprintf("late%d", i), Name: "Late"})
	}
	last = f.tournament("small", 8, rng)
	n.waitFor(t, last)
	n.stop(t)

	mu.Lock()
	big, small := snaps["big"], snaps["small"]
	mu.Unlock()
	commits := f.exp["big"]
	if big < 5 || big > 45 {
		t.Errorf("big (%d commits) snapshotted %d times, want a logarithmic number (5..45); every %d stream sequences would be %d",
			commits, big, opts.SnapshotEvery, commits/opts.SnapshotEvery)
	}
	if small == 0 {
		t.Error("small never snapshotted")
	}
	t.Logf("big: %d commits, %d snapshots; small: %d snapshots", commits, big, small)

	// The restart resumes before big's unsnapshotted commits, passes over
	// small's (already in its snapshot) and ends where a pure fold does.
	last = f.commit("small", events.PlayerRegistered{Player: "p999", Name: "After"})
	n = start(t, f, dir, opts)
	n.waitFor(t, last)
	for _, tour := range []string{"big", "small"} {
		if got, want := stateJSON(t, n.runner, tour), mustJSON(foldAll(t, f, tour)); got != want {
			t.Errorf("%s after restart differs from a pure fold of the log", tour)
		}
	}
	n.stop(t)
}

// TestTolerateSetsATournamentAside: with Tolerate (a hub), a tournament
// whose commit cannot be applied is set aside and the others go on.
func TestTolerateSetsATournamentAside(t *testing.T) {
	f := newFixture(t)
	rng := rand.New(rand.NewPCG(7, 8))
	f.tournament("alpha", 3, rng)
	f.last["alpha"] = nil // alpha's next commit is linked to nothing
	f.commit("alpha", events.PlayerRegistered{Player: "p900", Name: "Late"})
	f.commit("alpha", events.PlayerRegistered{Player: "p901", Name: "Later"})
	last := f.tournament("beta", 3, rng)
	var aside []string
	var mu sync.Mutex
	n := start(t, f, t.TempDir(), store.RunnerOptions{MaxBatch: 1, Tolerate: func(tour string, _ uint64, err error) bool {
		mu.Lock()
		defer mu.Unlock()
		aside = append(aside, tour)
		return errors.Is(err, events.ErrCorrupt)
	}})
	n.waitFor(t, last)
	mu.Lock()
	if len(aside) != 1 || aside[0] != "alpha" {
		t.Errorf("set aside %v, want [alpha] once", aside)
	}
	mu.Unlock()
	if ref, ok, err := n.store.LastCommit("beta"); err != nil || !ok || ref.StreamSeq != last {
		t.Errorf("beta's last commit %+v %v %v, want stream sequence %d", ref, ok, err, last)
	}
	n.stop(t)
}
