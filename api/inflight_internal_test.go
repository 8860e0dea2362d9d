package api

import (
	"context"
	"testing"
	"time"
)

// TestCommandsInFlight: with no command in flight, giving way returns at
// once; with commands in flight it returns once the last is answered (an
// answer told twice counts once), or after its bound, or when its
// context ends.
func TestCommandsInFlight(t *testing.T) {
	var c commandsInFlight
	gaveWay := func(ctx context.Context, most time.Duration) <-chan struct{} {
		done := make(chan struct{})
		go func() { c.giveWay(ctx, most); close(done) }()
		return done
	}
	stillWaiting := func(done <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-done:
			t.Fatalf("%s: gave way no longer", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
	Within(t, gaveWay(context.Background(), time.Hour), "no command in flight")

	first, second := c.begin(), c.begin()
	done := gaveWay(context.Background(), time.Hour)
	stillWaiting(done, "two commands in flight")
	first()
	first()
	stillWaiting(done, "one answered (told twice), one in flight")
	second()
	Within(t, done, "both answered")
	Within(t, gaveWay(context.Background(), time.Hour), "both answered, a new wait")

	end := c.begin()
	defer end()
	Within(t, gaveWay(context.Background(), time.Millisecond), "a command in flight past the bound")
	Within(t, gaveWay(context.Background(), 0), "no bound: no wait")
	ctx, cancel := context.WithCancel(context.Background())
	done = gaveWay(ctx, time.Hour)
	stillWaiting(done, "a command in flight, the context alive")
	cancel()
	Within(t, done, "the context ended")
}
