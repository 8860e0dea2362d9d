package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events"
	"github.com/referto/referto/replay"
)

func export(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr)
	data := fs.String("data", "", "data directory of a stopped referto (or use --url)")
	url := fs.String("url", "", "base URL of a running referto, e.g. http://127.0.0.1:8080")
	token := fs.String("token", getenv("REFERTO_TOKEN"), "with --url: an arbiter, appeals or auditor token [REFERTO_TOKEN]")
	t := fs.String("tournament", "", "tournament id (required, unless --registry)")
	reg := fs.Bool("registry", false, "with --url of a national hub: export its season registry instead of a tournament (default --out registry.ndjson)")
	out := fs.String("out", "", "where to write the log (default <tournament>.ndjson in the working directory)")
	cpOut := fs.String("checkpoint", "", "where to write the signed checkpoint (default: --out's name followed by .checkpoint)")
	wb := fs.Bool("workbook", false, "write the tournament as a club workbook (.xlsx) for the national ranking instead (default --out: the name the national tool accepts)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *wb {
		if *reg || *t == "" || (*data == "") == (*url == "") {
			return usagef(stderr, "export --workbook needs --tournament and exactly one of --data and --url")
		}
		return exportWorkbook(ctx, *data, *url, *token, *t, *out, stdout, stderr)
	}
	if *reg && (*t != "" || *url == "" || *data != "") {
		return usagef(stderr, "export --registry needs --url (a national hub's) and no --tournament or --data")
	}
	if !*reg && (*t == "" || (*data == "") == (*url == "")) {
		return usagef(stderr, "export needs --tournament and exactly one of --data and --url")
	}
	if *data != "" {
		if si, ok := (node.Layout{Dir: *data}).Announced(); ok && answers(ctx, si.URL) {
			return fmt.Errorf("export: referto serve is running on %s (pid %d): use --url %s --token TOKEN (an arbiter's, the appeals committee's or an auditor's)", *data, si.PID, si.URL)
		}
	}
	name := *t
	if *reg {
		name = events.RegistryID
	}
	if *out == "" {
		*out = name + ".ndjson"
	}
	if *cpOut == "" {
		*cpOut = replay.CheckpointFile(*out)
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
	err := replay.WriteFiles(*out, *cpOut, func(w io.Writer) (string, error) {
		var err error
		switch {
		case *reg:
			n, note, err = exportURL(ctx, *url, "", "", w, stderr)
		case *url != "":
			n, note, err = exportURL(ctx, *url, *token, *t, w, stderr)
		default:
			n, note, err = replay.ExportDir(ctx, dataDir{node.Layout{Dir: *data}}, *t, w, replay.DirExportOptions{Warnings: stderr,
				Progress: func(n uint64) replay.Progress { return newProgress(stderr, int64(n), "export", false) }})
		}
		return note, err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d events of %s to %s, signed checkpoint in %s (%s)\n", n, name, *out, *cpOut, time.Since(start).Round(time.Millisecond))
	return nil
}

// exportURL downloads a running server's export of tournament t (of its
// season registry when t is "") and keeps it only if every line arrived
// (replay.Receive): a transfer cut short is an error, never a short file.
func exportURL(ctx context.Context, base, token, t string, w io.Writer, stderr io.Writer) (uint64, string, error) {
	c := &client.Client{Base: base, Token: token}
	var ex *client.Export
	var err error
	if t == "" {
		ex, err = c.ExportRegistry(ctx)
	} else {
		ex, err = c.Export(ctx, t)
	}
	if err != nil {
		return 0, "", fmt.Errorf("export: %w", err)
	}
	defer ex.Body.Close()
	prog := newProgress(stderr, ex.Size, "export", true)
	n, err := replay.Receive(io.TeeReader(ex.Body, progressWriter{prog}), w, ex.Checkpoint, ex.Events)
	prog.Done()
	return n, string(ex.Checkpoint), err
}

// dataDir is a data directory as replay.ExportDir reads it.
type dataDir struct{ node.Layout }

func (d dataDir) String() string { return d.Dir }

func (d dataDir) OpenLog(ctx context.Context) (replay.ExportLog, func(), error) {
	return node.OpenLog(ctx, d.Layout, node.LogOptions{})
}

// answers reports whether a referto answers at base (its /healthz), as one
// that serve.json names does while it runs: a record left by a server that
// stopped without removing it names nobody.
func answers(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return (&client.Client{Base: base}).Healthy(ctx) == nil
}
