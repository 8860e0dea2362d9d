package node_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// TestRecordedHead: once the node is stopped, the head its projections
// recorded is the root of the tournament's stored lines; a tournament
// they have not seen has none.
func TestRecordedHead(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	n, err := node.StartNode(ctx, node.NodeOptions{Data: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	o, err := n.Ledger.Submit(ctx, ledger.Submission{Tournament: "h", Command: &commands.CreateTournament{ID: "h", Name: "H", Ruleset: "rtu"},
		Actor: events.Actor{ID: "admin", Role: events.RoleAdmin}, Key: "k", Route: ledger.RouteCreate})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Runner.WaitFor(ctx, 1); err != nil {
		t.Fatal(err)
	}
	body, _ := events.EncodeCommit(o.Events)
	n.Close()
	tree := checkpoint.NewTree()
	_ = events.CommitLines(body, func(l []byte) error { return tree.Append(l, nil) })
	l := node.Layout{Dir: dir}
	if size, root, ok, err := l.RecordedHead("h"); err != nil || !ok || size != 1 || !bytes.Equal(root, tree.Root()) {
		t.Errorf("h: %d %x %v %v; want 1 event and the root of its line", size, root, ok, err)
	}
	if _, _, ok, err := l.RecordedHead("other"); err != nil || ok {
		t.Errorf("a tournament not seen: %v %v", ok, err)
	}
}
