package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/atomicfile"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections/store"
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
	Disk func() (ledger.DiskState, error)
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
	Observer ledger.Observer
	// Domain is the embedded server's JetStream domain, required with
	// LeafListen or LeafRemote; the default is none.
	Domain string
	// LeafListen makes the embedded server accept venues' leaf nodes (a
	// hub); LeafRemote makes it a leaf node of a hub (a venue).
	LeafListen *eventlog.LeafListenOptions
	LeafRemote *eventlog.LeafRemoteOptions
	// Sourced opens the log as a hub's: a stream that holds only what it
	// sources from its venues (eventlog.Options.Sourced).
	Sourced bool
	// Tolerate is the projections' store.RunnerOptions.Tolerate: a hub
	// sets aside a venue's tournament its events cannot be applied to. The
	// default, at a venue, sets aside a tournament whose log is damaged
	// there (Locate) and stops the runner otherwise.
	Tolerate func(tournament string, streamSeq uint64, err error) bool
	// Locked says the caller holds the data directory (Layout.Lock) and
	// keeps it past the node; by default the node takes it and Close
	// releases it.
	Locked bool
}

// Node is a running referto without its HTTP API: the NATS connection (and
// embedded server when used), the log, the projections and their runner,
// the keys, and the Ledger over them.
type Node struct {
	Layout Layout
	Server *server.Server // nil with an external NATS
	Conn   *nats.Conn
	Log    *eventlog.Log
	Store  *store.Store
	Runner *store.Runner
	Keys   *checkpoint.Keys
	Ledger *ledger.Ledger
	// Heads is the record of acknowledged heads (nil at a hub, which
	// acknowledges no command).
	Heads *Heads
	// Damages are the tournaments whose logs were found damaged, at start
	// or since: their commands are refused, their verified prefix served.
	Damages *ledger.Damages
	// Quarantined is where a corrupt projection store was moved at start
	// ("" when none was): the runner rebuilt the projections from the log.
	Quarantined string

	logger     *slog.Logger
	lock       *DirLock // held by the node, released by Close
	stopRunner context.CancelFunc
	runnerDone chan struct{}
}

// StartNode starts a node and its projection runner. It does not wait for
// the projections to catch up: Runner.Ready reports that, and Submit
// refuses commands until then.
//
// Before the runner starts, a venue's node checks its log against the
// record of acknowledged heads (CheckLog): a damaged tournament is marked
// (Damages), its commands refused, and a projection store that applied
// what the log lost is moved aside (projections.damaged-<time>) and
// rebuilt from the log, so that it serves the verified prefix and never
// hides the loss. A failure to start is returned with its cause, and
// whatever was started is stopped.
func StartNode(ctx context.Context, o NodeOptions) (_ *Node, err error) {
	if o.Data == "" {
		return nil, errors.New("node: NodeOptions.Data is required")
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
		o.Disk = func() (ledger.DiskState, error) { return StatDisk(data) }
	}
	n := &Node{Layout: Layout{Dir: o.Data}, runnerDone: make(chan struct{}), Damages: &ledger.Damages{Dir: o.Data}, logger: o.Logger}
	created := false // the record of acknowledged heads is new: a failed start leaves none
	defer func() {
		if err != nil {
			n.Close()
			if created {
				os.Remove(n.Layout.Heads())
			}
		}
	}()
	if !o.Locked {
		if n.lock, err = n.Layout.Lock(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.Data, 0o700); err != nil {
		return nil, err
	}
	if err := n.connect(ctx, o); err != nil {
		return nil, err
	}
	last, err := n.Log.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	if !o.Sourced {
		if n.Heads, created, err = OpenHeads(n.Layout.Heads()); err != nil {
			return nil, err
		}
	}
	if n.Keys, err = n.loadKeys(o, last, created); err != nil {
		return nil, err
	}
	clock := o.Clock
	if clock == nil {
		clock = time.Now
	}
	storeOpts := store.StoreOptions{MemTableSize: memTable, Logger: o.Logger, Clock: clock, FS: o.StoreFS}
	n.Store, n.Quarantined, err = store.OpenVerified(n.Layout.Projections(), storeOpts)
	if err != nil {
		return nil, err
	}
	if n.Heads != nil {
		if err := n.check(ctx, o, last, created, storeOpts); err != nil {
			return nil, err
		}
	}
	o.Logger.Info("disk guard", "reserve_mib", o.DiskReserve>>20, "memtable_mib", memTable>>20)
	rctx, cancel := context.WithCancel(context.Background())
	n.stopRunner = cancel
	ro := store.RunnerOptions{Logger: o.Logger, Tolerate: o.Tolerate}
	if o.Observer != nil {
		ro.Observe = o.Observer.Applied
	}
	if n.Heads != nil && o.Tolerate == nil {
		ro.Tolerate = func(t string, streamSeq uint64, err error) bool { return n.damaged(rctx, t, streamSeq, err) }
		ro.Hold = func(t string) (uint64, bool) {
			d, ok := n.Damages.Of(t)
			return d.Seq, ok
		}
	}
	n.Runner = store.NewRunner(n.Log, n.Store, ro)
	lo := ledger.Options{Log: n.Log, State: n.Runner, Index: n.Store, Signer: n.Keys.Signer, Clock: clock,
		CommandTimeout: o.CommandTimeout, Disk: o.Disk, DiskReserve: o.DiskReserve, Logger: o.Logger, Observer: o.Observer,
		Damages: n.Damages}
	if n.Heads != nil {
		lo.Heads = n.Heads
	}
	if n.Ledger, err = ledger.New(lo); err != nil {
		cancel()
		n.stopRunner = nil
		return nil, err
	}
	go func() {
		defer close(n.runnerDone)
		_ = n.Runner.Run(rctx)
	}()
	return n, nil
}

// loadKeys loads the checkpoint keys, making them only for a log that has
// nothing they could have signed: an empty log, or, on an external NATS, a
// data directory new to it (a node joining a cluster signs with its own
// key). A missing or unreadable key is never replaced: the history would
// be signed again under another.
func (n *Node) loadKeys(o NodeOptions, last uint64, headsCreated bool) (*checkpoint.Keys, error) {
	_, err := os.Stat(n.Layout.CheckpointKey())
	if errors.Is(err, os.ErrNotExist) {
		acked := false
		if n.Heads != nil {
			acked = len(n.Heads.All()) > 0
		}
		if last == 0 && !acked || o.NATS != "" && headsCreated {
			return checkpoint.LoadOrCreateKeys(n.Layout.Keys(), "referto", o.Random)
		}
		return nil, fmt.Errorf("node: the signing key %s is missing, but the log holds commits signed with it (its stream is at sequence %d): restore the keys directory from a backup (referto restore, then copy keys/); a new key would sign the history again under another name",
			n.Layout.CheckpointKey(), last)
	}
	if err != nil {
		return nil, fmt.Errorf("node: the signing key %s cannot be read: %w", n.Layout.CheckpointKey(), err)
	}
	keys, err := checkpoint.LoadKeys(n.Layout.Keys())
	if err != nil {
		return nil, fmt.Errorf("node: the signing key in %s cannot be used (%w): restore the keys directory from a backup; a new key is only made for an empty log", n.Layout.Keys(), err)
	}
	return keys, nil
}

// check checks the log against the record of acknowledged heads: the
// record's first start on a log adopts the log as it stands; a damaged
// tournament is marked, and a projection store that applied anything at
// or past a damage, or past the log's end, is moved aside and rebuilt.
func (n *Node) check(ctx context.Context, o NodeOptions, last uint64, created bool, so store.StoreOptions) error {
	heads := n.Heads.All()
	adopted, damage, err := ledger.CheckLog(ctx, n.Log, heads, ledger.CheckOptions{Leaves: n.Store.NodeGetter, Adopt: created && last > 0})
	if err != nil {
		return err
	}
	for _, t := range slices.Sorted(maps.Keys(adopted)) {
		if err := n.Heads.Record(adopted[t]); err != nil {
			return err
		}
	}
	if len(adopted) > 0 {
		o.Logger.Warn("no record of acknowledged heads: the log is taken as it stands (a first start on a log written before the record, restored, or generated)",
			"record", n.Layout.Heads(), "tournaments", len(adopted))
	}
	stored, err := n.Store.Applied()
	if err != nil {
		return err
	}
	var acked uint64 // the last stream sequence acknowledged
	for _, h := range heads {
		acked = max(acked, h.StreamSeq)
	}
	if last < acked {
		why := fmt.Sprintf("the log's stream ends at sequence %d but sequence %d was acknowledged: a new command would be stored where a lost one was", last, acked)
		n.Damages.Halt(why)
		o.Logger.Error("log damaged: commands refused on every tournament", "why", why, "remedy", "stop the server and run `"+n.Damages.RepairCommand()+"` (or with --backup FILE)")
	}
	var why string
	for _, d := range damage {
		n.mark(d)
		// A store that holds the tournament at or past its damaged event
		// holds what the log lost or changed: its state and views would
		// show more than the verified prefix.
		if ref, ok, err := n.Store.LastCommit(d.Tournament); err != nil {
			return err
		} else if ok && ref.Last >= d.Seq && why == "" {
			why = fmt.Sprintf("the projections hold events %d to %d of %s, which its log lost or changed: they are rebuilt from the verified prefix", d.Seq, ref.Last, d.Tournament)
		}
	}
	if why == "" && stored > last && len(damage) == 0 {
		why = fmt.Sprintf("the projections applied stream sequence %d but the log ends at %d, and holds every acknowledged command: what it lost was never acknowledged", stored, last)
	}
	if why == "" {
		return nil
	}
	if err := n.Store.Close(); err != nil {
		return err
	}
	n.Store = nil
	aside := fmt.Sprintf("%s.damaged-%d", n.Layout.Projections(), so.Clock().Unix())
	for i := 1; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, os.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.damaged-%d.%d", n.Layout.Projections(), so.Clock().Unix(), i)
	}
	if err := os.Rename(n.Layout.Projections(), aside); err != nil {
		return fmt.Errorf("%s; moving them aside: %w", why, err)
	}
	// The move is made durable before a new store is built in the old
	// one's place, as restore does.
	if err := atomicfile.SyncDir(filepath.Dir(aside)); err != nil {
		return fmt.Errorf("%s; moving them aside: %w", why, err)
	}
	o.Logger.Warn("projection store moved aside", "aside", aside, "why", why)
	n.Quarantined = aside
	n.Store, _, err = store.OpenVerified(n.Layout.Projections(), so)
	return err
}

// Inspect looks for damage in tournament t's log (Locate), after a read of
// it failed: found, it is marked (its commands refused) and returned. A
// tournament already marked is returned as it was marked.
func (n *Node) Inspect(ctx context.Context, t string) (ledger.Damage, bool) {
	if d, ok := n.Damages.Of(t); ok || n.Heads == nil {
		return d, ok
	}
	head, _ := n.Heads.Get(t)
	d, found, err := ledger.Locate(ctx, n.Log, t, head, n.Store.NodeGetter)
	if err != nil || !found {
		return ledger.Damage{}, false
	}
	n.mark(d)
	d, _ = n.Damages.Of(t)
	return d, true
}

// mark records d and says so in the log, with the remedy.
func (n *Node) mark(d ledger.Damage) {
	if n.Damages.Mark(d) {
		d, _ = n.Damages.Of(d.Tournament)
		n.logger.Error("log damaged", "tournament", d.Tournament, "seq", d.Seq, "stream_seq", d.StreamSeq,
			"acknowledged", d.Acknowledged, "verified", d.Verified(), "what", d.What, "remedy", d.Remedy())
	}
}

// damaged is a venue's answer to the runner about a commit of tournament t
// it cannot apply: when the log is damaged there (Locate), the tournament is
// marked and set aside, its verified prefix served; otherwise (an event
// this referto cannot read, say) the runner stops, as before.
func (n *Node) damaged(ctx context.Context, t string, streamSeq uint64, err error) bool {
	if _, ok := n.Damages.Of(t); ok {
		return true
	}
	head, _ := n.Heads.Get(t)
	d, found, lerr := ledger.Locate(ctx, n.Log, t, head, n.Store.NodeGetter)
	if lerr != nil || !found {
		n.logger.Error("the projections cannot apply a commit and the log holds together there", "tournament", t, "stream_seq", streamSeq, "err", err, "locate", lerr)
		return false
	}
	n.mark(d)
	return true
}

// connect starts the embedded NATS server (or connects to o.NATS) and
// opens the log.
func (n *Node) connect(ctx context.Context, o NodeOptions) (err error) {
	if o.NATS == "" {
		n.Server, err = eventlog.StartServer(eventlog.ServerOptions{StoreDir: n.Layout.NATS(), SyncInterval: o.SyncInterval,
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
	n.Log, err = eventlog.Open(ctx, n.Conn, eventlog.Options{Replicas: o.Replicas, Duplicates: o.DuplicateWindow, Sourced: o.Sourced})
	return err
}

// RunnerDone is closed when the projection runner stops.
func (n *Node) RunnerDone() <-chan struct{} { return n.runnerDone }

// Close stops the runner, flushes and closes Pebble, drains the NATS
// connection, stops the embedded server, closes the record of acknowledged
// heads and releases the data directory, in that order. Whatever part was
// not started is passed over.
func (n *Node) Close() {
	if n == nil {
		return
	}
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
	if n.Heads != nil {
		_ = n.Heads.Close()
	}
	n.lock.Unlock()
	n.lock = nil
}
