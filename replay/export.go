package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// ExportLog is what Export reads of a log (events/eventlog.Log): a
// tournament's commits in order.
type ExportLog interface {
	LastSubjectSeq(ctx context.Context, tournament string) (uint64, error)
	Scan(ctx context.Context, from, until uint64, tournament string, fn func(events.StoredCommit) error) error
}

// Anchor is the Merkle head a server's projections recorded for a
// tournament: the first Size events and their root. A log read back must
// pass through it before anything is signed over it.
type Anchor struct {
	Size uint64
	Root []byte
}

// ExportOptions are Export's extras.
type ExportOptions struct {
	// Anchor, when set, is the head the log must pass through: a log that
	// lost, changed or reordered events the server had already applied is
	// refused.
	Anchor *Anchor
	// Progress, when set, is told of every event written.
	Progress func(events int)
}

// Export writes tournament t's stored lines to w, byte for byte and in
// order, and returns the checkpoint (unsigned) of what it wrote.
func Export(ctx context.Context, lg ExportLog, t string, w io.Writer, o ExportOptions) (checkpoint.Checkpoint, error) {
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	if last == 0 {
		return checkpoint.Checkpoint{}, fmt.Errorf("no tournament %s in this log", t)
	}
	tree := checkpoint.NewTree()
	a := o.Anchor
	var altered error // the anchor check, apart from a commit that does not split
	err = lg.Scan(ctx, 1, last, t, func(m events.StoredCommit) error {
		err := events.CommitLines(m.Data, func(line []byte) error {
			if err := tree.Append(line, nil); err != nil {
				return err
			}
			if a != nil && tree.Size() == a.Size && !bytes.Equal(tree.Root(), a.Root) {
				altered = fmt.Errorf("the log's first %d events do not have the Merkle root the server recorded for them: the stream was altered; nothing signed", a.Size)
				return altered
			}
			if o.Progress != nil {
				o.Progress(1)
			}
			return nil
		})
		if err != nil && err != altered {
			return fmt.Errorf("stream sequence %d: %w", m.StreamSeq, err)
		}
		if err != nil {
			return err
		}
		_, err = w.Write(m.Data)
		return err
	})
	if err == nil && a != nil && tree.Size() < a.Size {
		err = fmt.Errorf("the log holds %d events of %s but the server had applied %d: events are missing; nothing signed", tree.Size(), t, a.Size)
	}
	return checkpoint.Checkpoint{Origin: checkpoint.Origin(t), Size: tree.Size(), Root: tree.Root()}, err
}

// LogDir is a stopped server's data directory as ScanDir reads it.
type LogDir interface {
	// OpenLog opens its log; closeLog ends it.
	OpenLog(ctx context.Context) (lg ExportLog, closeLog func(), err error)
}

// DataDir is a stopped server's data directory as ExportDir reads it
// (cmd/referto adapts a node.Layout).
type DataDir interface {
	LogDir
	// String names the directory in warnings.
	String() string
	// Keys is the directory of the server's checkpoint keys.
	Keys() string
	// Projections is the directory of its projections.
	Projections() string
	// RecordedHead is the Merkle head its projections recorded for
	// tournament t; ok is false when they have not seen t.
	RecordedHead(t string) (size uint64, root []byte, ok bool, err error)
}

// Progress reports the advance of a long job (a bar at a terminal).
type Progress interface {
	Add(n int)
	Done()
}

// DirExportOptions are ExportDir's extras.
type DirExportOptions struct {
	// Warnings receives a line for each check the export cannot make;
	// nil discards them.
	Warnings io.Writer
	// Progress, when set, makes the progress report of an export of up
	// to n events.
	Progress func(n uint64) Progress
}

// ExportDir exports tournament t from a stopped server's data directory
// as the server would: the checkpoint is signed with the server's own key,
// never a new one, and only after the log read back has passed through the
// Merkle head the server's projections recorded (Anchor; a directory whose
// projections have not seen t is exported with a warning, unchecked). It
// returns the number of events written to w and the signed checkpoint.
func ExportDir(ctx context.Context, d DataDir, t string, w io.Writer, o DirExportOptions) (uint64, string, error) {
	keys, err := checkpoint.LoadKeys(d.Keys())
	if err != nil {
		return 0, "", fmt.Errorf("%w: export --data signs with the server's own key and will not make a new one", err)
	}
	if o.Warnings == nil {
		o.Warnings = io.Discard
	}
	a, err := recordedAnchor(d, t, o.Warnings)
	if err != nil {
		return 0, "", err
	}
	lg, closeLog, err := d.OpenLog(ctx)
	if err != nil {
		return 0, "", err
	}
	defer closeLog()
	eo := ExportOptions{Anchor: a}
	if o.Progress != nil {
		last, err := lg.LastSubjectSeq(ctx, t)
		if err != nil {
			return 0, "", err
		}
		prog := o.Progress(last)
		defer prog.Done()
		eo.Progress = prog.Add
	}
	cp, err := Export(ctx, lg, t, w, eo)
	if err != nil {
		return 0, "", err
	}
	note, err := checkpoint.Sign(cp, keys.Signer)
	return cp.Size, note, err
}

// recordedAnchor is the tree head the directory's projections recorded
// for t, or nil, with a warning, when there is none to compare against.
func recordedAnchor(d DataDir, t string, warnings io.Writer) (*Anchor, error) {
	if _, err := os.Stat(d.Projections()); err != nil {
		fmt.Fprintf(warnings, "warning: %s has no projections; the exported log is signed without a cross-check\n", d)
		return nil, nil
	}
	switch size, root, ok, err := d.RecordedHead(t); {
	case err != nil:
		return nil, err
	case ok:
		return &Anchor{Size: size, Root: root}, nil
	}
	fmt.Fprintf(warnings, "warning: the projections in %s have not seen %s; the exported log is signed without a cross-check\n", d, t)
	return nil, nil
}

// Receive copies an export as a server sent it from r to w and checks that
// every line arrived: exactly the announced number of events, whose Merkle
// root is the one of the server's signed checkpoint (not verified here:
// verify does that with a trusted key). A transfer cut short, by the
// network or by the server aborting it, is an error, never a short log.
// It returns the number of events.
func Receive(r io.Reader, w io.Writer, signed []byte, announced string) (uint64, error) {
	cp, _, err := checkpoint.OpenUnverified(signed)
	if err != nil {
		return 0, fmt.Errorf("export: the server's checkpoint: %w", err)
	}
	tree := checkpoint.NewTree()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it whole, copying
			// what was read before the buffer is read into again.
			head := append([]byte(nil), line...)
			rest, err2 := br.ReadBytes('\n')
			line, err = append(head, rest...), err2
		}
		if len(line) > 0 && err == nil {
			if aerr := tree.Append(line[:len(line)-1], nil); aerr != nil {
				return 0, aerr
			}
			if _, werr := w.Write(line); werr != nil {
				return 0, werr
			}
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				return 0, fmt.Errorf("export: the transfer ended inside line %d", tree.Size()+1)
			}
			break
		}
		if err != nil {
			return 0, fmt.Errorf("export: transfer failed after %d events: %w", tree.Size(), err)
		}
	}
	if announced != strconv.FormatUint(tree.Size(), 10) {
		return 0, fmt.Errorf("export: received %d events, the server announced %s", tree.Size(), announced)
	}
	if cp.Size != tree.Size() || !bytes.Equal(cp.Root, tree.Root()) {
		return 0, fmt.Errorf("export: the %d events received do not have the root of the server's checkpoint (size %d)", tree.Size(), cp.Size)
	}
	return tree.Size(), nil
}

// ScanTournament reads tournament t from a log as an export (Export into
// a Scanner), for what reads a data directory rather than a file. stop
// ends the reading, whether or not the scan reached the end.
func ScanTournament(ctx context.Context, lg ExportLog, t string, progress func(events int)) (sc *Scanner, stop func()) {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := Export(ctx, lg, t, pw, ExportOptions{Progress: progress})
		pw.CloseWithError(err)
	}()
	return NewScanner(pr, nil), func() {
		pr.Close() // a reader that stopped early ends the export
		<-done
	}
}

// ScanDir reads tournament t from a stopped server's data directory as an
// export (ScanTournament), with progress, when set, made for up to n
// events. stop ends the reading and closes the log.
func ScanDir(ctx context.Context, d LogDir, t string, progress func(n uint64) Progress) (sc *Scanner, stop func(), err error) {
	lg, closeLog, err := d.OpenLog(ctx)
	if err != nil {
		return nil, nil, err
	}
	var prog Progress = quiet{}
	if progress != nil {
		last, err := lg.LastSubjectSeq(ctx, t)
		if err != nil {
			closeLog()
			return nil, nil, err
		}
		prog = progress(last)
	}
	sc, stopScan := ScanTournament(ctx, lg, t, prog.Add)
	return sc, func() { stopScan(); prog.Done(); closeLog() }, nil
}

// quiet is no progress report.
type quiet struct{}

func (quiet) Add(int) {}
func (quiet) Done()   {}
