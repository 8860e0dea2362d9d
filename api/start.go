package api

import (
	"context"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/api/node"
)

// This file is the API's wiring: the one place in package api that meets a
// node's concrete parts (JetStream, Pebble, NATS) and hands them to the
// rest of the package as the interfaces of sources.go.

// Start starts a node with o and the API over it (a's Node is the one
// started); the API's metrics observe the node's appends, retries and
// applied commits, and its logger is the node's unless a has one. Close
// the node when done.
func Start(ctx context.Context, o node.NodeOptions, a Options) (*node.Node, *Server, error) {
	if a.Metrics == nil {
		a.Metrics = NewMetrics()
	}
	if a.Logger == nil {
		a.Logger = o.Logger
	}
	o.Observer = a.Metrics
	n, err := node.StartNode(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	a.Node = n
	srv, err := New(a)
	if err != nil {
		n.Close()
		return nil, nil, err
	}
	return n, srv, nil
}

// fromNode sets every one of Ledger, Log, Store, Runner, Keys and Conn
// left unset to the Node's, when there is one.
func (o *Options) fromNode() {
	n := o.Node
	if n == nil {
		return
	}
	if o.Ledger == nil {
		o.Ledger = n.Ledger
	}
	if o.Log == nil {
		o.Log = n.Log
	}
	if o.Store == nil {
		o.Store = n.Store
	}
	if o.Runner == nil {
		o.Runner = n.Runner
	}
	if o.Keys == nil {
		o.Keys = n.Keys
	}
	if o.Conn == nil && n.Conn != nil {
		o.Conn = natsConn{n.Conn}
	}
	if o.Inspect == nil && n.Heads != nil {
		o.Inspect = n.Inspect
	}
}

// natsConn is a NATS connection as /readyz reports it (Conn).
type natsConn struct{ c *nats.Conn }

func (n natsConn) Connected() (bool, string) { return n.c.IsConnected(), n.c.Status().String() }
