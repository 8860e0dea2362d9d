package ledger

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
)

// NodeOptions configures one running referto: where its data lives, which
// NATS it uses, and the ledger on top.
type NodeOptions struct {
	// Data is the data directory (see Layout). Required.
	Data string
	// NATS is the URL of an existing NATS cluster; empty (the default)
	// starts an embedded server with its store in Layout.NATS.
	NATS string
	// Replicas is the stream replication factor; the default is 1.
	Replicas int
	// SyncInterval relaxes the embedded server's per-write fsync; 0 (the
	// default) fsyncs every write before acknowledging it.
	SyncInterval time.Duration
	// DuplicateWindow is JetStream's Nats-Msg-Id window; the default is 2
	// minutes. Idempotency outlives it through the command index.
	DuplicateWindow time.Duration
	// DiskReserve is the free space on the data directory's filesystem
	// below which commands are refused; the default is DefaultDiskReserve.
	// A smaller one gets the projection store smaller memtables, so that
	// what it may still write fits (MemTableSizeFor).
	DiskReserve uint64
	// StoreFS is the filesystem the projections are kept on; the default
	// is the operating system's. Tests put faults in it.
	StoreFS vfs.FS
	// Disk measures the filesystem the guard watches; the default is the
	// one holding Data.
	Disk func() (DiskState, error)
	// CommandTimeout bounds one command, decision to acknowledgement
	// (default 10 s): without a quorum a command is refused with
	// events.ErrUnavailable when it runs out.
	CommandTimeout time.Duration
	// Clock is the time stamped on events; the default is time.Now.
	Clock func() time.Time
	// Random makes the checkpoint key on first start; the default is
	// crypto/rand.
	Random io.Reader
	// Logger receives operational logs; nil discards.
	Logger *slog.Logger
	// Observer, when set, is told of the ledger's appends and retries and
	// of every commit the projections apply.
	Observer Observer
	// Domain is the embedded server's JetStream domain, required with
	// LeafListen or LeafRemote; the default is none.
	Domain string
	// LeafListen makes the embedded server accept venues' leaf nodes (a
	// hub); LeafRemote makes it a leaf node of a hub (a venue).
	LeafListen *jetstream.LeafListenOptions
	LeafRemote *jetstream.LeafRemoteOptions
	// Sourced opens the log as a hub's: a stream that holds only what it
	// sources from its venues (jetstream.Options.Sourced).
	Sourced bool
	// Tolerate is the projections' pebble.RunnerOptions.Tolerate: a hub
	// sets aside a venue's tournament its events cannot be applied to.
	Tolerate func(tournament string, streamSeq uint64, err error) bool
}

// Node is a running referto without its HTTP API: the NATS connection (and
// embedded server when used), the log, the projections and their runner,
// the keys, and the Ledger over them.
type Node struct {
	Layout Layout
	Server *server.Server // nil with an external NATS
	Conn   *nats.Conn
	Log    *jetstream.Log
	Store  *pebble.Store
	Runner *pebble.Runner
	Keys   *checkpoint.Keys
	Ledger *Ledger
	// Quarantined is where a corrupt projection store was moved at start
	// ("" when none was): the runner rebuilt the projections from the log.
	Quarantined string

	stopRunner context.CancelFunc
	runnerDone chan struct{}
}

// StartNode starts a node and its projection runner. It does not wait for
// the projections to catch up: Runner.Ready reports that, and Submit
// refuses commands until then.
func StartNode(ctx context.Context, o NodeOptions) (n *Node, err error) {
	if o.Data == "" {
		return nil, errors.New("ledger: NodeOptions.Data is required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Observer == nil {
		o.Observer = nopObserver{}
	}
	if o.DiskReserve == 0 {
		o.DiskReserve = DefaultDiskReserve
	}
	memTable, err := MemTableSizeFor(o.DiskReserve)
	if err != nil {
		return nil, err
	}
	if o.Disk == nil {
		data := o.Data
		o.Disk = func() (DiskState, error) { return StatDisk(data) }
	}
	n = &Node{Layout: Layout{Dir: o.Data}, runnerDone: make(chan struct{})}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	if err := os.MkdirAll(o.Data, 0o700); err != nil {
		return nil, err
	}
	if err := n.connect(ctx, o); err != nil {
		return nil, err
	}
	clock := o.Clock
	if clock == nil {
		clock = time.Now
	}
	n.Store, n.Quarantined, err = pebble.OpenVerified(n.Layout.Projections(),
		pebble.StoreOptions{MemTableSize: memTable, Logger: o.Logger, Clock: clock, FS: o.StoreFS})
	if err != nil {
		return nil, err
	}
	o.Logger.Info("disk guard", "reserve_mib", o.DiskReserve>>20, "memtable_mib", memTable>>20)
	n.Runner = pebble.NewRunner(n.Log, n.Store, pebble.RunnerOptions{Logger: o.Logger, Observe: o.Observer.Applied, Tolerate: o.Tolerate})
	n.Keys, err = checkpoint.LoadOrCreateKeys(n.Layout.Keys(), "referto", o.Random)
	if err != nil {
		return nil, err
	}
	n.Ledger, err = New(Options{Log: n.Log, State: n.Runner, Index: n.Store, Signer: n.Keys.Signer, Clock: clock,
		CommandTimeout: o.CommandTimeout, Disk: o.Disk, DiskReserve: o.DiskReserve, Logger: o.Logger, Observer: o.Observer})
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	n.stopRunner = cancel
	go func() {
		defer close(n.runnerDone)
		_ = n.Runner.Run(rctx)
	}()
	return n, nil
}

// connect starts the embedded NATS server (or connects to o.NATS) and
// opens the log.
func (n *Node) connect(ctx context.Context, o NodeOptions) (err error) {
	if o.NATS == "" {
		n.Server, err = jetstream.StartServer(jetstream.ServerOptions{StoreDir: n.Layout.NATS(), SyncInterval: o.SyncInterval,
			Name: o.Domain, Domain: o.Domain, LeafListen: o.LeafListen, LeafRemote: o.LeafRemote})
		if err != nil {
			return err
		}
		n.Conn, err = nats.Connect("", nats.InProcessServer(n.Server), nats.Name("referto"), nats.DrainTimeout(time.Second))
	} else {
		n.Conn, err = nats.Connect(o.NATS, nats.Name("referto"), nats.MaxReconnects(-1),
			nats.ReconnectWait(250*time.Millisecond), nats.DrainTimeout(time.Second))
	}
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	n.Log, err = jetstream.Open(ctx, n.Conn, jetstream.Options{Replicas: o.Replicas, Duplicates: o.DuplicateWindow, Sourced: o.Sourced})
	return err
}

// RunnerDone is closed when the projection runner stops.
func (n *Node) RunnerDone() <-chan struct{} { return n.runnerDone }

// Close stops the runner, flushes and closes Pebble, drains the NATS
// connection and stops the embedded server, in that order.
func (n *Node) Close() {
	if n.stopRunner != nil {
		n.stopRunner()
		<-n.runnerDone
		n.stopRunner = nil
	}
	if n.Store != nil {
		_ = n.Store.Close()
		n.Store = nil
	}
	if n.Conn != nil {
		_ = n.Conn.Drain()
		n.Conn.Close()
		n.Conn = nil
	}
	if n.Server != nil {
		n.Server.Shutdown()
		n.Server.WaitForShutdown()
		n.Server = nil
	}
}
