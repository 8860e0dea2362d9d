package backup

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/atomicfile"
	"github.com/referto/referto/events/checkpoint"
)

// Create writes a backup file at path, mode 0600 (it holds the signing
// key): fill writes the backup into a temporary file beside path, which
// becomes path only once it is on disk, reads back whole (Read) and check,
// when not nil, accepts what it holds. It returns the backup read back and
// the file's size.
func Create(path string, fill func(io.Writer) error, check func(*Archive) error) (*Archive, int64, error) {
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return nil, 0, err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := fill(bw); err != nil {
		return nil, 0, err
	}
	if err := bw.Flush(); err != nil {
		return nil, 0, err
	}
	if err := f.Sync(); err != nil {
		return nil, 0, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	b, err := Read(bufio.NewReaderSize(f, 1<<20), nil)
	if err != nil {
		return nil, 0, fmt.Errorf("the backup received does not read back: %w", err)
	}
	if check != nil {
		if err := check(b); err != nil {
			return nil, 0, err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	return b, fi.Size(), f.Commit()
}

// WriteDir writes a backup of a data directory no server is running on: it
// starts the node in-process (embedded JetStream, the projections caught
// up with the log, no HTTP) and takes the backup a server would, a hub's
// season registry with it when the directory holds one. It never
// makes a key: a backup carries the server's own or none.
func WriteDir(ctx context.Context, dir string, w io.Writer) error {
	layout := node.Layout{Dir: dir}
	if _, err := os.Stat(layout.NATS()); err != nil {
		return fmt.Errorf("%s is not a referto data directory with an embedded log: %w", dir, err)
	}
	if _, err := checkpoint.LoadKeys(layout.Keys()); err != nil {
		return err
	}
	n, err := node.StartNode(ctx, node.NodeOptions{Data: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("%w (is referto serve running on %s without %s? use --url)", err, dir, filepath.Base(layout.ServeInfo()))
	}
	defer n.Close()
	if ds := n.Damages.All(); len(ds) > 0 {
		return fmt.Errorf("backup: %w: no backup of it is taken (it would not restore)", &ledger.DamageError{Damage: ds[0]})
	}
	if why, ok := n.Damages.Halted(); ok {
		return fmt.Errorf("backup: %w: %s: run `%s` first", ledger.ErrDamaged, why, n.Damages.RepairCommand())
	}
	src := Source{Log: n.Log, Store: n.Store, Runner: n.Runner, KeysDir: layout.Keys(), Workbooks: layout.Workbooks(), CatchUp: 10 * time.Minute}
	// A hub's directory holds its season registry beside the log; a
	// venue's does not, and is given none.
	reg, err := registry.Open(ctx, registry.Options{Conn: n.Conn, Keys: n.Keys, Roster: registry.NewRoster(n.Store, n.Runner), Existing: true})
	switch {
	case err == nil:
		src.Registry = reg
		src.HubState = func() ([]byte, error) { return readHubState(layout.HubState()) }
	case !errors.Is(err, events.ErrNoLog):
		return fmt.Errorf("backup: the season registry: %w", err)
	}
	_, err = Write(ctx, w, src)
	return err
}

// TakeOptions say what Take backs up.
type TakeOptions struct {
	// Data is the data directory. While a server runs on it (its
	// Layout.ServeInfo says where), the backup is asked of that server.
	Data string
	// URL is the base URL of the running server to ask; the default is
	// the one Data's ServeInfo names, else none: Data is read directly.
	URL string
	// Ask asks the server at url for its backup, written to w (the
	// administrator's route; api/client). Required to ask a server.
	Ask func(ctx context.Context, url string, w io.Writer) error
	// Notes receives a line when a ServeInfo left behind is passed over;
	// nil discards it.
	Notes io.Writer
}

// Take writes a backup file at path (Create): asked of the server running
// on o.Data, or at o.URL, whose backup must carry o.Data's verifier key
// (SameKey), or else read from o.Data directly (WriteDir). A ServeInfo
// left by a server killed without a clean stop, where nobody answers, is
// passed over for the directory. It returns the backup read back, the
// file's size and the URL of the server that gave it ("" for the
// directory read directly).
func Take(ctx context.Context, path string, o TakeOptions) (b *Archive, size int64, from string, err error) {
	layout := node.Layout{Dir: o.Data}
	from, announced := o.URL, false
	if si, ok := layout.Announced(); from == "" && ok {
		from, announced = si.URL, true
	}
	if o.Notes == nil {
		o.Notes = io.Discard
	}
	b, size, err = Create(path, func(w io.Writer) error {
		if from == "" {
			return WriteDir(ctx, o.Data, w)
		}
		if o.Ask == nil {
			return fmt.Errorf("backup: nothing to ask the server at %s with (TakeOptions.Ask)", from)
		}
		err := o.Ask(ctx, from, w)
		if announced && errors.Is(err, syscall.ECONNREFUSED) {
			// Nobody answers where the ServeInfo says: the server
			// stopped without removing it, and the directory is free.
			fmt.Fprintf(o.Notes, "nobody answers at %s (%s is left from a server that stopped); reading %s directly\n", from, layout.ServeInfo(), o.Data)
			from = ""
			return WriteDir(ctx, o.Data, w)
		}
		return err
	}, func(b *Archive) error {
		if err := b.SameKey(layout); from != "" && err != nil {
			return fmt.Errorf("%w: the server at %s does not run on %s", err, from, o.Data)
		}
		return nil
	})
	return b, size, from, err
}

// Key returns the data of the key file name the backup carries.
func (b *Archive) Key(name string) ([]byte, bool) {
	for _, k := range b.Keys {
		if k.Name == name {
			return k.Data, true
		}
	}
	return nil, false
}

// SameKey checks that the backup carries the verifier key of the layout's
// directory, when it has one: that the server a backup was asked of runs
// on that directory (a port a stale serve.json names may now be
// another server's).
func (b *Archive) SameKey(l node.Layout) error {
	want, err := os.ReadFile(l.CheckpointPub())
	if l.Dir == "" || err != nil {
		return nil
	}
	if got, ok := b.Key(checkpoint.VerifierFile); ok && bytes.Equal(got, want) {
		return nil
	}
	return fmt.Errorf("the backup's checkpoint key is not the one in %s", l.CheckpointPub())
}

// readHubState reads a stopped hub's state file; a hub that never wrote
// one (no venue yet) has the empty state.
func readHubState(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
