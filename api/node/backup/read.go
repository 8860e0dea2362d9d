package backup

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/referto/referto/events/eventlog"
)

// ErrDamaged marks a backup file that is damaged, cut short or not a backup.
var ErrDamaged = errors.New("backup: not a complete referto backup")

// Archive is a backup file read back.
type Archive struct {
	Manifest Manifest
	Keys     []KeyFile
	// Info is what JetStream reported for the log's snapshot: the
	// request that restores it.
	Info eventlog.SnapshotInfo
	// RegistryInfo is the same for the season registry's snapshot, when
	// the backup holds one (a hub's).
	RegistryInfo *eventlog.SnapshotInfo
	// HubState is a hub's state file, nil in a venue's backup.
	HubState []byte
	// Workbooks are a hub's club workbooks (its folder, node.Layout.Workbooks),
	// in the file's order; none in a venue's backup.
	Workbooks []WorkbookFile
}

// WorkbookFile is one club workbook of a hub's folder in a backup.
type WorkbookFile struct {
	Name string // its name in the folder
	Data []byte
}

// Limits on the entries read into memory.
const (
	maxKeyFile  = 64 << 10
	maxHubState = 64 << 20
	maxMeta     = 1 << 20
	maxManifest = 64 << 20
)

var (
	partRE   = regexp.MustCompile(`^stream/([A-Za-z0-9_-]+)\.snapshot\.([0-9]{6})$`)
	streamRE = regexp.MustCompile(`^stream/([A-Za-z0-9_-]+)\.json$`)
)

// Read reads a backup and checks it whole: the entries in their
// order, every key file and each snapshot against the manifest's SHA-256,
// each snapshot's state against the manifest, and nothing after the
// manifest. snapshot, when not nil, is given each snapshot's bytes as they
// are read, the log's then the season registry's when there is one (and
// must read them to the end or fail); they are checked only once read, so
// a caller that acts on them must undo what it did when Read fails.
// Damage is reported as ErrDamaged.
func Read(r io.Reader, snapshot func(info eventlog.SnapshotInfo, data io.Reader) error) (*Archive, error) {
	tr := tar.NewReader(r)
	b := &Archive{}
	sums := map[string]string{}
	hdr, err := tr.Next()
	for ; err == nil; hdr, err = tr.Next() {
		name, ok := keyFileName(hdr.Name)
		if !ok && hdr.Name != HubStateEntry {
			break
		}
		if _, dup := sums[hdr.Name]; dup {
			return nil, fmt.Errorf("%w: %s twice", ErrDamaged, hdr.Name)
		}
		limit := int64(maxKeyFile)
		if !ok {
			limit = maxHubState
		}
		data, err := readEntry(tr, hdr, limit)
		if err != nil {
			return nil, err
		}
		sums[hdr.Name] = hexSum(data)
		if !ok {
			b.HubState = data
			continue
		}
		b.Keys = append(b.Keys, KeyFile{Name: name, Mode: fs.FileMode(hdr.Mode).Perm(), Data: data})
	}
	if err != nil {
		return nil, damaged(err, "before the stream")
	}
	if !streamRE.MatchString(hdr.Name) {
		return nil, fmt.Errorf("%w: %s where the stream's snapshot information belongs", ErrDamaged, hdr.Name)
	}
	log, err := readSnapshot(tr, hdr, sums, snapshot)
	if err != nil {
		return nil, err
	}
	b.Info = log.info
	hdr = log.parts.next
	var reg *snapshotRead
	if sm := streamRE.FindStringSubmatch(hdr.Name); sm != nil {
		if sm[1] != eventlog.RegistryStream || sm[1] == log.stream {
			return nil, fmt.Errorf("%w: %s after the log's snapshot, where only the season registry's (%s) or the manifest belongs", ErrDamaged, hdr.Name, eventlog.RegistryStream)
		}
		if reg, err = readSnapshot(tr, hdr, sums, snapshot); err != nil {
			return nil, err
		}
		b.RegistryInfo = &reg.info
		hdr = reg.parts.next
	}
	for ; strings.HasPrefix(hdr.Name, WorkbooksEntry); hdr, err = tr.Next() {
		name := strings.TrimPrefix(hdr.Name, WorkbooksEntry)
		if !workbookName(name) {
			return nil, fmt.Errorf("%w: %s is no club workbook's name", ErrDamaged, hdr.Name)
		}
		if _, dup := sums[hdr.Name]; dup {
			return nil, fmt.Errorf("%w: %s twice", ErrDamaged, hdr.Name)
		}
		data, err := readEntry(tr, hdr, maxWorkbook)
		if err != nil {
			return nil, err
		}
		sums[hdr.Name] = hexSum(data)
		b.Workbooks = append(b.Workbooks, WorkbookFile{Name: name, Data: data})
	}
	if err != nil {
		return nil, damaged(err, "among the club workbooks")
	}
	if hdr.Name != "manifest.json" {
		return nil, fmt.Errorf("%w: no manifest after the snapshot", ErrDamaged)
	}
	mb, err := readEntry(tr, hdr, maxManifest)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mb, &b.Manifest); err != nil {
		return nil, fmt.Errorf("%w: manifest.json: %v", ErrDamaged, err)
	}
	if hdr, err := tr.Next(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("%w: %s after the manifest", ErrDamaged, hdr.Name)
		}
		return nil, damaged(err, "after the manifest")
	}
	return b, b.check(log, reg, sums)
}

// snapshotRead is one stream's snapshot as read: the stream, what
// JetStream reported for it, and its pieces (which end at the entry after
// them, parts.next).
type snapshotRead struct {
	stream string
	info   eventlog.SnapshotInfo
	parts  *partsReader
}

// readSnapshot reads the snapshot of the stream whose information hdr
// is (stream/<S>.json), then its pieces, giving them to snapshot when not
// nil, to the entry after them.
func readSnapshot(tr *tar.Reader, hdr *tar.Header, sums map[string]string, snapshot func(eventlog.SnapshotInfo, io.Reader) error) (*snapshotRead, error) {
	s := &snapshotRead{stream: streamRE.FindStringSubmatch(hdr.Name)[1]}
	meta, err := readEntry(tr, hdr, maxMeta)
	if err != nil {
		return nil, err
	}
	sums[hdr.Name] = hexSum(meta)
	if err := json.Unmarshal(meta, &s.info); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDamaged, hdr.Name, err)
	}
	s.parts = &partsReader{tr: tr, stream: s.stream, sum: sha256.New()}
	if snapshot != nil {
		if err := snapshot(s.info, s.parts); err != nil {
			if s.parts.err != nil {
				return nil, s.parts.err // the file, not the consumer, failed
			}
			return nil, err
		}
	}
	if _, err := io.Copy(io.Discard, s.parts); err != nil {
		return nil, err
	}
	if s.parts.next == nil {
		return nil, fmt.Errorf("%w: no manifest after the snapshot", ErrDamaged)
	}
	return s, nil
}

// check compares what was read with the manifest: the log's snapshot, and
// the registry's (reg, nil when the file holds none) as its format says.
func (b *Archive) check(log, reg *snapshotRead, sums map[string]string) error {
	m := b.Manifest
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, a...))
	}
	switch {
	case m.Format != Format && m.Format != FormatRegistry && m.Format != FormatWorkbooks:
		return bad("format %q, want %q, %q or %q", m.Format, Format, FormatRegistry, FormatWorkbooks)
	case m.Format == Format && (reg != nil || m.Registry != nil):
		return bad("a %s backup with a season registry", Format)
	case m.Format == FormatRegistry && (reg == nil || m.Registry == nil):
		return bad("a %s backup without the season registry's snapshot, or without its manifest", FormatRegistry)
	case m.Format == FormatWorkbooks && (reg == nil) != (m.Registry == nil):
		return bad("a %s backup whose season registry's snapshot and manifest do not go together", FormatWorkbooks)
	case m.Format == Format && b.HubState != nil:
		return bad("a %s backup with a hub's state", Format)
	case m.Format != FormatWorkbooks && len(b.Workbooks) > 0:
		return bad("a %s backup with club workbooks", m.Format)
	case m.Format == FormatWorkbooks && len(b.Workbooks) == 0:
		return bad("a %s backup without club workbooks", FormatWorkbooks)
	}
	if m.Stream != log.stream {
		return bad("the manifest is of stream %q, the snapshot of %q", m.Stream, log.stream)
	}
	if err := log.check(m.Snapshot, m.FirstSeq, m.LastSeq, m.Msgs); err != nil {
		return err
	}
	if reg != nil {
		r := m.Registry
		if r.Stream != reg.stream {
			return bad("the manifest's season registry is of stream %q, the snapshot of %q", r.Stream, reg.stream)
		}
		if err := reg.check(r.Snapshot, r.FirstSeq, r.LastSeq, r.Msgs); err != nil {
			return err
		}
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
	for _, k := range KeyFiles {
		if _, ok := sums["keys/"+k.Name]; k.Required && !ok {
			return bad("keys/%s is missing", k.Name)
		}
	}
	return nil
}

// check compares one snapshot as read with what the manifest says of it:
// its pieces, and the stream and state JetStream reported.
func (s *snapshotRead) check(f SnapshotFile, first, last, msgs uint64) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, a...))
	}
	p := s.parts
	if p.n != f.Parts || p.size != f.Size || hex.EncodeToString(p.sum.Sum(nil)) != f.SHA256 {
		return bad("the snapshot of %s (%d pieces, %d bytes) is not the one the manifest describes (%d pieces, %d bytes, SHA-256 %s): damaged",
			s.stream, p.n, p.size, f.Parts, f.Size, f.SHA256)
	}
	st, err := s.info.StreamState()
	if err != nil {
		return bad("%v", err)
	}
	if name, err := s.info.StreamName(); err != nil || name != s.stream {
		return bad("the snapshot's configuration is not of stream %s", s.stream)
	}
	if st.FirstSeq != first || st.LastSeq != last || st.Msgs != msgs {
		return bad("the snapshot of %s holds sequences %d..%d (%d messages), the manifest says %d..%d (%d)", s.stream, st.FirstSeq, st.LastSeq, st.Msgs, first, last, msgs)
	}
	return nil
}

func keyFileName(entry string) (string, bool) {
	for _, k := range KeyFiles {
		if entry == "keys/"+k.Name {
			return k.Name, true
		}
	}
	return "", false
}

func readEntry(tr *tar.Reader, hdr *tar.Header, limit int64) ([]byte, error) {
	if hdr.Typeflag != tar.TypeReg || hdr.Size < 0 || hdr.Size > limit {
		return nil, fmt.Errorf("%w: %s is not a regular file of at most %d bytes", ErrDamaged, hdr.Name, limit)
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
		return fmt.Errorf("%w: the file ends %s: it was cut short", ErrDamaged, where)
	}
	return fmt.Errorf("%w: unreadable %s: %v", ErrDamaged, where, err)
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
			p.err = fmt.Errorf("%w: %s where %s belongs", ErrDamaged, hdr.Name, snapshotPart(p.stream, p.n+1))
			return 0, p.err
		}
		p.n++
		p.in = true
	}
	return 0, io.EOF
}
