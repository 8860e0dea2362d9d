package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
	"github.com/referto/referto/replay"
)

func export(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory of a stopped referto (or use --url)")
	url := fs.String("url", "", "base URL of a running referto, e.g. http://127.0.0.1:8080")
	token := fs.String("token", getenv("REFERTO_TOKEN"), "with --url: an arbiter, appeals or auditor token [REFERTO_TOKEN]")
	t := fs.String("tournament", "", "tournament id (required)")
	out := fs.String("out", "", "where to write the log (default <tournament>.ndjson in the working directory)")
	cpOut := fs.String("checkpoint", "", "where to write the signed checkpoint (default: --out's name followed by .checkpoint)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *t == "" || (*data == "") == (*url == "") {
		fmt.Fprintln(stderr, "export needs --tournament and exactly one of --data and --url")
		return errUsage
	}
	if *out == "" {
		*out = *t + ".ndjson"
	}
	if *cpOut == "" {
		*cpOut = *out + ".checkpoint"
	}
	// Absolute, so that what export says names the files wherever it ran.
	for _, p := range []struct {
		flag string
		path *string
	}{{"--out", out}, {"--checkpoint", cpOut}} {
		abs, err := filepath.Abs(*p.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", p.flag, *p.path, err)
		}
		if fi, err := os.Stat(filepath.Dir(abs)); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s %s: there is no directory %s to write it in", p.flag, *p.path, filepath.Dir(abs))
		}
		*p.path = abs
	}
	start := time.Now()
	var n uint64
	var note string
	// Write beside the destinations and rename at the end, so a failed
	// export never leaves a log or a checkpoint that looks complete.
	err := writeFiles(*out, *cpOut, func(w io.Writer) (string, error) {
		var err error
		if *url != "" {
			n, note, err = exportURL(ctx, *url, *token, *t, w, stderr)
		} else {
			n, note, err = exportData(ctx, *data, *t, w, stderr)
		}
		return note, err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d events of %s to %s, signed checkpoint in %s (%s)\n", n, *t, *out, *cpOut, time.Since(start).Round(time.Millisecond))
	return nil
}

// writeFiles writes the log fill writes to out and the checkpoint it
// returns to cpOut (mode 0644), each synced beside its destination and
// renamed into place only once both are whole.
func writeFiles(out, cpOut string, fill func(io.Writer) (string, error)) error {
	f, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".partial-*")
	if err != nil {
		return err
	}
	defer func() { f.Close(); os.Remove(f.Name()) }()
	bw := bufio.NewWriterSize(f, 1<<20)
	note, err := fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return err
	}
	cp, err := os.CreateTemp(filepath.Dir(cpOut), filepath.Base(cpOut)+".partial-*")
	if err != nil {
		return err
	}
	defer func() { cp.Close(); os.Remove(cp.Name()) }()
	if _, err := cp.WriteString(note); err != nil {
		return err
	}
	if err := cp.Sync(); err != nil {
		return err
	}
	if err := os.Chmod(cp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return err
	}
	return os.Rename(cp.Name(), cpOut)
}

// exportURL downloads a running server's export and keeps it only if every
// line arrived (replay.Receive): a transfer cut short is an error, never a
// short file.
func exportURL(ctx context.Context, base, token, t string, w io.Writer, stderr io.Writer) (uint64, string, error) {
	ex, err := (&client.Client{Base: base, Token: token}).Export(ctx, t)
	if err != nil {
		return 0, "", fmt.Errorf("export: %w", err)
	}
	defer ex.Body.Close()
	prog := newProgress(stderr, ex.Size, "export", true)
	n, err := replay.Receive(io.TeeReader(ex.Body, progressWriter{prog}), w, ex.Checkpoint, ex.Events)
	prog.Done()
	return n, string(ex.Checkpoint), err
}

// exportData reads a stopped server's data directory and signs the
// checkpoint with that server's key, after the log read back has reproduced
// the Merkle head the server's projections recorded.
func exportData(ctx context.Context, dir, t string, w io.Writer, stderr io.Writer) (uint64, string, error) {
	keys, err := checkpoint.LoadKeys(ledger.Layout{Dir: dir}.Keys())
	if err != nil {
		return 0, "", fmt.Errorf("%w: export --data signs with the server's own key and will not make a new one", err)
	}
	a, err := storedAnchor(dir, t, stderr)
	if err != nil {
		return 0, "", err
	}
	lg, closeLog, err := openData(ctx, dir)
	if err != nil {
		return 0, "", err
	}
	defer closeLog()
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		return 0, "", err
	}
	prog := newProgress(stderr, int64(last), "export", false)
	cp, err := replay.Export(ctx, lg, t, w, replay.ExportOptions{Anchor: a, Progress: prog.Add})
	prog.Done()
	if err != nil {
		return 0, "", err
	}
	note, err := checkpoint.Sign(cp, keys.Signer)
	return cp.Size, note, err
}

// openData opens the log of a data directory no server runs on.
func openData(ctx context.Context, dir string) (*jetstream.Log, func(), error) {
	return ledger.OpenLog(ctx, ledger.Layout{Dir: dir}, ledger.LogOptions{})
}

// storedAnchor reads the tree head from the directory's projections. It
// returns nil, with a warning, when there are none to compare against.
func storedAnchor(dir, t string, stderr io.Writer) (*replay.Anchor, error) {
	pdir := ledger.Layout{Dir: dir}.Projections()
	if _, err := os.Stat(pdir); err != nil {
		fmt.Fprintf(stderr, "warning: %s has no projections; the exported log is signed without a cross-check\n", dir)
		return nil, nil
	}
	st, err := pebble.Open(pdir, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ref, ok, err := st.LastCommit(t)
	if err != nil || !ok {
		if err == nil {
			fmt.Fprintf(stderr, "warning: the projections in %s have not seen %s; the exported log is signed without a cross-check\n", dir, t)
		}
		return nil, err
	}
	root, err := checkpoint.RootAt(ref.Last, st.NodeGetter(t))
	if err != nil {
		return nil, err
	}
	return &replay.Anchor{Size: ref.Last, Root: root}, nil
}

type progressWriter struct{ p progress }

func (w progressWriter) Write(b []byte) (int, error) { w.p.Add(len(b)); return len(b), nil }
