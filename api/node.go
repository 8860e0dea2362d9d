package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
)

// NodeOptions configures one running referto: where its data lives, which
// NATS it uses, and the API on top.
type NodeOptions struct {
	// Data is the data directory: nats/ (embedded JetStream), projections/
	// (Pebble), keys/. Required.
	Data string
	// NATS is the URL of an existing NATS cluster; empty (the default)
	// starts an embedded server with its store under Data/nats.
	NATS string
	// Replicas is the stream replication factor; the default is 1.
	Replicas int
	// SyncInterval relaxes the embedded server's per-write fsync; 0 (the
	// default) fsyncs every write before acknowledging it.
	SyncInterval time.Duration
	// DuplicateWindow is JetStream's Nats-Msg-Id window; the default is 2
	// minutes. Idempotency outlives it through the command index.
	DuplicateWindow time.Duration
	// AdminTokenSHA256 is the hex SHA-256 of the administrator's token. Required.
	AdminTokenSHA256 string
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
	// (default 10 s): without a quorum a command is refused with 503 when
	// it runs out.
	CommandTimeout time.Duration
	// Clock and Random are passed to the API (defaults: time.Now, crypto/rand).
	Clock  func() time.Time
	Random io.Reader
	// Logger receives operational logs; nil discards.
	Logger *slog.Logger
}

// Node is a running referto: NATS connection (and embedded server when
// used), the log, the projections and the API over them.
type Node struct {
	Server *server.Server // nil with an external NATS
	Conn   *nats.Conn
	Log    *jetstream.Log
	Store  *pebble.Store
	Runner *pebble.Runner
	Keys   *checkpoint.Keys
	API    *Server
	// Quarantined is where a corrupt projection store was moved at start
	// ("" when none was): the runner rebuilt the projections from the log.
	Quarantined string

	stopRunner context.CancelFunc
	runnerDone chan struct{}
}

// StartNode starts a node and its projection runner. It does not wait for
// the projections to catch up: /readyz reports that.
func StartNode(ctx context.Context, o NodeOptions) (n *Node, err error) {
	if o.Data == "" {
		return nil, errors.New("api: NodeOptions.Data is required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
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
	n = &Node{runnerDone: make(chan struct{})}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	if err := os.MkdirAll(o.Data, 0o700); err != nil {
		return nil, err
	}
	if o.NATS == "" {
		n.Server, err = jetstream.StartServer(jetstream.ServerOptions{StoreDir: filepath.Join(o.Data, "nats"), SyncInterval: o.SyncInterval})
		if err != nil {
			return nil, err
		}
		n.Conn, err = nats.Connect("", nats.InProcessServer(n.Server), nats.Name("referto"), nats.DrainTimeout(time.Second))
	} else {
		n.Conn, err = nats.Connect(o.NATS, nats.Name("referto"), nats.MaxReconnects(-1),
			nats.ReconnectWait(250*time.Millisecond), nats.DrainTimeout(time.Second))
	}
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	n.Log, err = jetstream.Open(ctx, n.Conn, jetstream.Options{Replicas: o.Replicas, Duplicates: o.DuplicateWindow})
	if err != nil {
		return nil, err
	}
	clock := o.Clock
	if clock == nil {
		clock = time.Now
	}
	n.Store, n.Quarantined, err = pebble.OpenVerified(filepath.Join(o.Data, "projections"),
		pebble.StoreOptions{MemTableSize: memTable, Logger: o.Logger, Clock: clock, FS: o.StoreFS})
	if err != nil {
		return nil, err
	}
	o.Logger.Info("disk guard", "reserve_mib", o.DiskReserve>>20, "memtable_mib", memTable>>20)
	m := newMetrics()
	n.Runner = pebble.NewRunner(n.Log, n.Store, pebble.RunnerOptions{Logger: o.Logger, Observe: m.commitApplied})
	n.Keys, err = checkpoint.LoadOrCreateKeys(filepath.Join(o.Data, "keys"), "referto", o.Random)
	if err != nil {
		return nil, err
	}
	n.API, err = New(Options{Log: n.Log, Store: n.Store, Runner: n.Runner, AdminTokenSHA256: o.AdminTokenSHA256,
		Keys: n.Keys, Clock: o.Clock, Random: o.Random, Logger: o.Logger, CommandTimeout: o.CommandTimeout,
		Disk: o.Disk, DiskReserve: o.DiskReserve, Conn: n.Conn, metrics: m})
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
