package node

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events/eventlog"
)

// LogOptions configures OpenLog.
type LogOptions struct {
	// Create makes the log's store directory when it is missing; without
	// it (the default) a directory without one is not a data directory.
	Create bool
	// SyncInterval relaxes the embedded server's per-write fsync, for a
	// bulk load; 0 (the default) fsyncs every write.
	SyncInterval time.Duration
	// Locked says the caller holds the directory (Layout.Lock); by
	// default OpenLog takes it until closeLog.
	Locked bool
}

// OpenLog starts an embedded JetStream server on the layout's log (no
// listener, no projections) and opens the log, for the tools that read or
// write a data directory no server runs on: export, replay, generate, the
// benchmarks; closeLog stops it all. The directory is held while it is
// open (Layout.Lock): a server running on it is named in the error.
func OpenLog(ctx context.Context, l Layout, o LogOptions) (lg *eventlog.Log, closeLog func(), err error) {
	if o.Create {
		err = os.MkdirAll(l.NATS(), 0o700)
	} else {
		_, err = os.Stat(l.NATS())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a referto data directory: %w", l.Dir, err)
	}
	var lock *DirLock
	if !o.Locked {
		if lock, err = l.Lock(); err != nil {
			return nil, nil, err
		}
	}
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: l.NATS(), SyncInterval: o.SyncInterval})
	if err != nil {
		lock.Unlock()
		return nil, nil, err
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		ns.Shutdown()
		lock.Unlock()
		return nil, nil, err
	}
	closeLog = func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown(); lock.Unlock() }
	if lg, err = eventlog.Open(ctx, nc, eventlog.Options{}); err != nil {
		closeLog()
		return nil, nil, err
	}
	return lg, closeLog, nil
}
