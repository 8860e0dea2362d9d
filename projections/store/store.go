package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// Store is the Pebble database holding referto's projections.
type Store struct {
	db *pebble.DB

	// tokens holds the principals Token found, by token hash: an entry of
	// the token index is written once, when its official is appointed,
	// and never changed or deleted, so what was read once stays true, and
	// a request is authenticated without a read and a JSON decoding.
	tokens sync.Map // string → projections.Principal
}

// appendCommitRef appends ref as the JSON json.Marshal reads back into it,
// leaving out empty strings and zero sequences: idx/cmd keeps only the
// stream sequence. It is written for every commit a rebuild folds, so it
// does without reflection.
func appendCommitRef(dst []byte, ref projections.CommitRef) []byte {
	dst = append(dst, '{')
	sep := func() {
		if dst[len(dst)-1] != '{' {
			dst = append(dst, ',')
		}
	}
	str := func(name, v string) {
		if v != "" {
			sep()
			dst = append(dst, name...)
			dst, _ = jsontext.AppendQuote(dst, v) // invalid UTF-8 becomes U+FFFD, as json.Marshal writes it
		}
	}
	num := func(name string, v uint64) {
		if v != 0 {
			sep()
			dst = strconv.AppendUint(append(dst, name...), v, 10)
		}
	}
	str(`"tournament":`, ref.Tournament)
	num(`"stream_seq":`, ref.StreamSeq)
	num(`"first":`, ref.First)
	num(`"last":`, ref.Last)
	str(`"command_id":`, ref.CommandID)
	return append(dst, '}')
}

// StoreOptions configures the store.
type StoreOptions struct {
	// MemTableSize is the size of Pebble's memtables; the default is
	// DefaultMemTableSize. It bounds what the store may take on disk
	// beyond its data (DiskHeadroom).
	MemTableSize uint64
	// Logger receives Pebble's messages (nil discards them); an error
	// repeated within a minute is logged once, then counted.
	Logger *slog.Logger
	// Clock times that; the default is time.Now.
	Clock func() time.Time
	// FS is the filesystem the store is kept on; the default is the
	// operating system's. Tests put faults in it.
	FS vfs.FS
}

// DefaultMemTableSize is the default size of Pebble's memtables. One larger
// than Pebble's 4 MiB default absorbs more of the views' rewrites before
// they reach L0 (a 100,000-event rebuild: 42 MB compacted at 4 MiB, 28 MB
// at 16, none at 64; referto bench --only rebuild).
const DefaultMemTableSize = 32 << 20

// MinMemTableSize is the smallest memtable MemTableSizeFor picks.
const MinMemTableSize = 1 << 20

// memTableStopWrites is Pebble's MemTableStopWritesThreshold, set rather
// than defaulted because DiskHeadroom counts on it: writes stop while the
// queued memtables hold this many memtables' worth.
const memTableStopWrites = 2

// DefaultDiskHeadroom is DiskHeadroom(DefaultMemTableSize).
const DefaultDiskHeadroom = walFiles*(DefaultMemTableSize+DefaultMemTableSize/10) + flushing*DefaultMemTableSize

// How many write-ahead logs and memtables being flushed DiskHeadroom counts:
// the live logs (the memtables queued until writes stop, and the one
// rotated in then), as many recycled ones (Pebble keeps
// MemTableStopWritesThreshold+1 old logs to reuse), and the next one,
// preallocated; the queued memtables, written out as tables before their
// logs go.
const (
	walFiles = 2*(memTableStopWrites+1) + 1
	flushing = memTableStopWrites + 1
)

// DiskHeadroom is the most disk a store with memtables of memTableSize may
// take, under a burst of writes, beyond the data it holds: its write-ahead
// logs, each preallocated to 110% of a memtable (walFiles of them), and the
// tables its queued memtables are flushed to before their logs are freed.
// A guard that refuses new commands while the disk has less free than this
// (and what the log needs) leaves room for every accepted command to be
// applied. Compactions in progress need room too; Pebble retries one that
// finds none, so they are reported (Store.CompactingBytes, served as the
// metric referto_projection_compacting_bytes), not reserved.
func DiskHeadroom(memTableSize uint64) uint64 {
	return walFiles*(memTableSize+memTableSize/10) + flushing*memTableSize
}

// MemTableSizeFor is the largest memtable size, a power of two from
// MinMemTableSize to DefaultMemTableSize, whose DiskHeadroom fits in
// budget; false when even the smallest does not.
func MemTableSizeFor(budget uint64) (uint64, bool) {
	for size := uint64(DefaultMemTableSize); size >= MinMemTableSize; size /= 2 {
		if DiskHeadroom(size) <= budget {
			return size, true
		}
	}
	return 0, false
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *StoreOptions) EnsureDefaults() {
	if o.MemTableSize == 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
}

// Open opens (or creates) the store in dir with the default options.
// Pebble's own messages go to logger (nil discards them).
func Open(dir string, logger *slog.Logger) (*Store, error) {
	return OpenWith(dir, StoreOptions{Logger: logger})
}

// OpenWith opens (or creates) the store in dir.
func OpenWith(dir string, o StoreOptions) (*Store, error) {
	o.EnsureDefaults()
	logger := o.Logger
	// Corruption found while reading is reported to the caller as an
	// error (and logged), not turned into Fatalf: the projections are
	// derived data, and a corrupt store is moved aside and rebuilt from
	// the log (OpenVerified).
	events := &pebble.EventListener{DataCorruption: func(info pebble.DataCorruptionInfo) {
		logger.Error("pebble: data corruption", "path", info.Path, "err", info.Details)
	}}
	opts := &pebble.Options{FS: o.FS, Logger: &pebbleLogger{l: logger, now: o.Clock}, EventListener: events,
		MemTableSize: o.MemTableSize, MemTableStopWritesThreshold: memTableStopWrites}
	// Every command looks its idempotency key up in the command index
	// before it is decided, and almost every lookup misses: a Bloom filter
	// on every level (the levels below inherit L0's) answers most misses
	// without reading a table's index and data blocks.
	opts.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	// The views, indexes and state snapshots are the owner's alone, as
	// the data directory is (Pebble would make its directory 0755).
	if err := o.FS.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pebble: open %s: %w", dir, err)
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("pebble: open %s: %w", dir, err)
	}
	return &Store{db: db}, nil
}

// CompactingBytes is what the compactions in progress read, about as much
// as they may still write.
func (s *Store) CompactingBytes() uint64 {
	return uint64(max(s.db.Metrics().Compact.InProgressBytes, 0))
}

// Metrics returns Pebble's metrics of the store: what a benchmark reports
// as bytes written and write amplification.
func (s *Store) Metrics() *pebble.Metrics { return s.db.Metrics() }

// Close flushes memtables to disk and closes the database.
func (s *Store) Close() error {
	return errors.Join(s.db.Flush(), s.db.Close())
}

func (s *Store) get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("pebble: get %s: %w", key, err)
	}
	defer closer.Close()
	return bytes.Clone(v), true, nil
}

func (s *Store) getJSON(key []byte, v any) (bool, error) {
	b, ok, err := s.get(key)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("pebble: decode %s: %w", key, err)
	}
	return true, nil
}

func (s *Store) getU64(key []byte) (uint64, error) {
	b, ok, err := s.get(key)
	if err != nil || !ok {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("pebble: %s holds %d bytes, want 8", key, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// Applied returns the last stream sequence whose projections are stored.
func (s *Store) Applied() (uint64, error) { return s.getU64(keyApplied) }

// Summary returns the stored summary JSON of a tournament.
func (s *Store) Summary(t string) ([]byte, bool, error) { return s.get(keySummary(t)) }

// Player returns one stored entry-list row.
func (s *Store) Player(t, p string) ([]byte, bool, error) { return s.get(keyPlayer(t, p)) }

// Players returns the stored entry-list rows of a tournament in id order.
func (s *Store) Players(t string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := s.scan(prefixPlayers(t), func(_, v []byte) error {
		out = append(out, bytes.Clone(v))
		return nil
	})
	return out, err
}

// Round returns the stored header of round r.
func (s *Store) Round(t string, r int) ([]byte, bool, error) { return s.get(keyRound(t, r)) }

// Tables returns the stored tables of round r in table order.
func (s *Store) Tables(t string, r int) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := s.scan(prefixTables(t, r), func(_, v []byte) error {
		out = append(out, bytes.Clone(v))
		return nil
	})
	return out, err
}

// Standings returns the stored standings JSON.
func (s *Store) Standings(t string) ([]byte, bool, error) { return s.get(keyStandings(t)) }

// Classification returns the stored classification JSON.
func (s *Store) Classification(t string) ([]byte, bool, error) { return s.get(keyClassification(t)) }

// Nodes returns stored Merkle node hashes of a tournament's tree, in the order asked.
func (s *Store) Nodes(t string, ids []checkpoint.NodeID) ([][]byte, error) {
	out := make([][]byte, len(ids))
	for i, id := range ids {
		h, ok, err := s.get(keyNode(t, id.Level, id.Index))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: %s node %d/%d not stored", checkpoint.ErrNode, t, id.Level, id.Index)
		}
		out[i] = h
	}
	return out, nil
}

// NodeGetter returns the node getter of a tournament's tree.
func (s *Store) NodeGetter(t string) checkpoint.NodeGetter {
	return func(ids []checkpoint.NodeID) ([][]byte, error) { return s.Nodes(t, ids) }
}

// Tournaments returns the ids of all tournaments.
func (s *Store) Tournaments() ([]string, error) {
	var out []string
	p := prefixTournaments()
	err := s.scan(p, func(k, _ []byte) error {
		out = append(out, string(k[len(p):]))
		return nil
	})
	return out, err
}

// Command returns the commit a command (by idempotency key) produced: its
// stream sequence (the rest, First, Last and CommandID, is in the log).
func (s *Store) Command(t, key string) (projections.CommitRef, bool, error) {
	var ref projections.CommitRef
	ok, err := s.getJSON(keyCommand(t, key), &ref)
	if ok {
		ref.Tournament = t // not stored since idx/cmd keeps the stream sequence alone
	}
	return ref, ok, err
}

// Creation returns the commit that created a tournament under idempotency
// key key, whichever tournament it created: its stream sequence (the rest
// is in the log).
func (s *Store) Creation(key string) (projections.CommitRef, bool, error) {
	var ref projections.CommitRef
	ok, err := s.getJSON(keyCreation(key), &ref)
	return ref, ok, err
}

// Token returns the official a token hash belongs to.
func (s *Store) Token(hash string) (projections.Principal, bool, error) {
	if p, ok := s.tokens.Load(hash); ok {
		return p.(projections.Principal), true, nil
	}
	var p projections.Principal
	ok, err := s.getJSON(keyToken(hash), &p)
	if ok && err == nil {
		s.tokens.Store(hash, p)
	}
	return p, ok, err
}

// LastCommit returns the last commit of a tournament.
func (s *Store) LastCommit(t string) (projections.CommitRef, bool, error) {
	p := prefixCommit(t)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: upperBound(p)})
	if err != nil {
		return projections.CommitRef{}, false, err
	}
	defer it.Close()
	if !it.Last() {
		return projections.CommitRef{}, false, it.Error()
	}
	var ref projections.CommitRef
	if err := json.Unmarshal(it.Value(), &ref); err != nil {
		return projections.CommitRef{}, false, fmt.Errorf("pebble: decode %s: %w", it.Key(), err)
	}
	return ref, true, nil
}

// Commits returns up to limit commits of a tournament, starting with the one
// that holds seq from.
func (s *Store) Commits(t string, from uint64, limit int) ([]projections.CommitRef, error) {
	p := prefixCommit(t)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: upperBound(p)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	// The commit holding from is the last one starting at or before it.
	ok := it.SeekLT(keyCommit(t, from+1))
	if !ok {
		ok = it.First()
	}
	var out []projections.CommitRef
	for ; ok && len(out) < limit; ok = it.Next() {
		var ref projections.CommitRef
		if err := json.Unmarshal(it.Value(), &ref); err != nil {
			return nil, fmt.Errorf("pebble: decode %s: %w", it.Key(), err)
		}
		if ref.Last < from {
			continue
		}
		out = append(out, ref)
	}
	return out, it.Error()
}

func (s *Store) scan(prefix []byte, fn func(k, v []byte) error) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: upperBound(prefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

// snapshots reads every tournament's snapshot and calls fn with each. A
// snapshot is stored in pieces, snap/<T>/g<gen>/<chunk>, in key order, of
// the generation snapcur/<T> names; pieces of any other generation (a
// snapshot cut short by a crash) are passed over. An older store holds
// the pieces without a generation, snap/<T>/<chunk>, or the whole state
// in one, snap/<T>, and no snapcur/<T>.
func (s *Store) snapshots(fn func(*projections.Tournament)) error {
	gens := map[string][]byte{}
	err := s.scan(prefixSnapCur(), func(k, v []byte) error {
		if len(v) != 8 {
			return fmt.Errorf("pebble: %s holds %d bytes, not a generation", k, len(v))
		}
		t := string(k[len(prefixSnapCur()):])
		gens[t] = prefixSnapGen(t, binary.BigEndian.Uint64(v))
		return nil
	})
	if err != nil {
		return err
	}
	p := prefixSnaps()
	var id string
	var pieces []io.Reader
	done := func() error {
		if id == "" || len(pieces) == 0 {
			id, pieces = "", nil
			return nil
		}
		t, err := projections.ReadSnapshot(io.MultiReader(pieces...), id)
		if err != nil {
			return fmt.Errorf("pebble: %w", err)
		}
		fn(t)
		id, pieces = "", nil
		return nil
	}
	err = s.scan(p, func(k, v []byte) error {
		of, rest, _ := strings.Cut(string(k[len(p):]), "/")
		if of != id {
			if err := done(); err != nil {
				return err
			}
			id = of
		}
		if gen, ok := gens[of]; ok {
			if !bytes.HasPrefix(k, gen) {
				return nil // another generation's, or an older store's
			}
		} else if strings.HasPrefix(rest, "g") {
			return nil // pieces of a snapshot never completed
		}
		pieces = append(pieces, bytes.NewReader(bytes.Clone(v)))
		return nil
	})
	if err != nil {
		return err
	}
	return done()
}

// Dump writes every key and value of the projections, in key order, as
// length-prefixed records. Two stores with equal dumps hold byte-identical
// projections. The runner's resume snapshots (snap/, snapcur/ and
// sys/snapshot) are left out: which states they hold depends on when the
// runner was started and stopped, not on the log.
func (s *Store) Dump(w io.Writer) error { return s.dump(w, false) }

func (s *Store) dump(w io.Writer, all bool) error {
	it, err := s.db.NewIter(&pebble.IterOptions{})
	if err != nil {
		return err
	}
	defer it.Close()
	var hdr [8]byte
	for ok := it.First(); ok; ok = it.Next() {
		if !all && (bytes.HasPrefix(it.Key(), prefixSnaps()) || bytes.HasPrefix(it.Key(), prefixSnapCur()) || bytes.Equal(it.Key(), keySnapshot) || bytes.Equal(it.Key(), keyFormat)) {
			continue
		}
		for _, b := range [][]byte{it.Key(), it.Value()} {
			binary.BigEndian.PutUint64(hdr[:], uint64(len(b)))
			if _, err := w.Write(hdr[:]); err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return it.Error()
}

// pebbleLogger routes Pebble's messages to slog: informational ones at
// debug level, errors at error level. An error Pebble repeats (a flush or
// a compaction it retries while the disk is full) is logged once a minute
// at most, with how many times it came since: thousands of lines a second
// would drown the one that says why.
type pebbleLogger struct {
	l   *slog.Logger
	now func() time.Time

	mu       sync.Mutex
	repeated map[string]*repeatedError // by format
}

// repeatedError is one kind of error: when it was last logged and how many
// times it came since.
type repeatedError struct {
	logged     time.Time
	suppressed int
}

// errorRepeatWindow is how long an error is not logged again.
const errorRepeatWindow = time.Minute

func (p *pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p *pebbleLogger) Errorf(format string, args ...any) {
	now := p.now()
	p.mu.Lock()
	if p.repeated == nil {
		p.repeated = map[string]*repeatedError{}
	}
	r := p.repeated[format]
	if r != nil && now.Sub(r.logged) < errorRepeatWindow {
		r.suppressed++
		p.mu.Unlock()
		return
	}
	if r == nil {
		if len(p.repeated) >= 256 { // formats are Pebble's constants; bound it anyway
			clear(p.repeated)
		}
		r = &repeatedError{}
		p.repeated[format] = r
	}
	suppressed := r.suppressed
	r.logged, r.suppressed = now, 0
	p.mu.Unlock()
	attrs := []any{"component", "pebble"}
	if suppressed > 0 {
		attrs = append(attrs, "repeated", suppressed, "since", errorRepeatWindow.String())
	}
	p.l.Error(fmt.Sprintf(format, args...), attrs...)
}

// Fatalf is called by Pebble on unrecoverable corruption; Pebble requires
// that it does not return.
func (p *pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble", "fatal", true)
	panic("pebble: " + msg)
}

// ErrCorrupt reports a projection store whose files fail their checksums
// or format: it must be rebuilt from the log (OpenVerified does that).
var ErrCorrupt = errors.New("pebble: projection store corrupt")

// Verify reads every key and value, so that Pebble checks every block's
// checksum, and reports corruption as ErrCorrupt.
func (s *Store) Verify() error {
	err := s.dump(io.Discard, true)
	if err != nil && pebble.IsCorruptionError(err) {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return err
}

// Format is the version of what the projections derive from a log: the
// views, indexes and resume snapshots. It goes up whenever a change to
// projections (or to the scoring they use) would store something else for
// the same log, or a snapshot the new code cannot fully read (format 2: the
// classification's, standings' and scoring's second edition of the rules'
// reading, the contestable acts, a shared place's order; format 3: the
// summary says whether the tournament is closed, the classification how each
// tie was settled; format 4: the creation index, idx/create; format 5: a
// settled tie cites the tournament's own ruleset; format 6: a table keeps its
// latest proposal only, and how many each player made; format 7: the summary
// says the tournament's organizer and venue). A store written in another
// format is rebuilt from the log (OpenVerified).
const Format = 7

// errStale reports a store written by a referto of another Format.
var errStale = errors.New("pebble: projection store written in another format")

// checkFormat compares the store's format with Format. A store that has
// applied nothing takes this one's.
func (s *Store) checkFormat() error {
	b, ok, err := s.get(keyFormat)
	if err != nil {
		return err
	}
	applied, err := s.Applied()
	if err != nil {
		return err
	}
	switch {
	case !ok && applied == 0:
		return s.db.Set(keyFormat, binary.BigEndian.AppendUint64(nil, Format), pebble.Sync)
	case !ok:
		return fmt.Errorf("%w: format 1, this referto writes format %d", errStale, Format)
	case len(b) != 8 || binary.BigEndian.Uint64(b) != Format:
		return fmt.Errorf("%w: format %x, this referto writes format %d", errStale, b, Format)
	}
	return nil
}

// OpenVerified opens the projection store in dir and verifies it. A store
// that fails to open or verify because its files are damaged (corrupt,
// missing or cut short: a table, the MANIFEST, a marker file) is moved
// aside to dir.corrupt-<unix time> (kept for inspection, never deleted)
// and an empty one is opened in its place: the projections are derived
// data, and the runner rebuilds them from the log. What no new store
// would get past (no permission, a full or read-only disk) is returned. A store written in
// another Format is moved aside to dir.stale-<unix time> and rebuilt the
// same way. It reports where the store went, "" when nothing was moved.
func OpenVerified(dir string, o StoreOptions) (*Store, string, error) {
	o.EnsureDefaults()
	logger, now := o.Logger, o.Clock
	st, err := OpenWith(dir, o)
	if err == nil {
		if err = st.Verify(); err == nil {
			err = st.checkFormat()
		}
		if err != nil {
			_ = st.db.Close()
		}
	}
	if err == nil {
		return st, "", nil
	}
	if errors.Is(err, errStale) {
		aside := fmt.Sprintf("%s.stale-%d", dir, now().Unix())
		if rerr := o.FS.Rename(dir, aside); rerr != nil {
			return nil, "", fmt.Errorf("%w (and moving it aside failed: %v)", err, rerr)
		}
		logger.Warn("projection store written by another referto: moved aside, rebuilding from the log", "store", dir, "aside", aside, "err", err)
		if st, err = OpenWith(dir, o); err == nil {
			err = st.checkFormat()
		}
		return st, aside, err
	}
	if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) {
		return nil, "", err
	}
	aside := fmt.Sprintf("%s.corrupt-%d", dir, now().Unix())
	if rerr := o.FS.Rename(dir, aside); rerr != nil {
		return nil, "", fmt.Errorf("%w (and moving it aside failed: %v)", err, rerr)
	}
	logger.Error("projection store corrupt: moved aside, rebuilding from the log", "store", dir, "aside", aside, "err", err)
	if st, err = OpenWith(dir, o); err == nil {
		err = st.checkFormat()
	}
	return st, aside, err
}
