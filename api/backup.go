package api

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
)

// A backup is a tar archive of, in this order:
//
//	keys/checkpoint.key, keys/checkpoint.pub, keys/admin-token.sha256
//	                                 the key files (the last when present), with their modes
//	stream/<S>.json                  what JetStream reported for the snapshot: the restore request
//	stream/<S>.snapshot.000001, …    the JetStream snapshot of stream S, in the pieces it arrived in
//	manifest.json                    what the file holds and how to check it (BackupManifest)
//
// The manifest comes last because the snapshot streams through: nothing
// is buffered, and a file without its manifest is a cut transfer.
const BackupFormat = "referto-backup/1"

// BackupKeyFiles are the files of the keys directory (ledger.Layout.Keys)
// a backup carries; the ones marked secret are never restored readable by
// anyone but the owner.
var BackupKeyFiles = []struct {
	Name     string
	Required bool
	Secret   bool
}{
	{checkpoint.SignerFile, true, true},
	{checkpoint.VerifierFile, true, false},
	{ledger.AdminTokenFile, false, true},
}

// BackupManifest describes a backup: the stream state of the snapshot and,
// for every tournament in it, its events and their Merkle root as the
// projections recorded them, so that a restore can check itself.
type BackupManifest struct {
	Format  string    `json:"format"`
	Created time.Time `json:"created"`
	Stream  string    `json:"stream"`
	// The snapshot holds stream sequences FirstSeq..LastSeq, Msgs commits.
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Msgs     uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	Snapshot struct {
		Parts  int    `json:"parts"`
		Size   int64  `json:"size"`
		SHA256 string `json:"sha256"`
	} `json:"snapshot"`
	// Files maps every other entry but the manifest to its SHA-256 (hex).
	Files       map[string]string  `json:"files"`
	Tournaments []BackupTournament `json:"tournaments"`
}

// BackupTournament is one tournament as the snapshot holds it.
type BackupTournament struct {
	ID string `json:"id"`
	// Events is how many of its events the snapshot holds (its tree size).
	Events uint64 `json:"events"`
	// LastStreamSeq is the stream sequence of its last commit in the snapshot.
	LastStreamSeq uint64 `json:"last_stream_seq"`
	// Root is the Merkle root of those events (base64 in JSON).
	Root []byte `json:"root"`
}

// BackupFile is one key file of a backup.
type BackupFile struct {
	Name string // under keys/
	Mode fs.FileMode
	Data []byte
}

// BackupSource is what WriteBackup reads: a node's log, the projections
// and the runner that keeps them (ledger.Node).
type BackupSource struct {
	Log    Log
	Store  Store
	Runner Runner
	// KeysDir is the keys directory (ledger.Layout.Keys).
	KeysDir string
	// Clock stamps the manifest; the default is time.Now.
	Clock func() time.Time
	// CatchUp bounds the wait for the projections to reach the snapshot's
	// last sequence; the default is one minute.
	CatchUp time.Duration
}

// WriteBackup writes a backup of a running log to w: the key files, a
// JetStream snapshot of the stream as it is when asked (commands go on
// meanwhile; the ones acknowledged after that moment are not in it), and
// the manifest, whose Merkle roots the projections give once they have
// applied the snapshot's last commit. Nothing is written to w before the
// keys have been read and JetStream has started the snapshot.
func WriteBackup(ctx context.Context, w io.Writer, src BackupSource) (BackupManifest, error) {
	if src.Clock == nil {
		src.Clock = time.Now
	}
	if src.CatchUp == 0 {
		src.CatchUp = time.Minute
	}
	keys, err := readKeyFiles(src.KeysDir)
	if err != nil {
		return BackupManifest{}, err
	}
	m := BackupManifest{Format: BackupFormat, Created: src.Clock().UTC().Truncate(time.Second), Stream: src.Log.Stream(), Files: map[string]string{}}
	tw := tar.NewWriter(w)
	entry := func(name string, mode fs.FileMode, b []byte) error {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode.Perm()), Size: int64(len(b)), ModTime: m.Created, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	sum := sha256.New()
	err = src.Log.Snapshot(ctx, func(info jetstream.SnapshotInfo) error {
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
		meta, err := json.Marshal(info)
		if err != nil {
			return err
		}
		name := "stream/" + m.Stream + ".json"
		m.Files[name] = hexSum(meta)
		return entry(name, 0o600, meta)
	}, func(b []byte) error {
		m.Snapshot.Parts++
		m.Snapshot.Size += int64(len(b))
		sum.Write(b)
		return entry(snapshotPart(m.Stream, m.Snapshot.Parts), 0o600, b)
	})
	if err != nil {
		return m, err
	}
	m.Snapshot.SHA256 = hex.EncodeToString(sum.Sum(nil))
	// The roots come from the projections, built from the live stream
	// independently of the snapshot: a restore that reproduces them has
	// the log the server signed checkpoints of.
	wctx, cancel := context.WithTimeout(ctx, src.CatchUp)
	err = src.Runner.WaitFor(wctx, m.LastSeq)
	cancel()
	if err != nil {
		return m, fmt.Errorf("api: backup: the projections have not reached stream sequence %d: %w", m.LastSeq, err)
	}
	if m.Tournaments, err = backupTournaments(src.Store, m.LastSeq); err != nil {
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

func readKeyFiles(dir string) ([]BackupFile, error) {
	if dir == "" {
		return nil, errors.New("api: backup: no keys directory")
	}
	var out []BackupFile
	for _, k := range BackupKeyFiles {
		p := filepath.Join(dir, k.Name)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && !k.Required {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("api: backup: %w", err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("api: backup: %w", err)
		}
		out = append(out, BackupFile{Name: k.Name, Mode: fi.Mode().Perm(), Data: b})
	}
	return out, nil
}

// backupTournaments lists every tournament with a commit at or before
// stream sequence last, with its tree head there as the projections have it.
func backupTournaments(st Store, last uint64) ([]BackupTournament, error) {
	ids, err := st.Tournaments()
	if err != nil {
		return nil, err
	}
	out := []BackupTournament{}
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
			return nil, fmt.Errorf("api: backup: Merkle root of %s at %d: %w", t, ref.Last, err)
		}
		out = append(out, BackupTournament{ID: t, Events: ref.Last, LastStreamSeq: ref.StreamSeq, Root: root})
	}
	return out, nil
}

// commitUpTo returns tournament t's last commit at or before stream
// sequence seq. A tournament's seqs and stream sequences grow together, so
// the commits appended since seq are skipped by bisecting its seqs.
func commitUpTo(st Store, t string, seq uint64) (pebble.CommitRef, bool, error) {
	last, ok, err := st.LastCommit(t)
	if err != nil || !ok || last.StreamSeq <= seq {
		return last, ok && err == nil, err
	}
	var best pebble.CommitRef
	found := false
	for lo, hi := uint64(1), last.Last; lo <= hi; {
		refs, err := st.Commits(t, lo+(hi-lo)/2, 1)
		if err != nil {
			return best, false, err
		}
		if len(refs) == 0 {
			return best, false, fmt.Errorf("api: backup: no commit of %s holds event %d", t, lo+(hi-lo)/2)
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

// ErrBackup marks a backup file that is damaged, cut short or not a backup.
var ErrBackup = errors.New("api: not a complete referto backup")

// Backup is a backup file read back.
type Backup struct {
	Manifest BackupManifest
	Keys     []BackupFile
	Info     jetstream.SnapshotInfo
}

// Limits on the entries read into memory.
const (
	maxKeyFile  = 64 << 10
	maxMeta     = 1 << 20
	maxManifest = 64 << 20
)

var (
	partRE   = regexp.MustCompile(`^stream/([A-Za-z0-9_-]+)\.snapshot\.([0-9]{6})$`)
	streamRE = regexp.MustCompile(`^stream/([A-Za-z0-9_-]+)\.json$`)
)

// ReadBackup reads a backup and checks it whole: the entries in their
// order, every key file and the snapshot against the manifest's SHA-256,
// the snapshot's state against the manifest, and nothing after the
// manifest. snapshot, when not nil, is given the snapshot's bytes as they
// are read (and must read them to the end or fail); they are checked only
// once read, so a caller that acts on them must undo what it did when
// ReadBackup fails. Damage is reported as ErrBackup.
func ReadBackup(r io.Reader, snapshot func(info jetstream.SnapshotInfo, data io.Reader) error) (*Backup, error) {
	tr := tar.NewReader(r)
	b := &Backup{}
	sums := map[string]string{}
	stream := ""
	hdr, err := tr.Next()
	for ; err == nil; hdr, err = tr.Next() {
		name, ok := keyFileName(hdr.Name)
		if !ok {
			break
		}
		if _, dup := sums[hdr.Name]; dup {
			return nil, fmt.Errorf("%w: %s twice", ErrBackup, hdr.Name)
		}
		data, err := readEntry(tr, hdr, maxKeyFile)
		if err != nil {
			return nil, err
		}
		sums[hdr.Name] = hexSum(data)
		b.Keys = append(b.Keys, BackupFile{Name: name, Mode: fs.FileMode(hdr.Mode).Perm(), Data: data})
	}
	if err != nil {
		return nil, damaged(err, "before the stream")
	}
	sm := streamRE.FindStringSubmatch(hdr.Name)
	if sm == nil {
		return nil, fmt.Errorf("%w: %s where the stream's snapshot information belongs", ErrBackup, hdr.Name)
	}
	stream = sm[1]
	meta, err := readEntry(tr, hdr, maxMeta)
	if err != nil {
		return nil, err
	}
	sums[hdr.Name] = hexSum(meta)
	if err := json.Unmarshal(meta, &b.Info); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBackup, hdr.Name, err)
	}
	parts := &partsReader{tr: tr, stream: stream, sum: sha256.New()}
	if snapshot != nil {
		if err := snapshot(b.Info, parts); err != nil {
			if parts.err != nil {
				return nil, parts.err // the file, not the consumer, failed
			}
			return nil, err
		}
	}
	if _, err := io.Copy(io.Discard, parts); err != nil {
		return nil, err
	}
	hdr = parts.next
	if hdr == nil || hdr.Name != "manifest.json" {
		return nil, fmt.Errorf("%w: no manifest after the snapshot", ErrBackup)
	}
	mb, err := readEntry(tr, hdr, maxManifest)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mb, &b.Manifest); err != nil {
		return nil, fmt.Errorf("%w: manifest.json: %v", ErrBackup, err)
	}
	if hdr, err := tr.Next(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("%w: %s after the manifest", ErrBackup, hdr.Name)
		}
		return nil, damaged(err, "after the manifest")
	}
	return b, b.check(stream, parts, sums)
}

// check compares what was read with the manifest.
func (b *Backup) check(stream string, parts *partsReader, sums map[string]string) error {
	m := b.Manifest
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBackup, fmt.Sprintf(format, a...))
	}
	if m.Format != BackupFormat {
		return bad("format %q, want %q", m.Format, BackupFormat)
	}
	if m.Stream != stream {
		return bad("the manifest is of stream %q, the snapshot of %q", m.Stream, stream)
	}
	if parts.n != m.Snapshot.Parts || parts.size != m.Snapshot.Size || hex.EncodeToString(parts.sum.Sum(nil)) != m.Snapshot.SHA256 {
		return bad("the snapshot (%d pieces, %d bytes) is not the one the manifest describes (%d pieces, %d bytes, SHA-256 %s): damaged",
			parts.n, parts.size, m.Snapshot.Parts, m.Snapshot.Size, m.Snapshot.SHA256)
	}
	if len(sums) != len(m.Files) {
		return bad("%d files beside the snapshot, the manifest lists %d", len(sums), len(m.Files))
	}
	for name, want := range m.Files {
		if got, ok := sums[name]; !ok {
			return bad("%s is missing", name)
		} else if got != want {
			return bad("%s is damaged (SHA-256 %s, the manifest says %s)", name, got, want)
		}
	}
	for _, k := range BackupKeyFiles {
		if _, ok := sums["keys/"+k.Name]; k.Required && !ok {
			return bad("keys/%s is missing", k.Name)
		}
	}
	st, err := b.Info.StreamState()
	if err != nil {
		return bad("%v", err)
	}
	if name, err := b.Info.StreamName(); err != nil || name != stream {
		return bad("the snapshot's configuration is not of stream %s", stream)
	}
	if st.FirstSeq != m.FirstSeq || st.LastSeq != m.LastSeq || st.Msgs != m.Msgs {
		return bad("the snapshot holds sequences %d..%d (%d messages), the manifest says %d..%d (%d)", st.FirstSeq, st.LastSeq, st.Msgs, m.FirstSeq, m.LastSeq, m.Msgs)
	}
	return nil
}

func keyFileName(entry string) (string, bool) {
	for _, k := range BackupKeyFiles {
		if entry == "keys/"+k.Name {
			return k.Name, true
		}
	}
	return "", false
}

func readEntry(tr *tar.Reader, hdr *tar.Header, limit int64) ([]byte, error) {
	if hdr.Typeflag != tar.TypeReg || hdr.Size < 0 || hdr.Size > limit {
		return nil, fmt.Errorf("%w: %s is not a regular file of at most %d bytes", ErrBackup, hdr.Name, limit)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, tr); err != nil {
		return nil, damaged(err, "in "+hdr.Name)
	}
	return buf.Bytes(), nil
}

// damaged describes a failure to read the archive.
func damaged(err error, where string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the file ends %s: it was cut short", ErrBackup, where)
	}
	return fmt.Errorf("%w: unreadable %s: %v", ErrBackup, where, err)
}

// partsReader reads the snapshot's pieces as one stream, hashing them, and
// stops at the first entry that is not the next piece (kept in next).
type partsReader struct {
	tr     *tar.Reader
	stream string
	sum    hash.Hash
	n      int
	size   int64
	in     bool // inside a piece
	done   bool
	next   *tar.Header
	err    error // a damaged file
}

func (p *partsReader) Read(b []byte) (int, error) {
	for !p.done {
		if p.in {
			k, err := p.tr.Read(b)
			p.sum.Write(b[:k])
			p.size += int64(k)
			if err == io.EOF {
				p.in = false
				if k > 0 {
					return k, nil
				}
				continue
			}
			if err != nil {
				p.err = damaged(err, "in "+snapshotPart(p.stream, p.n))
				return k, p.err
			}
			return k, nil
		}
		hdr, err := p.tr.Next()
		if err != nil {
			p.err = damaged(err, "inside the snapshot")
			return 0, p.err
		}
		m := partRE.FindStringSubmatch(hdr.Name)
		if m == nil {
			p.done, p.next = true, hdr
			break
		}
		if n, _ := strconv.Atoi(m[2]); m[1] != p.stream || n != p.n+1 || hdr.Typeflag != tar.TypeReg {
			p.err = fmt.Errorf("%w: %s where %s belongs", ErrBackup, hdr.Name, snapshotPart(p.stream, p.n+1))
			return 0, p.err
		}
		p.n++
		p.in = true
	}
	return 0, io.EOF
}

// getBackup streams a backup of this node (administrator only): see
// WriteBackup. A failure once the body has started cuts the connection, so
// the client never mistakes a partial backup for a whole one (and a backup
// without its manifest is no backup to ReadBackup).
func (s *Server) getBackup(w http.ResponseWriter, r *http.Request) {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator takes backups", errForbidden)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	bw := &backupWriter{w: w, rc: http.NewResponseController(w)}
	_, err = WriteBackup(r.Context(), bw, BackupSource{Log: s.opts.Log, Store: s.opts.Store, Runner: s.opts.Runner,
		KeysDir: s.opts.Keys.Dir, Clock: s.opts.Clock})
	if err == nil {
		return
	}
	if !bw.started {
		s.writeError(w, r, err)
		return
	}
	if r.Context().Err() == nil {
		s.opts.Logger.Error("backup aborted", "err", err)
	}
	panic(http.ErrAbortHandler)
}

// backupWriter sends the headers with the first bytes and gives every
// write its own deadline: a backup may take longer than the server's write
// timeout, but a client that stops reading is dropped.
type backupWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

const backupWriteTimeout = 30 * time.Second

func (b *backupWriter) Write(p []byte) (int, error) {
	if !b.started {
		b.started = true
		b.w.Header().Set("Content-Type", "application/x-tar")
		b.w.Header().Set("Content-Disposition", `attachment; filename="referto-backup.tar"`)
		b.w.Header().Set("X-Content-Type-Options", "nosniff")
		b.w.WriteHeader(http.StatusOK)
	}
	_ = b.rc.SetWriteDeadline(time.Now().Add(backupWriteTimeout)) // not every writer has one
	return b.w.Write(p)
}
