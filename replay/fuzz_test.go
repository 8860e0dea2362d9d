package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// chunkReader returns at most n bytes per Read, like a slow network: the
// scanner then hands on a batch per line, and a long log keeps the reader
// goroutine ahead of the caller.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// scannerGoroutines counts the goroutines a Scanner started that are still
// running.
func scannerGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "replay.(*Scanner).start.func")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// FuzzScanner: any bytes scan to an end without a panic; a scan that ended
// (Scan returned false) has released its goroutines before Close; the
// scan ends cleanly (Err nil) only when every newline-terminated line was
// returned, in order, byte for byte, as events 1, 2, 3 … of one tournament.
func FuzzScanner(f *testing.F) {
	log := export(&testing.T{}, "bo", 3)
	lines := bytes.SplitAfter(log, []byte("\n"))
	f.Add(log, uint16(0))
	f.Add(log, uint16(7))
	f.Add(bytes.Join([][]byte{lines[0], lines[2], lines[1]}, nil), uint16(0))
	f.Add(bytes.Join([][]byte{lines[0], []byte("{\n")}, nil), uint16(1))
	// A bad line with enough lines after it to fill the read-ahead window.
	f.Add(bytes.Join(append([][]byte{lines[0], []byte("x\n")}, bytes.SplitAfter(bytes.Repeat([]byte("\n"), 200), []byte("\n"))...), nil), uint16(1))
	f.Add(log[:len(log)-1], uint16(0))
	f.Add([]byte("\n"), uint16(0))
	f.Add([]byte{}, uint16(0))
	// One processor, so one decoding worker: the goroutines then
	// interleave the same way each time an input runs, and the fuzzer's
	// coverage of an input does not change from run to run.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		var r io.Reader = bytes.NewReader(data)
		if chunk > 0 {
			r = chunkReader{r, int(chunk)}
		}
		sc := NewScanner(r, nil)
		var got [][]byte
		done := make(chan struct{})
		go func() {
			defer close(done)
			for sc.Scan() {
				if sc.Line() != len(got)+1 || sc.Envelope().Seq != uint64(sc.Line()) {
					t.Errorf("line %d: seq %d after %d lines", sc.Line(), sc.Envelope().Seq, len(got))
				}
				got = append(got, append(bytes.Clone(sc.Bytes()), '\n'))
			}
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("the scan of %d bytes did not end", len(data))
		}
		deadline := time.Now().Add(5 * time.Second)
		for scannerGoroutines() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("Scan returned false (%v) with %d scanner goroutines still running", sc.Err(), scannerGoroutines())
			}
			runtime.Gosched()
		}
		err := sc.Err()
		sc.Close()
		if sc.Scan() {
			t.Fatal("Scan returned true after the end")
		}
		if !errors.Is(sc.Err(), err) {
			t.Fatalf("Close changed Err from %v to %v", err, sc.Err())
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) && !errors.Is(err, ErrLog) {
				t.Fatalf("unclassified error %T: %v", err, err)
			}
			return
		}
		if want := bytes.SplitAfter(data, []byte("\n")); len(data) == 0 || data[len(data)-1] != '\n' ||
			!bytes.Equal(bytes.Join(got, nil), data) || len(got) != len(want)-1 {
			t.Fatalf("a clean end after %d of the lines of %q", len(got), data)
		}
	})
}

// FuzzScanInline: a scan decoding in Scan (DecodeInline), from a reader or
// from memory, returns the lines a scan reading ahead returns, and ends
// the same way.
func FuzzScanInline(f *testing.F) {
	log := export(&testing.T{}, "bo", 3)
	lines := bytes.SplitAfter(log, []byte("\n"))
	f.Add(log)
	f.Add(bytes.Join([][]byte{lines[0], lines[2], lines[1]}, nil))
	f.Add(bytes.Join([][]byte{lines[0], []byte("{\n")}, nil))
	f.Add(log[:len(log)-1])
	f.Add([]byte("\n"))
	f.Add([]byte{})
	scan := func(sc *Scanner) ([][]byte, error) {
		var got [][]byte
		for sc.Scan() {
			got = append(got, append(bytes.Clone(sc.Bytes()), '\n'))
		}
		return got, sc.Err()
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := scan(NewScanner(bytes.NewReader(data), nil))
		for _, sc := range []*Scanner{NewScanner(bytes.NewReader(data), nil), NewScannerBytes(data, nil)} {
			sc.DecodeInline()
			got, err := scan(sc)
			if !slices.EqualFunc(got, want, bytes.Equal) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("decoded inline: %d lines, %v; read ahead: %d lines, %v", len(got), err, len(want), wantErr)
			}
		}
	})
}
