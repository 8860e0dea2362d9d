package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Log is a tournament's log as exported: one stored event per line.
type Log struct {
	Tournament string
	Envelopes  []events.Envelope
	Lines      [][]byte // exact stored bytes, without the newline
}

// LineError locates a problem in an export: line 1 is the first event.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrLog reports an export that is not one tournament's contiguous log.
var ErrLog = errors.New("replay: not a contiguous log")

// Read parses an export strictly: every line an envelope, one tournament,
// seqs 1, 2, 3, … without gaps. progress, if not nil, is told the bytes read.
func Read(r io.Reader, progress func(n int)) (*Log, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	l := &Log{}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if progress != nil {
			progress(len(line))
		}
		if !bytes.HasSuffix(line, []byte("\n")) {
			return nil, &LineError{n, fmt.Errorf("%w: the last line is not newline-terminated (truncated export?)", ErrLog)}
		}
		line = line[:len(line)-1]
		env, derr := events.DecodeEnvelope(line)
		if derr != nil {
			return nil, &LineError{n, derr}
		}
		switch {
		case n == 1:
			l.Tournament = env.Tournament
		case env.Tournament != l.Tournament:
			return nil, &LineError{n, fmt.Errorf("%w: event of tournament %s in the log of %s", ErrLog, env.Tournament, l.Tournament)}
		}
		if env.Seq != uint64(n) {
			return nil, &LineError{n, fmt.Errorf("%w: seq %d where %d was due (an event removed, added or moved)", ErrLog, env.Seq, n)}
		}
		l.Envelopes = append(l.Envelopes, env)
		l.Lines = append(l.Lines, line)
	}
	if len(l.Envelopes) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrLog)
	}
	return l, nil
}

// Fold returns the tournament as it stood after event upTo (0 = the end).
func (l *Log) Fold(upTo uint64) (*projections.Tournament, error) {
	st, err := projections.Fold(l.Tournament, l.Envelopes, upTo)
	if err != nil {
		return nil, l.locate(err)
	}
	return st, nil
}

// locate turns a fold error into a line error when it names an event.
func (l *Log) locate(err error) error {
	for i, env := range l.Envelopes {
		if bytes.Contains([]byte(err.Error()), []byte("event "+env.ID+" ")) {
			return &LineError{i + 1, err}
		}
	}
	return err
}
