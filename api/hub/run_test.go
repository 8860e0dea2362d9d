package hub

import (
	"context"
	"os"
	"testing"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
)

func TestValidVenue(t *testing.T) {
	for name, want := range map[string]bool{
		"bologna": true, "venue-2": true,
		"": false, "hub": false, "a.b": false, "a b": false, "a*": false, "a>": false, "$a": false,
	} {
		if got := ValidVenue(name); got != want {
			t.Errorf("ValidVenue(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestStartMakesTheWitnessAndCloseStops: a hub started on a new directory
// makes its witness key beside the checkpoint keys, keeps it across
// restarts, answers with it, and Close stops it so that the directory can
// be started again.
func TestStartMakesTheWitnessAndCloseStops(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	start := func() *Running {
		t.Helper()
		r, err := Start(ctx, StartOptions{Data: dir, Leaf: eventlog.LeafListenOptions{Port: -1}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := start()
	if r.Hub.WitnessKey() != r.Witness.VerifierKey || r.Node.Server == nil {
		t.Errorf("hub witness %q, started %q; server %v", r.Hub.WitnessKey(), r.Witness.VerifierKey, r.Node.Server)
	}
	key := r.Witness.VerifierKey
	r.Close()
	if _, err := os.Stat(node.Layout{Dir: dir}.Keys()); err != nil {
		t.Fatal(err)
	}
	w, err := checkpoint.LoadOrCreateWitness(node.Layout{Dir: dir}.Keys(), "another", nil)
	if err != nil || w.VerifierKey != key {
		t.Errorf("the witness key kept: %v, %v; want %q", w, err, key)
	}
	r = start() // the directory is free again
	if r.Witness.VerifierKey != key {
		t.Errorf("restarted with witness %q, want %q", r.Witness.VerifierKey, key)
	}
	r.Close()
}
