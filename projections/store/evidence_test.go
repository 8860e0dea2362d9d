package store_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/store"
)

// TestReaderProvesEventsAtASize: an event's inclusion proof in the tree of
// a past size verifies against the root at that size, with the hash of
// the event's stored line; the consistency proof from that size to the
// whole log verifies the one root against the other.
func TestReaderProvesEventsAtASize(t *testing.T) {
	f := newFixture(t)
	n := start(t, f, t.TempDir(), store.RunnerOptions{})
	defer n.stop(t)
	rng := rand.New(rand.NewPCG(7, 8))
	f.tournament("alpha", 3, rng)
	n.waitFor(t, f.tournament("beta", 6, rng))
	r, err := projections.NewReader(projections.ReaderOptions{Log: f.log, Store: n.store, Memory: n.runner})
	if err != nil {
		t.Fatal(err)
	}
	size, err := r.Size("beta")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := size, f.seq["beta"]; got != want {
		t.Fatalf("Size(beta) = %d, want its %d events", got, want)
	}
	const seq, past = 3, 5
	line, err := r.EventLine(context.Background(), "beta", seq)
	if err != nil {
		t.Fatal(err)
	}
	leaf, path, err := r.InclusionProof("beta", seq, past)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(leaf, checkpoint.LeafHash(line)) {
		t.Errorf("the leaf hash of event %d is not its stored line's", seq)
	}
	rootPast, err := r.RootAt("beta", past)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.VerifyInclusion(seq-1, past, leaf, path, rootPast); err != nil {
		t.Errorf("the inclusion proof of event %d at size %d: %v", seq, past, err)
	}
	rootNow, err := r.RootAt("beta", size)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := r.ConsistencyProof("beta", past, size)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.VerifyConsistency(past, size, cons, rootPast, rootNow); err != nil {
		t.Errorf("the consistency proof from %d to %d: %v", past, size, err)
	}
	if same, err := r.ConsistencyProof("beta", size, size); err != nil || same == nil || len(same) != 0 {
		t.Errorf("ConsistencyProof of a size to itself = %v, %v; want an empty proof, not nil", same, err)
	}
	if _, err := r.Size("nobody"); !errors.Is(err, projections.ErrNotFound) {
		t.Errorf("Size of no tournament: %v, want ErrNotFound", err)
	}
	if _, err := r.EventLine(context.Background(), "beta", size+1); !errors.Is(err, projections.ErrNotFound) {
		t.Errorf("EventLine past the log: %v, want ErrNotFound", err)
	}
}

// TestReaderExportsUpToASize: an export gives the tournament's commits
// alone, line for line as the events read them, and stops at the size
// asked; checked against a root, it gives exactly the events with that
// root, and a root they do not have fails it with the damage inspection
// found.
func TestReaderExportsUpToASize(t *testing.T) {
	f := newFixture(t)
	n := start(t, f, t.TempDir(), store.RunnerOptions{})
	defer n.stop(t)
	rng := rand.New(rand.NewPCG(9, 10))
	f.tournament("alpha", 2, rng)
	f.tournament("beta", 2, rng)
	f.commit("alpha", events.PlayerWithdrew{Player: "p000", Scope: "tournament", Reason: "voluntary"})
	n.waitFor(t, f.commit("beta", events.PlayerWithdrew{Player: "p001", Scope: "tournament", Reason: "voluntary"}))
	damage := errors.New("the log was rewritten")
	r, err := projections.NewReader(projections.ReaderOptions{Log: f.log, Store: n.store, Memory: n.runner,
		Inspect: func(context.Context, string) error { return damage }})
	if err != nil {
		t.Fatal(err)
	}
	size, err := r.Size("alpha")
	if err != nil {
		t.Fatal(err)
	}
	page, err := r.Events(context.Background(), "alpha", 1, size)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, l := range page.Lines {
		want.Write(l)
		want.WriteByte('\n')
	}
	export := func(size uint64, root []byte) ([]byte, error) {
		var got bytes.Buffer
		err := r.Export(context.Background(), "alpha", size, root, func(commit []byte) error {
			got.Write(commit)
			return nil
		})
		return got.Bytes(), err
	}
	root, err := r.RootAt("alpha", size)
	if err != nil {
		t.Fatal(err)
	}
	got, err := export(size, root)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("Export of alpha's %d events: %v\n%s\nwant its events' lines:\n%s", size, err, got, want.Bytes())
	}
	// Each command of the fixture's registration is one event: its
	// commits end at every size.
	const prefix = 3
	got, err = export(prefix, nil)
	if lines := bytes.Count(got, []byte("\n")); err != nil || lines != prefix || !bytes.HasPrefix(want.Bytes(), got) {
		t.Errorf("Export up to %d events: %d lines, %v; want alpha's first %d", prefix, lines, err, prefix)
	}
	rootPrefix, err := r.RootAt("alpha", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := export(prefix, rootPrefix); err != nil {
		t.Errorf("Export up to %d events checked against their root: %v", prefix, err)
	}
	if _, err := export(size, rootPrefix); !errors.Is(err, damage) {
		t.Errorf("Export checked against a root the events do not have: %v, want the damage found", err)
	}
	if _, err := export(size, nil); err != nil {
		t.Errorf("Export unchecked: %v", err)
	}
	if err := r.Export(context.Background(), "nobody", 1, nil, func([]byte) error { return nil }); !errors.Is(err, projections.ErrNotFound) {
		t.Errorf("Export of no tournament: %v, want ErrNotFound", err)
	}
}
