package backup

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
)

// Restore brings the backup file at path back into the data directory
// target, which must be missing or empty: the keys with their modes, and
// the log (and a hub's season registry) through JetStream with every
// stream sequence as it was. The restored log is then checked against the
// manifest (its sequences, and every tournament's events, last stream
// sequence and Merkle root, rebuilt from the restored lines), and so is
// the restored registry (its sequences, and its log folded again: its
// events, Merkle root and last line's hash). The file is read whole and checked before
// anything is made, and the restore is done beside target and moved into
// place at the end: on any failure nothing is left behind, and what a
// killed restore into target left is removed first (RemoveStaging). The
// projections are not restored; the first start rebuilds them.
func Restore(ctx context.Context, path, target string) (*Archive, error) {
	target, err := filepath.Abs(target)
	if err != nil {
		return nil, err
	}
	existed, err := emptyTarget(target)
	if err != nil {
		return nil, err
	}
	if _, err := RemoveStaging(target); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := Read(bufio.NewReaderSize(f, 1<<20), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	tmp, err := newStaging(target)
	if err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	layout := node.Layout{Dir: tmp}
	keys, err := restoreKeys(layout.Keys(), b.Keys)
	if err != nil {
		return nil, err
	}
	if b.HubState != nil {
		// A hub's state, as the backup holds it: the restored hub knows
		// its venues and goes on from the checkpoints it cosigned.
		if err := writeKey(layout.HubState(), 0o600, b.HubState); err != nil {
			return nil, err
		}
	}
	if len(b.Workbooks) > 0 {
		// A hub's club workbooks, which its season ranking reads: checked
		// against the manifest's SHA-256 by Read.
		if err := os.Mkdir(layout.Workbooks(), 0o700); err != nil {
			return nil, err
		}
		for _, wb := range b.Workbooks {
			if err := writeKey(filepath.Join(layout.Workbooks(), wb.Name), 0o600, wb.Data); err != nil {
				return nil, err
			}
		}
	}
	if err := restoreLog(ctx, layout, f, b.Manifest, keys); err != nil {
		return nil, err
	}
	if err := syncTree(tmp); err != nil {
		return nil, err
	}
	if existed {
		if err := os.Remove(target); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		return nil, err
	}
	done = true
	return b, syncPath(filepath.Dir(target))
}

// emptyTarget refuses a target that is anything but missing or an empty
// directory, and reports whether it exists.
func emptyTarget(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("restore: %w", err)
	}
	if len(entries) > 0 {
		return true, fmt.Errorf("restore: %s is not empty: restore only into a new or empty directory", dir)
	}
	return true, nil
}

// restoreKeys writes the key files into dir and returns the checkpoint
// keys they hold.
func restoreKeys(dir string, keys []KeyFile) (*checkpoint.Keys, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	for _, k := range keys {
		mode := k.Mode
		for _, kf := range KeyFiles {
			if kf.Name == k.Name && kf.Secret {
				mode &= 0o600 // whatever the file says, the owner's only
			}
		}
		if err := writeKey(filepath.Join(dir, k.Name), mode, k.Data); err != nil {
			return nil, err
		}
	}
	loaded, err := checkpoint.LoadKeys(dir)
	if err != nil {
		return nil, fmt.Errorf("restore: the backup's keys: %w", err)
	}
	return loaded, nil
}

func writeKey(path string, mode os.FileMode, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // past the umask
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// restoreLog restores the snapshots in backup r (the log's, and a hub's
// season registry's) into the layout's log through an embedded JetStream
// and checks what was restored against the manifest; keys are the
// restored ones, whose seal tells the registry's commits apart.
func restoreLog(ctx context.Context, layout node.Layout, r io.Reader, m Manifest, keys *checkpoint.Keys) error {
	// No fsync per restored message (JetStream's restore gives up on a
	// piece that takes 5 s to store, and a piece holds hundreds): the
	// store is synced whole once the server has stopped (syncTree).
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: layout.NATS(), SyncInterval: time.Hour})
	if err != nil {
		return err
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		return err
	}
	defer nc.Close()
	restored := map[string]eventlog.StreamState{}
	_, err = Read(bufio.NewReaderSize(r, 1<<20), func(info eventlog.SnapshotInfo, data io.Reader) error {
		info, err := info.SingleNode()
		if err != nil {
			return err
		}
		name, err := info.StreamName()
		if err != nil {
			return err
		}
		restored[name], err = eventlog.RestoreSnapshot(ctx, nc, info, data)
		return err
	})
	if err != nil {
		return err
	}
	if st := restored[m.Stream]; !sameSeqs(st, m.FirstSeq, m.LastSeq, m.Msgs) {
		return fmt.Errorf("restore: the restored stream holds sequences %d..%d (%d commits), the backup's manifest %d..%d (%d): nothing restored",
			st.FirstSeq, st.LastSeq, st.Msgs, m.FirstSeq, m.LastSeq, m.Msgs)
	}
	if m.Registry != nil {
		if err := checkRegistry(ctx, nc, keys, restored[m.Registry.Stream], *m.Registry); err != nil {
			return err
		}
	}
	lg, err := eventlog.Open(ctx, nc, eventlog.Options{Stream: m.Stream})
	if err != nil {
		return err
	}
	return checkLog(ctx, lg, m)
}

// sameSeqs reports whether a restored stream holds the sequences first..last,
// msgs messages. An empty stream's first sequence says nothing: JetStream
// reports 0 for one snapshotted and the next sequence, 1, once restored.
func sameSeqs(st eventlog.StreamState, first, last, msgs uint64) bool {
	return st.LastSeq == last && st.Msgs == msgs && (msgs == 0 || st.FirstSeq == first)
}

// checkRegistry compares a restored season registry with the manifest:
// its stream's sequences, then its log folded again as the hub folds it
// (its events, Merkle root and last line's hash; or, when the hub's did
// not fold, that this one does not either).
func checkRegistry(ctx context.Context, nc *nats.Conn, keys *checkpoint.Keys, st eventlog.StreamState, want RegistryCopy) error {
	if !sameSeqs(st, want.FirstSeq, want.LastSeq, want.Msgs) {
		return fmt.Errorf("restore: the restored season registry's stream holds sequences %d..%d (%d commits), the backup's manifest %d..%d (%d): nothing restored",
			st.FirstSeq, st.LastSeq, st.Msgs, want.FirstSeq, want.LastSeq, want.Msgs)
	}
	got, err := registry.Fold(ctx, nc, keys)
	if err != nil {
		return fmt.Errorf("restore: the season registry: %w", err)
	}
	b64 := base64.StdEncoding.EncodeToString
	switch {
	case want.Unfolded != "" && got.Unfolded == "":
		return fmt.Errorf("restore: the restored season registry's log folds, the hub's did not (%s): nothing restored", want.Unfolded)
	case want.Unfolded == "" && got.Unfolded != "":
		return fmt.Errorf("restore: the restored season registry's log does not fold (%s): nothing restored", got.Unfolded)
	case got.Events != want.Events || !bytes.Equal(got.Root, want.Root) || !bytes.Equal(got.Last, want.Last):
		return fmt.Errorf("restore: the restored season registry holds %d events, Merkle root %s, the hub's had %d, root %s: nothing restored",
			got.Events, b64(got.Root), want.Events, b64(want.Root))
	}
	return nil
}

// checkLog compares a restored log with the manifest: its last sequence,
// then every tournament's events, last stream sequence and Merkle root.
func checkLog(ctx context.Context, lg *eventlog.Log, m Manifest) error {
	if last, err := lg.LastSeq(ctx); err != nil {
		return err
	} else if last != m.LastSeq {
		return fmt.Errorf("restore: the restored stream ends at sequence %d, the backup's manifest at %d: nothing restored", last, m.LastSeq)
	}
	type head struct {
		tree *checkpoint.Tree
		last uint64
	}
	heads := map[string]*head{}
	err := lg.Scan(ctx, m.FirstSeq, m.LastSeq, "", func(msg events.StoredCommit) error {
		h := heads[msg.Tournament]
		if h == nil {
			h = &head{tree: checkpoint.NewTree()}
			heads[msg.Tournament] = h
		}
		h.last = msg.StreamSeq
		err := events.CommitLines(msg.Data, func(line []byte) error { return h.tree.Append(line, nil) })
		if err != nil {
			return fmt.Errorf("restore: stream sequence %d: %w", msg.StreamSeq, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range m.Tournaments {
		h := heads[t.ID]
		switch {
		case h == nil:
			return fmt.Errorf("restore: tournament %s of the backup's manifest is not in the restored log: nothing restored", t.ID)
		case h.tree.Size() != t.Events || h.last != t.LastStreamSeq:
			return fmt.Errorf("restore: tournament %s: the restored log holds %d events up to stream sequence %d, the manifest %d up to %d: nothing restored",
				t.ID, h.tree.Size(), h.last, t.Events, t.LastStreamSeq)
		case !bytes.Equal(h.tree.Root(), t.Root):
			return fmt.Errorf("restore: tournament %s: the Merkle root of the %d restored events is %s, the server's projections recorded %s: nothing restored",
				t.ID, t.Events, base64.StdEncoding.EncodeToString(h.tree.Root()), base64.StdEncoding.EncodeToString(t.Root))
		}
		delete(heads, t.ID)
	}
	if len(heads) > 0 {
		extra := slices.Sorted(maps.Keys(heads))
		return fmt.Errorf("restore: the restored log holds tournament %s, which the backup's manifest does not list: nothing restored", extra[0])
	}
	return nil
}

// syncTree fsyncs every file and directory under dir, so that what was
// restored is on disk before it is moved into place. A path that is gone
// by the time it is synced is passed over: JetStream removes a purged
// stream's old message directory (__msgs__) on a goroutine of its own,
// which may still run after the server has shut down.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		if err == nil {
			err = syncPath(path)
		}
		if errors.Is(err, fs.ErrNotExist) && path != dir {
			return nil
		}
		return err
	})
}

// syncPath fsyncs a file or a directory.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
