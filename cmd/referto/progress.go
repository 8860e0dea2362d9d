package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports the advance of a long job: a bar on a terminal, nothing
// anywhere else (a pipe, a file, CI).
type progress interface {
	Add(n int)
	Done()
}

type quiet struct{}

func (quiet) Add(int) {}
func (quiet) Done()   {}

type bar struct{ b *progressbar.ProgressBar }

func (p bar) Add(n int) { _ = p.b.Add(n) }
func (p bar) Done()     { _ = p.b.Finish() }

// newProgress returns a bar of max units on w if w is a terminal.
func newProgress(w io.Writer, max int64, desc string, bytes bool) progress {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return quiet{}
	}
	return newBar(w, max, desc, bytes)
}

// newBar draws a bar of max units (bytes, or events) on w.
func newBar(w io.Writer, max int64, desc string, bytes bool) bar {
	opts := []progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish(), progressbar.OptionSetPredictTime(true)}
	if bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("events"))
	}
	return bar{progressbar.NewOptions64(max, opts...)}
}

// progressWriter counts the bytes written through it as progress.
type progressWriter struct{ p progress }

func (w progressWriter) Write(b []byte) (int, error) { w.p.Add(len(b)); return len(b), nil }
