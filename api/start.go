package api

import (
	"context"

	"github.com/referto/referto/commands/ledger"
)

// Start starts a node with o and the API over it (a's Node is the one
// started); the API's metrics observe the node's appends, retries and
// applied commits, and its logger is the node's unless a has one. Close
// the node when done.
func Start(ctx context.Context, o ledger.NodeOptions, a Options) (*ledger.Node, *Server, error) {
	if a.Metrics == nil {
		a.Metrics = NewMetrics()
	}
	if a.Logger == nil {
		a.Logger = o.Logger
	}
	o.Observer = a.Metrics
	node, err := ledger.StartNode(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	a.Node = node
	srv, err := New(a)
	if err != nil {
		node.Close()
		return nil, nil, err
	}
	return node, srv, nil
}
