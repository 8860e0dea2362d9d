package node

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/atomicfile"
)

// Heads is the record of the acknowledged heads (Layout.Heads): a file of
// its own beside the log, appended to and fsynced before a command is
// answered 201, so that whatever happens to the log's files, the ledger
// knows how far every tournament's log went. The heads of commands
// answered at the same time share one fsync (Record).
//
// Each record is a line: tournament, size, stream sequence, root and last
// leaf (base64), and the CRC-32C of what precedes it on the line. A last
// line cut short (a crash during its write, before its fsync and so before
// any 201 that counted on it) is dropped at open; a bad line before the
// last is the record itself damaged, and Open refuses it.
//
// Safe for concurrent use.
type Heads struct {
	path string

	mu      sync.Mutex
	cond    *sync.Cond
	f       *os.File
	durable map[string]ledger.AckedHead // the greatest head of each tournament on disk
	records int                         // lines in the file
	// The group commit: records appended while batch started-1 is being
	// written go into batch started; synced is the last batch on disk.
	buf, next        []byte
	nextHeads        []ledger.AckedHead
	started, synced  uint64
	flushing, closed bool
	err              error // a failed write or fsync: the file's state is unknown from then on
}

// headsMagic is the file's first line.
const headsMagic = "referto-heads/1"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrHeadsDamaged reports a record of acknowledged heads that cannot be
// read: what the venue acknowledged is not known.
var ErrHeadsDamaged = errors.New("node: record of acknowledged heads damaged")

// OpenHeads opens the record at path, creating it (mode 0600) when it does
// not exist; created says it did not. A file of many more records than
// tournaments is rewritten with one per tournament, atomically.
func OpenHeads(path string) (h *Heads, created bool, err error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		created = true
		if err := atomicfile.Write(path, []byte(headsMagic+"\n"), 0o600); err != nil {
			return nil, false, err
		}
		b = []byte(headsMagic + "\n")
	case err != nil:
		return nil, false, fmt.Errorf("%w: %v", ErrHeadsDamaged, err)
	}
	durable, records, good, err := parseHeads(b)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s: %v", ErrHeadsDamaged, path, err)
	}
	if records > 1024 && records > 2*len(durable) {
		if err := atomicfile.Write(path, encodeHeads(durable), 0o600); err != nil {
			return nil, false, err
		}
		records, good = len(durable), -1
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, err
	}
	if good >= 0 && good < len(b) && !created {
		// A last record cut short: never synced, never counted on.
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, false, err
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, false, err
	}
	h = &Heads{path: path, f: f, durable: durable, records: records}
	h.cond = sync.NewCond(&h.mu)
	return h, created, nil
}

// ReadHeads reads the record at path without opening it for writing: nil
// when there is none.
func ReadHeads(path string) (map[string]ledger.AckedHead, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrHeadsDamaged, err)
	}
	heads, _, _, err := parseHeads(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrHeadsDamaged, path, err)
	}
	return heads, nil
}

// parseHeads reads a record's bytes: the greatest head per tournament, how
// many records, and the length of the part made of whole records (the rest
// is a last line cut short).
func parseHeads(b []byte) (map[string]ledger.AckedHead, int, int, error) {
	first, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(first) != headsMagic {
		return nil, 0, 0, fmt.Errorf("the first line is not %q", headsMagic)
	}
	heads := map[string]ledger.AckedHead{}
	good, records := len(first)+1, 0
	for n := 2; len(rest) > 0; n++ {
		line, after, whole := bytes.Cut(rest, []byte("\n"))
		h, err := parseHead(line)
		if !whole || err != nil && len(after) == 0 {
			// The last line cut short, or not what was written: a crash
			// during its write, before its fsync, so before any 201 that
			// counted on it.
			return heads, records, good, nil
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("line %d: %v", n, err)
		}
		if cur, ok := heads[h.Tournament]; !ok || h.Size > cur.Size {
			heads[h.Tournament] = h
		}
		records++
		good += len(line) + 1
		rest = after
	}
	return heads, records, good, nil
}

func parseHead(line []byte) (ledger.AckedHead, error) {
	i := bytes.LastIndexByte(line, ' ')
	if i < 0 {
		return ledger.AckedHead{}, errors.New("no checksum")
	}
	sum, err := strconv.ParseUint(string(line[i+1:]), 16, 32)
	if err != nil || uint32(sum) != crc32.Checksum(line[:i], castagnoli) {
		return ledger.AckedHead{}, errors.New("checksum does not match")
	}
	f := strings.Fields(string(line[:i]))
	if len(f) != 5 || !events.ValidID(f[0]) {
		return ledger.AckedHead{}, errors.New("not a head")
	}
	var h ledger.AckedHead
	h.Tournament = f[0]
	if h.Size, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return ledger.AckedHead{}, err
	}
	if h.StreamSeq, err = strconv.ParseUint(f[2], 10, 64); err != nil {
		return ledger.AckedHead{}, err
	}
	if h.Root, err = base64.StdEncoding.DecodeString(f[3]); err != nil {
		return ledger.AckedHead{}, err
	}
	if h.Last, err = base64.StdEncoding.DecodeString(f[4]); err != nil {
		return ledger.AckedHead{}, err
	}
	return h, nil
}

func appendHead(dst []byte, h ledger.AckedHead) []byte {
	start := len(dst)
	dst = append(dst, h.Tournament...)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, h.Size, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, h.StreamSeq, 10)
	dst = append(dst, ' ')
	dst = base64.StdEncoding.AppendEncode(dst, h.Root)
	dst = append(dst, ' ')
	dst = base64.StdEncoding.AppendEncode(dst, h.Last)
	sum := crc32.Checksum(dst[start:], castagnoli)
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, uint64(sum), 16)
	return append(dst, '\n')
}

func encodeHeads(heads map[string]ledger.AckedHead) []byte {
	b := []byte(headsMagic + "\n")
	for _, t := range slices.Sorted(maps.Keys(heads)) {
		b = appendHead(b, heads[t])
	}
	return b
}

// Get returns the greatest head of tournament t on disk.
func (h *Heads) Get(t string) (ledger.AckedHead, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.durable[t]
	return a, ok
}

// All returns the greatest head of every tournament on disk.
func (h *Heads) All() map[string]ledger.AckedHead {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]ledger.AckedHead, len(h.durable))
	for t, a := range h.durable {
		out[t] = a
	}
	return out
}

// Record puts a on disk unless a head of its tournament at least as long
// is there already, and returns once it is fsynced. Records arriving while
// another batch is being written are written and fsynced together, next:
// under concurrent commands the cost of the fsync is shared.
func (h *Heads) Record(a ledger.AckedHead) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return h.err
	}
	if h.closed {
		return errors.New("node: record of acknowledged heads closed")
	}
	if cur, ok := h.durable[a.Tournament]; ok && cur.Size >= a.Size {
		return nil
	}
	h.next = appendHead(h.next, a)
	h.nextHeads = append(h.nextHeads, a)
	batch := h.started + 1 // the batch this record goes into
	for h.synced < batch && h.err == nil {
		if h.flushing {
			h.cond.Wait()
			continue
		}
		h.flushing = true
		h.started++
		h.buf, h.next = h.next, h.buf[:0]
		heads := h.nextHeads
		h.nextHeads = nil
		h.mu.Unlock()
		_, err := h.f.Write(h.buf)
		if err == nil {
			err = syncData(h.f)
		}
		h.mu.Lock()
		h.flushing = false
		if err != nil {
			h.err = fmt.Errorf("node: record of acknowledged heads %s: %w", h.path, err)
		} else {
			h.synced = h.started
			h.records += len(heads)
			for _, a := range heads {
				if cur, ok := h.durable[a.Tournament]; !ok || a.Size > cur.Size {
					h.durable[a.Tournament] = a
				}
			}
		}
		h.cond.Broadcast()
	}
	return h.err
}

// Close closes the file; records still being written finish first.
func (h *Heads) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.flushing {
		h.cond.Wait()
	}
	if h.closed {
		return nil
	}
	h.closed = true
	return h.f.Close()
}
