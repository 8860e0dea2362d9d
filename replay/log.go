package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// LineError locates a problem in an export: line 1 is the first event.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrLog reports an export that is not one tournament's contiguous log.
var ErrLog = errors.New("replay: not a contiguous log")

// Scanner reads an export line by line, strictly: every line an envelope
// of one tournament, seqs 1, 2, 3, … without gaps. It holds a bounded
// window of lines, so a log of any length is read in the memory of its
// state; goroutines read and decode ahead while the caller folds. Close it
// when stopping before the end.
type Scanner struct {
	r        io.Reader
	whole    []byte // the export in memory (NewScannerBytes), read in place
	progress func(n int)
	ahead    chan *batch
	done     chan struct{}
	batch    *batch
	next     int // index in batch
	cur      scanned
	line     int
	first    string
	err      error
	fold     bool // decode as events.DecodeForFold
	// inline: each line is read and decoded by Scan itself (readLine),
	// on the caller's goroutine.
	inline   bool
	readLine func() ([]byte, error)
}

// scanned is one line read ahead: the envelope and its event, decoded.
type scanned struct {
	line   int
	env    events.Envelope
	ev     events.Event
	decErr error // the envelope is fine but its event does not decode
	raw    []byte
	leaf   []byte // the Merkle leaf hash of raw
	err    error  // reading stops here
}

// batch is a run of lines decoded by one worker; decoded is closed when
// its items are ready.
type batch struct {
	items   []scanned
	decoded chan struct{}
}

// A batch closes at batchLines lines or batchBytes bytes, whichever comes
// first (a longer line, such as a late draw of a large tournament, is a
// batch of its own). Whatever the CPUs, at most about 2 × aheadBatches
// batches are held: 128 MB of ordinary lines, beside the long ones.
const (
	batchLines   = 256
	batchBytes   = 4 << 20
	aheadBatches = 16
)

// NewScanner reads an export from r; progress, if not nil, is told the
// bytes read.
func NewScanner(r io.Reader, progress func(n int)) *Scanner {
	return &Scanner{r: r, progress: progress}
}

// NewScannerBytes reads an export held in memory: its lines are cut from b
// in place, not copied. b must not change while the scanner is in use.
func NewScannerBytes(b []byte, progress func(n int)) *Scanner {
	return &Scanner{whole: b, progress: progress}
}

// SkipDrawInputs makes the scanner decode events as events.DecodeForFold
// does, for a caller that does not read what a draw records to be re-run
// (or reads it only now and then, from Envelope().Data): a TablesDrawn's
// inputs are checked as JSON and left empty. Call it before Scan: once the
// scan has begun, it has no effect.
func (s *Scanner) SkipDrawInputs() { s.fold = true }

// DecodeInline makes Scan read and decode each line itself, on the
// caller's goroutine, instead of goroutines reading and decoding ahead:
// for a caller that already keeps every CPU busy with exports of its own
// (VerifySeason, one export on each), where handing lines between
// goroutines costs more than it brings. Call it before Scan.
func (s *Scanner) DecodeInline() { s.inline = true }

// start runs the pipeline: one reader cutting lines into batches, workers
// decoding them, batches delivered in order. Up to aheadBatches batches
// wait, decoded or being decoded: the caller stops for a while at a draw
// (replay.Verify decides it again) and the workers go on meanwhile.
func (s *Scanner) start() {
	workers, fold := max(1, runtime.GOMAXPROCS(0)), s.fold
	s.ahead, s.done = make(chan *batch, aheadBatches), make(chan struct{})
	work := make(chan *batch, aheadBatches)
	for range workers {
		go func() {
			for b := range work {
				for i := range b.items {
					decode(&b.items[i], fold)
				}
				close(b.decoded)
			}
		}()
	}
	go func() {
		defer close(s.ahead)
		defer close(work)
		readLine, buffered := s.lineReader()
		n, size := 0, 0
		b := &batch{decoded: make(chan struct{})}
		send := func(last bool) bool {
			if len(b.items) == 0 {
				return true
			}
			select {
			case work <- b:
			case <-s.done:
				return false
			}
			select {
			case s.ahead <- b:
			case <-s.done:
				return false
			}
			b, size = &batch{decoded: make(chan struct{})}, 0
			return !last
		}
		for {
			raw, err := readLine()
			if len(raw) == 0 && errors.Is(err, io.EOF) {
				if n == 0 {
					b.items = append(b.items, scanned{err: fmt.Errorf("%w: empty", ErrLog)})
				}
				send(true)
				return
			}
			n++
			if err != nil && !errors.Is(err, io.EOF) {
				b.items = append(b.items, scanned{err: err})
				send(true)
				return
			}
			if s.progress != nil {
				s.progress(len(raw))
			}
			if !bytes.HasSuffix(raw, []byte("\n")) {
				b.items = append(b.items, scanned{err: &LineError{n, fmt.Errorf("%w: the last line is not newline-terminated (truncated export?)", ErrLog)}})
				send(true)
				return
			}
			b.items = append(b.items, scanned{line: n, raw: raw[:len(raw)-1]})
			size += len(raw)
			// Hand a batch on when it is full, or when nothing more is
			// buffered: the next read may block on a slow source, and the
			// lines already read should not wait for it.
			if (len(b.items) >= batchLines || size >= batchBytes || buffered() == 0) && !send(false) {
				return
			}
		}
	}()
}

// decode fills in a line's envelope and event, or why it is no event of
// this log.
func decode(x *scanned, fold bool) {
	if x.err != nil {
		return
	}
	x.leaf = checkpoint.LeafHash(x.raw)
	decodeLine := events.DecodeLine
	if fold {
		decodeLine = events.DecodeLineForFold
	}
	env, ev, err := decodeLine(x.raw)
	switch {
	case env.Seq == 0: // the envelope did not decode
		x.err = &LineError{x.line, err}
	case env.Seq != uint64(x.line):
		x.err = &LineError{x.line, fmt.Errorf("%w: seq %d where %d was due (an event removed, added or moved)", ErrLog, env.Seq, x.line)}
	default:
		x.env = env
		x.ev, x.decErr = ev, err
	}
}

// Scan advances to the next event; false at the end or on an error (Err).
func (s *Scanner) Scan() bool {
	if s.inline {
		return s.scanInline()
	}
	if s.ahead == nil {
		s.start()
	}
	if s.err != nil {
		return false
	}
	for s.batch == nil || s.next == len(s.batch.items) {
		b, ok := <-s.ahead
		if !ok {
			return false
		}
		<-b.decoded
		s.batch, s.next = b, 0
	}
	x := s.batch.items[s.next]
	s.next++
	return s.take(x)
}

// scanInline is Scan reading and decoding the next line itself, as the
// pipeline's reader and workers do (start).
func (s *Scanner) scanInline() bool {
	if s.err != nil {
		return false
	}
	if s.readLine == nil {
		s.readLine, _ = s.lineReader()
	}
	n := s.line + 1
	raw, err := s.readLine()
	var x scanned
	switch {
	case len(raw) == 0 && errors.Is(err, io.EOF):
		if n > 1 {
			s.err = errClosed // the end: Err is nil
			return false
		}
		x.err = fmt.Errorf("%w: empty", ErrLog)
	case err != nil && !errors.Is(err, io.EOF):
		x.err = err
	default:
		if s.progress != nil {
			s.progress(len(raw))
		}
		if !bytes.HasSuffix(raw, []byte("\n")) {
			x.err = &LineError{n, fmt.Errorf("%w: the last line is not newline-terminated (truncated export?)", ErrLog)}
			break
		}
		x = scanned{line: n, raw: raw[:len(raw)-1]}
		decode(&x, s.fold)
	}
	return s.take(x)
}

// take makes x the current line, or ends the scan with why it is not.
func (s *Scanner) take(x scanned) bool {
	switch {
	case x.err != nil:
		// A line that does not decode ends the scan, but the reader may
		// still be reading ahead: stop it, or it blocks for ever on a
		// window nobody reads.
		s.err = x.err
		s.stop()
		return false
	case s.first == "":
		s.first = x.env.Tournament
	case x.env.Tournament != s.first:
		s.err = &LineError{x.line, fmt.Errorf("%w: event of tournament %s in the log of %s", ErrLog, x.env.Tournament, s.first)}
		s.stop()
		return false
	}
	s.cur, s.line = x, x.line
	return true
}

// Close stops reading ahead. Scan returns false afterwards. A scan that
// ended (Scan returned false) has already released its goroutines; Close is
// for stopping early.
func (s *Scanner) Close() {
	s.stop()
	if s.err == nil {
		s.err = errClosed
	}
}

// stop tells the reader to stop and waits until it has.
func (s *Scanner) stop() {
	if s.done == nil {
		return
	}
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	for range s.ahead { // until the reader has seen done and stopped
	}
}

var errClosed = errors.New("replay: scanner closed")

// Line is the current line, from 1; after the end, the number of lines.
func (s *Scanner) Line() int { return s.line }

// Tournament is the tournament of the log, known after the first Scan.
func (s *Scanner) Tournament() string { return s.first }

// Envelope is the current event's envelope.
func (s *Scanner) Envelope() events.Envelope { return s.cur.env }

// Event is the current event decoded, or why it does not decode.
func (s *Scanner) Event() (events.Event, error) { return s.cur.ev, s.cur.decErr }

// Bytes is the current line as stored, without its newline: the event's
// Merkle leaf.
func (s *Scanner) Bytes() []byte { return s.cur.raw }

// LeafHash is the RFC 6962 leaf hash of Bytes, hashed ahead by the
// goroutines that decode.
func (s *Scanner) LeafHash() []byte { return s.cur.leaf }

// Err is what stopped the scan, nil at a clean end.
func (s *Scanner) Err() error {
	if errors.Is(s.err, errClosed) {
		return nil
	}
	return s.err
}

// folder folds a scanned log event by event.
type folder struct {
	sc *Scanner
	st *projections.Tournament
}

// next folds the next event; false at the end or on an error.
func (f *folder) next() (bool, error) {
	if !f.sc.Scan() {
		return false, f.sc.Err()
	}
	env := f.sc.Envelope()
	if f.st == nil {
		f.st = projections.New(env.Tournament)
	}
	ev, err := f.sc.Event()
	if err == nil {
		err = f.st.Apply(env, ev, nil)
	}
	if err != nil {
		return false, &LineError{f.sc.Line(), err}
	}
	return true, nil
}

// to folds up to event seq (0: the end) and returns the state there. It is
// an error for the log to end before seq.
func (f *folder) to(seq uint64) (*projections.Tournament, error) {
	for f.st == nil || seq == 0 || f.st.Seq < seq {
		ok, err := f.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	if seq > 0 && f.st.Seq < seq {
		return nil, fmt.Errorf("the log ends at event %d, before %d", f.st.Seq, seq)
	}
	return f.st, nil
}

// Fold returns the tournament as it stood after event upTo (0: the end) of
// the export sc reads, and closes sc.
func Fold(sc *Scanner, upTo uint64) (*projections.Tournament, error) {
	defer sc.Close()
	f := &folder{sc: sc}
	return f.to(upTo)
}

// lineReader returns the function reading the next line (with its
// newline, as bufio.Reader.ReadBytes), and the one telling how many bytes
// are read but not yet returned.
func (s *Scanner) lineReader() (func() ([]byte, error), func() int) {
	if s.r == nil {
		rest := s.whole
		return func() ([]byte, error) {
				if len(rest) == 0 {
					return nil, io.EOF
				}
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					line := rest
					rest = nil
					return line, io.EOF
				}
				line := rest[: i+1 : i+1]
				rest = rest[i+1:]
				return line, nil
			}, func() int {
				return len(rest)
			}
	}
	br := bufio.NewReaderSize(s.r, 1<<20)
	return func() ([]byte, error) { return br.ReadBytes('\n') }, br.Buffered
}
