package registry

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
)

type noRoster struct{}

func (noRoster) Tournament(string) bool               { return false }
func (noRoster) Player(string, string) (string, bool) { return "", false }
func (noRoster) NationalID(string) bool               { return true }

// TestASealedCommitThatDoesNotFoldSetsTheLogAside: a commit the hub sealed
// that is no event of the registry (its own log corrupted) is no message
// to pass over: the registry refuses reads and commands as unavailable,
// with why, and appends nothing more; a snapshot of it is taken, its head
// saying why it does not fold.
func TestASealedCommitThatDoesNotFoldSetsTheLogAside(t *testing.T) {
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Shutdown()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	keys, _ := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	r, err := Open(context.Background(), Options{Conn: nc, Keys: keys, Roster: noRoster{}})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"not":"an event"}` + "\n")
	if _, err := r.lg.AppendSealed(context.Background(), events.RegistryID, 0, "x", "", r.seal(body), body); err != nil {
		t.Fatal(err)
	}
	again, err := Open(context.Background(), Options{Conn: nc, Keys: keys, Roster: noRoster{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := again.Registry(); !errors.Is(err, events.ErrUnavailable) {
		t.Errorf("a read: %v", err)
	}
	cmd, _ := commands.ParseRegistry([]byte(`{"type":"MergePlayers","from":"1","into":"2","reason":"x"}`))
	if _, err := again.Submit(context.Background(), Submission{Command: cmd, Key: "k"}); !errors.Is(err, events.ErrUnavailable) {
		t.Errorf("a command: %v", err)
	}
	if n, _ := again.lg.LastSeq(context.Background()); n != 1 {
		t.Errorf("the log holds %d messages, want the 1 it had", n)
	}
	// A backup keeps it all the same, and says why it does not fold.
	var head Head
	if err := again.Snapshot(context.Background(), func(_ eventlog.SnapshotInfo, h Head) error { head = h; return nil }, func([]byte) error { return nil }); err != nil || head.Unfolded == "" || head.Events != 0 {
		t.Errorf("a snapshot: %v, head %+v", err, head)
	}
	if h, err := Fold(context.Background(), nc, keys); err != nil || h.Unfolded != head.Unfolded {
		t.Errorf("Fold: %v, %+v; want %q", err, h, head.Unfolded)
	}
}
