package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/store"
)

// blockingLog is the fixture's log whose scans wait until released is
// closed, so that a past state holds its fold slot as long as a test says.
type blockingLog struct {
	projections.Log
	scanning chan struct{} // receives once per scan that began
	released chan struct{}
}

func (l blockingLog) Scan(ctx context.Context, from, until uint64, t string, fn func(events.StoredCommit) error) error {
	l.scanning <- struct{}{}
	<-l.released
	return l.Log.Scan(ctx, from, until, t, fn)
}

// blockedReader is a reader with options o of a node holding tournament
// alpha, whose scans of the log wait until the log is released: scans is
// how many of them may begin before the test takes their signals. A slot
// that cannot be had is given up after 50 ms.
func blockedReader(t *testing.T, scans int, o projections.ReaderOptions) (*projections.Reader, blockingLog) {
	t.Helper()
	f := newFixture(t)
	n := start(t, f, t.TempDir(), store.RunnerOptions{})
	t.Cleanup(func() { n.stop(t) })
	n.waitFor(t, f.tournament("alpha", 8, rand.New(rand.NewPCG(3, 4))))
	log := blockingLog{Log: f.log, scanning: make(chan struct{}, scans), released: make(chan struct{})}
	o.Log, o.Store, o.Memory, o.FoldWait = log, n.store, n.runner, 50*time.Millisecond
	r, err := projections.NewReader(o)
	if err != nil {
		t.Fatal(err)
	}
	return r, log
}

// TestReaderMakesTheStateOncePerSeq: the whole state read twice at one seq
// is one view, its next phase told once; after the next command it is made
// again, and the view of the seq before stays as it was. Its JSON is the
// view's.
func TestReaderMakesTheStateOncePerSeq(t *testing.T) {
	f := newFixture(t)
	n := start(t, f, t.TempDir(), store.RunnerOptions{})
	defer n.stop(t)
	n.waitFor(t, f.tournament("alpha", 12, rand.New(rand.NewPCG(1, 2))))
	told := 0
	r, err := projections.NewReader(projections.ReaderOptions{Log: f.log, Store: n.store, Memory: n.runner,
		NextPhase: func(*projections.Tournament) *projections.NextPhase {
			told++
			return &projections.NextPhase{Note: "not yet"}
		}})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := r.State("alpha")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := r.State("alpha")
	if again != v1 || told != 1 {
		t.Errorf("two reads at one seq: the same view %v, next phase told %d times; want the same view, told once", again == v1, told)
	}
	before, _ := json.Marshal(v1)
	js, err := r.StateJSON("alpha")
	if err != nil || string(js) != string(before) {
		t.Errorf("StateJSON = %s, %v; want the view's JSON %s", js, err, before)
	}

	n.waitFor(t, f.commit("alpha", events.PlayerWithdrew{Player: "p001", Scope: "tournament", Reason: "voluntary"}))
	v2, err := r.State("alpha")
	if err != nil {
		t.Fatal(err)
	}
	if v2 == v1 || v2.Summary.Seq != v1.Summary.Seq+1 || told != 2 {
		t.Errorf("after a command: a new view %v at seq %d (was %d), told %d times; want a new view at the next seq, told twice",
			v2 != v1, v2.Summary.Seq, v1.Summary.Seq, told)
	}
	if after, _ := json.Marshal(v1); string(after) != string(before) {
		t.Errorf("the view of seq %d changed once seq %d was read", v1.Summary.Seq, v2.Summary.Seq)
	}
	if _, err := r.State("nobody"); !errors.Is(err, projections.ErrNotFound) {
		t.Errorf("State of no tournament: %v, want ErrNotFound", err)
	}
}

// TestReaderFoldsPastStatesInItsSlots: a past state is folded from the log
// within the reader's slots; one more waits FoldWait, then is refused as
// unavailable; an event the tournament does not have is said as such.
func TestReaderFoldsPastStatesInItsSlots(t *testing.T) {
	r, log := blockedReader(t, 1, projections.ReaderOptions{Folds: 1})
	first := make(chan error, 1)
	go func() {
		st, err := r.StandingsAt(context.Background(), "alpha", 3)
		if err == nil && st.Seq > 3 {
			err = errors.New("standings after event 3 are of a later event")
		}
		first <- err
	}()
	<-log.scanning // the first fold holds the one slot
	if _, err := r.StateAt(context.Background(), "alpha", 2); !errors.Is(err, events.ErrUnavailable) {
		t.Errorf("a second past state while the one slot is held: %v, want unavailable", err)
	}
	close(log.released)
	if err := <-first; err != nil {
		t.Errorf("the first past state: %v", err)
	}
	v, err := r.StateAt(context.Background(), "alpha", 2)
	<-log.scanning
	if err != nil || v.Summary.Seq != 2 {
		t.Errorf("StateAt(2) once the slot is free: %v, %v; want the state at seq 2", v, err)
	}
	var ne *projections.NoEventError
	if _, err := r.StateAt(context.Background(), "alpha", 10_000); !errors.As(err, &ne) || ne.Seq != 10_000 {
		t.Errorf("StateAt an event alpha does not have: %v, want a NoEventError", err)
	}
}

// TestReaderExportsInItsSlots: an export reads the log within the export
// slots, apart from the past states' slots; one more export waits
// FoldWait, then is refused as unavailable before it hands on anything.
func TestReaderExportsInItsSlots(t *testing.T) {
	r, log := blockedReader(t, 2, projections.ReaderOptions{Folds: 1, Exports: 1})
	size, err := r.Size("alpha")
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	var lines int
	go func() {
		first <- r.Export(context.Background(), "alpha", size, nil, func(commit []byte) error {
			lines += bytes.Count(commit, []byte("\n"))
			return nil
		})
	}()
	<-log.scanning // the first export holds the one export slot
	second := make(chan error, 1)
	go func() {
		second <- r.Export(context.Background(), "alpha", size, nil, func([]byte) error { return errors.New("handed on a commit") })
	}()
	select {
	case err := <-second:
		if !errors.Is(err, events.ErrUnavailable) {
			t.Errorf("a second export while the one slot is held: %v, want unavailable before anything", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a second export read the log while the one export slot was held")
	}
	// A past state has slots of its own: it reads the log meanwhile.
	past := make(chan error, 1)
	go func() {
		_, err := r.StateAt(context.Background(), "alpha", 2)
		past <- err
	}()
	<-log.scanning
	close(log.released)
	if err := <-first; err != nil || uint64(lines) != size {
		t.Errorf("the first export: %d lines, %v; want %d", lines, err, size)
	}
	if err := <-past; err != nil {
		t.Errorf("a past state while the export slot was held: %v", err)
	}
}

// TestReaderReadsWhatMayBeReadNow: Fresh says why a tournament may not be
// read (the gate first, then the wait for what was acknowledged), and the
// list of tournaments leaves out those the gate holds.
func TestReaderReadsWhatMayBeReadNow(t *testing.T) {
	f := newFixture(t)
	n := start(t, f, t.TempDir(), store.RunnerOptions{})
	defer n.stop(t)
	rng := rand.New(rand.NewPCG(5, 6))
	f.tournament("alpha", 4, rng)
	n.waitFor(t, f.tournament("beta", 4, rng))
	held, behind := errors.New("held at the hub"), errors.New("the projections are behind")
	var asked []string
	r, err := projections.NewReader(projections.ReaderOptions{Log: f.log, Store: n.store, Memory: n.runner,
		Served: func(t string) error {
			if t == "beta" {
				return held
			}
			return nil
		},
		Acked: func(_ context.Context, t string) error {
			asked = append(asked, t)
			if t == "alpha" {
				return behind
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Fresh(context.Background(), "beta"); !errors.Is(err, held) {
		t.Errorf("Fresh(beta) = %v, want the gate's %v", err, held)
	}
	if err := r.Fresh(context.Background(), "alpha"); !errors.Is(err, behind) {
		t.Errorf("Fresh(alpha) = %v, want the wait's %v", err, behind)
	}
	if err := r.Fresh(context.Background(), ""); err != nil {
		t.Errorf("Fresh of no tournament: %v", err)
	}
	if got, want := len(asked), 2; got != want || asked[0] != "alpha" {
		t.Errorf("the wait was asked for %q, want alpha then \"\" (never for a tournament the gate holds)", asked)
	}
	list, err := r.Tournaments()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range list {
		var s projections.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	if len(ids) != 1 || ids[0] != "alpha" {
		t.Errorf("Tournaments() lists %v, want [alpha] (beta held)", ids)
	}
}
