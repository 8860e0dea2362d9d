package hub

import (
	"context"
	"crypto/rand"
	"log/slog"
	"sync/atomic"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
)

// Domain is the JetStream domain of the hub's embedded server; a venue's
// is its name.
const Domain = "hub"

// ValidVenue reports whether name can name a venue at the hub: a JetStream
// domain (no dots, spaces or wildcards) other than the hub's own.
func ValidVenue(name string) bool { return eventlog.ValidVenue(name, Domain) }

// StartOptions configure Start: a national hub on a data directory.
type StartOptions struct {
	// Data is the hub's data directory (node.Layout). Required.
	Data string
	// Leaf is where venues' leaf nodes connect, and what they present.
	Leaf eventlog.LeafListenOptions
	// Logger receives what the node and the hub do; nil discards.
	Logger *slog.Logger
	// Observer, when set, is told of the node's commits (api.Metrics).
	Observer ledger.Observer
	// Locked says the caller holds the data directory
	// (node.NodeOptions.Locked).
	Locked bool
}

// Running is a hub Start started: its node, its witness key and the Hub
// answering venues over them. Close stops them.
type Running struct {
	Hub     *Hub
	Node    *node.Node
	Witness *checkpoint.Witness

	stop func()
	done chan struct{}
}

// Start starts a national hub on a data directory: the node, whose
// embedded server accepts the venues' leaf nodes and whose stream sources
// their tournaments, the witness key (made on first start, beside the
// checkpoint keys), and the Hub, running until Close. A venue's tournament
// the hub's projections cannot apply is set aside and quarantined, not the
// end of the hub.
func Start(ctx context.Context, o StartOptions) (r *Running, err error) {
	// The runner asks, once per tournament and from its own goroutine,
	// possibly before the Hub exists: it never waits (past 16 waiting, a
	// report is dropped; the tournament is set aside all the same).
	type aside struct {
		t   string
		seq uint64
		why string
	}
	setAside := make(chan aside, 16)
	tolerate := func(t string, seq uint64, err error) bool {
		select {
		case setAside <- aside{t, seq, err.Error()}:
		default:
		}
		return true
	}
	// The leaf port admits a venue by the password the administrator
	// issued it (Hub.IssueLink), once the Hub is there to ask.
	var admit atomic.Pointer[Hub]
	leaf := o.Leaf
	leaf.Venues = func(venue, password string) bool {
		h := admit.Load()
		return h != nil && h.CheckLeaf(venue, password)
	}
	n, err := node.StartNode(ctx, node.NodeOptions{Data: o.Data, Logger: o.Logger, Observer: o.Observer,
		Domain: Domain, Sourced: true, Tolerate: tolerate, LeafListen: &leaf, Locked: o.Locked})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	layout := node.Layout{Dir: o.Data}
	witness, err := checkpoint.LoadOrCreateWitness(layout.Keys(), "referto-hub", rand.Reader)
	if err != nil {
		return nil, err
	}
	h, err := New(Options{Log: n.Log, Store: n.Store, Conn: n.Conn, Witness: witness,
		StatePath: layout.HubState(), Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	admit.Store(h)
	hctx, stop := context.WithCancel(ctx)
	r = &Running{Hub: h, Node: n, Witness: witness, stop: stop, done: make(chan struct{})}
	go func() { defer close(r.done); _ = h.Run(hctx) }()
	go func() {
		for {
			select {
			case <-hctx.Done():
				return
			case a := <-setAside:
				h.SetAside(a.t, a.seq, a.why)
			}
		}
	}()
	return r, nil
}

// Close stops the hub, waits for it, then closes the node.
func (r *Running) Close() {
	r.stop()
	<-r.done
	r.Node.Close()
}

// Start runs the venue's side of the witness (Run) until stop, which ends
// it and waits for it.
func (c *Client) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(ctx) }()
	return func() { cancel(); <-done }
}
