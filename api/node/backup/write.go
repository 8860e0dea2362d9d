package backup

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
)

// A backup is a tar archive of, in this order:
//
//	keys/checkpoint.key, keys/checkpoint.pub, keys/admin-token.sha256, keys/witness.key, keys/witness.pub
//	                                 the key files (the last three when present), with their modes
//	hub.json                         at a national hub only, its state (node.Layout.HubState):
//	                                 venues, their keys, the checkpoints it cosigned, quarantines
//	stream/<S>.json                  what JetStream reported for the snapshot: the restore request
//	stream/<S>.snapshot.000001, …    the JetStream snapshot of stream S (the log), in the pieces it arrived in
//	stream/REGISTRY.json, stream/REGISTRY.snapshot.000001, …
//	                                 at a national hub only, the same two of its season
//	                                 registry's stream (eventlog.RegistryStream)
//	workbooks/<name>.xlsx, …         at a national hub only, its folder of club workbooks
//	                                 (node.Layout.Workbooks), which its season ranking reads
//	manifest.json                    what the file holds and how to check it (Manifest)
//
// The manifest comes last because the snapshots stream through: nothing
// is buffered, and a file without its manifest is a cut transfer. Every
// entry but the snapshots' pieces (which the manifest hashes whole) and
// the manifest is listed in Manifest.Files with its SHA-256.
//
// A backup without the registry's stream is Format, entry for entry and
// field for field as before there was a registry to back up; one with it
// is FormatRegistry, so that a reader knows a second stream is there; one
// with club workbooks is FormatWorkbooks, whose manifest says whether the
// registry's stream is there (Manifest.Registry). Read and Restore take
// all three.
const (
	Format          = "referto-backup/1"
	FormatRegistry  = "referto-backup/2"
	FormatWorkbooks = "referto-backup/3"
)

// WorkbooksEntry is the folder of a hub's club workbooks in a backup.
const WorkbooksEntry = "workbooks/"

// HubStateEntry is the entry of a hub's state file in a backup.
const HubStateEntry = "hub.json"

// KeyFiles are the files of the keys directory (node.Layout.Keys)
// a backup carries; the ones marked secret are never restored readable by
// anyone but the owner.
var KeyFiles = []struct {
	Name     string
	Required bool
	Secret   bool
}{
	{checkpoint.SignerFile, true, true},
	{checkpoint.VerifierFile, true, false},
	{node.AdminTokenFile, false, true},
	// At a national hub, the witness key that cosigns the venues'
	// checkpoints: a hub restored without it could not go on cosigning
	// as the same witness.
	{checkpoint.WitnessSignerFile, false, true},
	{checkpoint.WitnessVerifierFile, false, false},
}

// Manifest describes a backup: the stream state of the snapshot and,
// for every tournament in it, its events and their Merkle root as the
// projections recorded them, and at a hub the same of its season
// registry, so that a restore can check itself.
type Manifest struct {
	Format  string    `json:"format"`
	Created time.Time `json:"created"`
	Stream  string    `json:"stream"`
	// The snapshot holds stream sequences FirstSeq..LastSeq, Msgs commits.
	FirstSeq uint64       `json:"first_seq"`
	LastSeq  uint64       `json:"last_seq"`
	Msgs     uint64       `json:"messages"`
	Bytes    uint64       `json:"bytes"`
	Snapshot SnapshotFile `json:"snapshot"`
	// Files maps every other entry but the manifest to its SHA-256 (hex).
	Files       map[string]string `json:"files"`
	Tournaments []Tournament      `json:"tournaments"`
	// Registry is the hub's season registry (FormatRegistry only).
	Registry *RegistryCopy `json:"registry,omitempty"`
}

// SnapshotFile is what a backup holds of a stream's snapshot: how many
// pieces, how many bytes, and their SHA-256 (hex).
type SnapshotFile struct {
	Parts  int    `json:"parts"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// RegistryCopy is a national hub's season registry as a backup holds it: the
// snapshot of its stream and the head of its log as the hub had folded
// it at the snapshot's instant (registry.Keeper.Snapshot).
type RegistryCopy struct {
	Stream string `json:"stream"`
	// The snapshot holds stream sequences FirstSeq..LastSeq, Msgs commits.
	FirstSeq uint64       `json:"first_seq"`
	LastSeq  uint64       `json:"last_seq"`
	Msgs     uint64       `json:"messages"`
	Bytes    uint64       `json:"bytes"`
	Snapshot SnapshotFile `json:"snapshot"`
	// Events is how many events the registry's log holds (the seq of its
	// last), Root their Merkle root (what the registry's checkpoints
	// sign) and Last the hash of the last line (what the next one links
	// to); base64 in JSON.
	Events uint64 `json:"events"`
	Root   []byte `json:"root"`
	Last   []byte `json:"last"`
	// Unfolded is why the hub's registry log did not fold, when it did not
	// (the hub had set it aside): the stream is carried as it was, and
	// only its sequences are checked.
	Unfolded string `json:"unfolded,omitempty"`
}

// Tournament is one tournament as the snapshot holds it.
type Tournament struct {
	ID string `json:"id"`
	// Events is how many of its events the snapshot holds (its tree size).
	Events uint64 `json:"events"`
	// LastStreamSeq is the stream sequence of its last commit in the snapshot.
	LastStreamSeq uint64 `json:"last_stream_seq"`
	// Root is the Merkle root of those events (base64 in JSON).
	Root []byte `json:"root"`
}

// KeyFile is one key file of a backup.
type KeyFile struct {
	Name string // under keys/
	Mode fs.FileMode
	Data []byte
}

// What Write reads of a node (node.Node: *eventlog.Log, *store.Store,
// *store.Runner), as it uses it.
type (
	// Log is the log a snapshot is taken of.
	Log interface {
		Stream() string
		Snapshot(ctx context.Context, begin func(eventlog.SnapshotInfo) error, chunk func([]byte) error) error
	}
	// Store is the projections: the tournaments, their commits and Merkle
	// trees.
	Store interface {
		Tournaments() ([]string, error)
		Commits(t string, from uint64, limit int) ([]projections.CommitRef, error)
		LastCommit(t string) (projections.CommitRef, bool, error)
		NodeGetter(t string) checkpoint.NodeGetter
	}
	// Runner keeps the Store current from the Log.
	Runner interface {
		WaitFor(ctx context.Context, seq uint64) error
	}
	// RegistryLog is a hub's season registry (*registry.Keeper): a
	// snapshot of its stream with the head of its log at that instant.
	RegistryLog interface {
		Snapshot(ctx context.Context, begin func(eventlog.SnapshotInfo, registry.Head) error, chunk func([]byte) error) error
	}
)

// Source is what Write reads: a node's log, the projections
// and the runner that keeps them (node.Node).
type Source struct {
	Log    Log
	Store  Store
	Runner Runner
	// Registry, at a national hub, is its season registry, backed up
	// beside the log; nil (the default) is a node without one.
	Registry RegistryLog
	// KeysDir is the keys directory (node.Layout.Keys).
	KeysDir string
	// HubState, at a national hub, gives its state file's bytes
	// (hub.Hub.State), backed up with the keys; nil (the default) is a
	// node without one.
	HubState func() ([]byte, error)
	// Workbooks, at a national hub, is its folder of club workbooks
	// (node.Layout.Workbooks): every .xlsx file in it is backed up
	// after the snapshots. "" (the default), or a folder that does not
	// exist, is none.
	Workbooks string
	// Clock stamps the manifest; the default is time.Now.
	Clock func() time.Time
	// CatchUp bounds the wait for the projections to reach the snapshot's
	// last sequence; the default is one minute.
	CatchUp time.Duration
}

// Write writes a backup of a running log to w: the key files, a
// JetStream snapshot of the stream as it is when asked (commands go on
// meanwhile; the ones acknowledged after that moment are not in it), at a
// hub a snapshot of its season registry's stream taken next, with the
// head of the registry's log at that instant, and the manifest, whose
// Merkle roots the projections give once they have applied the snapshot's
// last commit. Nothing is written to w before the keys have been read and
// JetStream has started the snapshot.
func Write(ctx context.Context, w io.Writer, src Source) (Manifest, error) {
	if src.Clock == nil {
		src.Clock = time.Now
	}
	if src.CatchUp == 0 {
		src.CatchUp = time.Minute
	}
	keys, err := readKeyFiles(src.KeysDir)
	if err != nil {
		return Manifest{}, err
	}
	var hubState []byte
	if src.HubState != nil {
		if hubState, err = src.HubState(); err != nil {
			return Manifest{}, fmt.Errorf("backup: the hub's state: %w", err)
		}
	}
	m := Manifest{Format: Format, Created: src.Clock().UTC().Truncate(time.Second), Stream: src.Log.Stream(), Files: map[string]string{}}
	tw := tar.NewWriter(w)
	entry := func(name string, mode fs.FileMode, b []byte) error {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode.Perm()), Size: int64(len(b)), ModTime: m.Created, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	lw := &snapshotWriter{m: &m, entry: entry, file: &m.Snapshot, sum: sha256.New()}
	err = src.Log.Snapshot(ctx, func(info eventlog.SnapshotInfo) error {
		st, err := info.StreamState()
		if err != nil {
			return err
		}
		m.FirstSeq, m.LastSeq, m.Msgs, m.Bytes = st.FirstSeq, st.LastSeq, st.Msgs, st.Bytes
		for _, k := range keys {
			name := "keys/" + k.Name
			m.Files[name] = hexSum(k.Data)
			if err := entry(name, k.Mode, k.Data); err != nil {
				return err
			}
		}
		if hubState != nil {
			m.Files[HubStateEntry] = hexSum(hubState)
			if err := entry(HubStateEntry, 0o600, hubState); err != nil {
				return err
			}
		}
		return lw.begin(m.Stream, info)
	}, lw.chunk)
	if err != nil {
		return m, err
	}
	lw.end()
	if src.Registry != nil {
		if m.Registry, err = writeRegistry(ctx, src.Registry, &m, entry); err != nil {
			return m, err
		}
		m.Format = FormatRegistry
	}
	// The workbooks as the folder holds them now: they are no part of
	// the log, and one added meanwhile is simply in the backup too.
	n, err := writeWorkbooks(src.Workbooks, &m, entry)
	if err != nil {
		return m, err
	}
	if n > 0 {
		m.Format = FormatWorkbooks
	}
	// The roots come from the projections, built from the live stream
	// independently of the snapshot: a restore that reproduces them has
	// the log the server signed checkpoints of.
	wctx, cancel := context.WithTimeout(ctx, src.CatchUp)
	err = src.Runner.WaitFor(wctx, m.LastSeq)
	cancel()
	if err != nil {
		return m, fmt.Errorf("backup: the projections have not reached stream sequence %d: %w", m.LastSeq, err)
	}
	if m.Tournaments, err = tournaments(src.Store, m.LastSeq); err != nil {
		return m, err
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, err
	}
	if err := entry("manifest.json", 0o600, append(mb, '\n')); err != nil {
		return m, err
	}
	return m, tw.Close()
}

// maxWorkbook is the largest club workbook a backup carries, in bytes:
// well past the largest the hub takes (workbook.MaxSize) or its ranking
// reads.
const maxWorkbook = 64 << 20

// writeWorkbooks writes every .xlsx file of dir into the backup as
// WorkbooksEntry+name, listed in the manifest with its SHA-256, and
// returns how many.
func writeWorkbooks(dir string, m *Manifest, entry func(string, fs.FileMode, []byte) error) (int, error) {
	if dir == "" {
		return 0, nil
	}
	files, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("backup: the club workbooks: %w", err)
	}
	n := 0
	for _, f := range files {
		name := f.Name()
		if !workbookName(name) || !f.Type().IsRegular() {
			continue
		}
		fi, err := f.Info()
		if err != nil {
			return n, fmt.Errorf("backup: the club workbooks: %w", err)
		}
		if fi.Size() > maxWorkbook {
			return n, fmt.Errorf("backup: the club workbook %s is %d bytes, more than the %d a backup carries (the hub's ranking does not read it either): move it out of %s", name, fi.Size(), maxWorkbook, dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return n, fmt.Errorf("backup: the club workbooks: %w", err)
		}
		m.Files[WorkbooksEntry+name] = hexSum(b)
		if err := entry(WorkbooksEntry+name, 0o600, b); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// workbookName reports a name a club workbook is kept under in the hub's
// folder, and in a backup: an .xlsx file's, no path, no hidden file.
func workbookName(name string) bool {
	return strings.HasSuffix(name, ".xlsx") && !strings.HasPrefix(name, ".") && filepath.Base(name) == name &&
		!strings.ContainsAny(name, "/\\\x00")
}

// writeRegistry writes the snapshot of a hub's season registry after the
// log's, and returns what the manifest says of it: the head is the one the
// registry had folded when JetStream started the snapshot, which a
// restore rebuilds from the restored stream.
func writeRegistry(ctx context.Context, reg RegistryLog, m *Manifest, entry func(string, fs.FileMode, []byte) error) (*RegistryCopy, error) {
	r := &RegistryCopy{}
	sw := &snapshotWriter{m: m, entry: entry, file: &r.Snapshot, sum: sha256.New()}
	err := reg.Snapshot(ctx, func(info eventlog.SnapshotInfo, h registry.Head) error {
		st, err := info.StreamState()
		if err != nil {
			return err
		}
		if r.Stream, err = info.StreamName(); err != nil {
			return err
		}
		if r.Stream == m.Stream {
			return fmt.Errorf("backup: the season registry's stream is the log's (%s)", m.Stream)
		}
		r.FirstSeq, r.LastSeq, r.Msgs, r.Bytes = st.FirstSeq, st.LastSeq, st.Msgs, st.Bytes
		r.Events, r.Root, r.Last, r.Unfolded = h.Events, h.Root, h.Last, h.Unfolded
		return sw.begin(r.Stream, info)
	}, sw.chunk)
	if err != nil {
		return nil, fmt.Errorf("backup: the season registry: %w", err)
	}
	sw.end()
	return r, nil
}

// snapshotWriter writes one stream's snapshot into the backup: what
// JetStream reported for it (the restore request), then its pieces as they
// arrive, counted and hashed into file.
type snapshotWriter struct {
	m      *Manifest
	entry  func(string, fs.FileMode, []byte) error
	stream string
	file   *SnapshotFile
	sum    hash.Hash
}

func (s *snapshotWriter) begin(stream string, info eventlog.SnapshotInfo) error {
	s.stream = stream
	meta, err := json.Marshal(info)
	if err != nil {
		return err
	}
	name := "stream/" + stream + ".json"
	s.m.Files[name] = hexSum(meta)
	return s.entry(name, 0o600, meta)
}

func (s *snapshotWriter) chunk(b []byte) error {
	s.file.Parts++
	s.file.Size += int64(len(b))
	s.sum.Write(b)
	return s.entry(snapshotPart(s.stream, s.file.Parts), 0o600, b)
}

func (s *snapshotWriter) end() { s.file.SHA256 = hex.EncodeToString(s.sum.Sum(nil)) }

func readKeyFiles(dir string) ([]KeyFile, error) {
	if dir == "" {
		return nil, errors.New("backup: no keys directory")
	}
	var out []KeyFile
	for _, k := range KeyFiles {
		p := filepath.Join(dir, k.Name)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && !k.Required {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		out = append(out, KeyFile{Name: k.Name, Mode: fi.Mode().Perm(), Data: b})
	}
	return out, nil
}

// tournaments lists every tournament with a commit at or before
// stream sequence last, with its tree head there as the projections have it.
func tournaments(st Store, last uint64) ([]Tournament, error) {
	ids, err := st.Tournaments()
	if err != nil {
		return nil, err
	}
	out := []Tournament{}
	for _, t := range ids {
		ref, ok, err := commitUpTo(st, t, last)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // created after the snapshot
		}
		root, err := checkpoint.RootAt(ref.Last, st.NodeGetter(t))
		if err != nil {
			return nil, fmt.Errorf("backup: Merkle root of %s at %d: %w", t, ref.Last, err)
		}
		out = append(out, Tournament{ID: t, Events: ref.Last, LastStreamSeq: ref.StreamSeq, Root: root})
	}
	return out, nil
}

// commitUpTo returns tournament t's last commit at or before stream
// sequence seq. A tournament's seqs and stream sequences grow together, so
// the commits appended since seq are skipped by bisecting its seqs.
func commitUpTo(st Store, t string, seq uint64) (projections.CommitRef, bool, error) {
	last, ok, err := st.LastCommit(t)
	if err != nil || !ok || last.StreamSeq <= seq {
		return last, ok && err == nil, err
	}
	var best projections.CommitRef
	found := false
	for lo, hi := uint64(1), last.Last; lo <= hi; {
		refs, err := st.Commits(t, lo+(hi-lo)/2, 1)
		if err != nil {
			return best, false, err
		}
		if len(refs) == 0 {
			return best, false, fmt.Errorf("backup: no commit of %s holds event %d", t, lo+(hi-lo)/2)
		}
		c := refs[0]
		if c.StreamSeq <= seq {
			best, found = c, true
			lo = c.Last + 1
		} else {
			hi = c.First - 1
		}
	}
	return best, found, nil
}

func snapshotPart(stream string, n int) string {
	return fmt.Sprintf("stream/%s.snapshot.%06d", stream, n)
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
