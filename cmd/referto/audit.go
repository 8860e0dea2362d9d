package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/replay"
)

// openData starts an embedded NATS server on a data directory (no
// listener) and opens its log. The server that owns the directory must not
// be running: use --url to read from it instead.
func openData(ctx context.Context, dir string) (*jetstream.Log, func(), error) {
	if _, err := os.Stat(filepath.Join(dir, "nats")); err != nil {
		return nil, nil, fmt.Errorf("%s is not a referto data directory: %w", dir, err)
	}
	ns, err := jetstream.StartServer(jetstream.ServerOptions{StoreDir: filepath.Join(dir, "nats")})
	if err != nil {
		return nil, nil, fmt.Errorf("%w (is referto serve running on %s? read from it with --url)", err, dir)
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		ns.Shutdown()
		return nil, nil, err
	}
	closeAll := func() { nc.Close(); ns.Shutdown(); ns.WaitForShutdown() }
	lg, err := jetstream.Open(ctx, nc, jetstream.Options{})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return lg, closeAll, nil
}

// streamTournament writes a tournament's stored lines to w, in order, and
// returns how many events it wrote and the Merkle tree over them.
func streamTournament(ctx context.Context, lg *jetstream.Log, t string, w io.Writer, prog progress) (uint64, *checkpoint.Tree, error) {
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		return 0, nil, err
	}
	if last == 0 {
		return 0, nil, fmt.Errorf("no tournament %s in this log", t)
	}
	tree := checkpoint.NewTree()
	err = lg.Scan(ctx, 1, last, t, func(m jetstream.Msg) error {
		for rest := m.Data; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				return fmt.Errorf("stream sequence %d: a line without newline", m.StreamSeq)
			}
			if err := tree.Append(rest[:i], nil); err != nil {
				return err
			}
			rest = rest[i+1:]
			prog.Add(1)
		}
		_, err := w.Write(m.Data)
		return err
	})
	return tree.Size(), tree, err
}

func export(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory of a stopped referto (or use --url)")
	url := fs.String("url", "", "base URL of a running referto, e.g. http://127.0.0.1:8080")
	token := fs.String("token", getenv("REFERTO_TOKEN"), "with --url: an arbiter, appeals or auditor token [REFERTO_TOKEN]")
	t := fs.String("tournament", "", "tournament id (required)")
	out := fs.String("out", "", "where to write the log (default <tournament>.ndjson)")
	cpOut := fs.String("checkpoint", "", "where to write the signed checkpoint (default: beside --out, ending .checkpoint)")
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
		*cpOut = strings.TrimSuffix(*out, ".ndjson") + ".checkpoint"
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	start := time.Now()
	var n uint64
	var note string
	if *url != "" {
		req, _ := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(*url, "/")+"/v1/tournaments/"+*t+"/export", nil)
		req.Header.Set("Authorization", "Bearer "+*token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != 200 {
			b, _ := io.ReadAll(res.Body)
			return fmt.Errorf("export: %s: %s", res.Status, b)
		}
		nb, _ := base64.StdEncoding.DecodeString(res.Header.Get("Referto-Checkpoint"))
		note = string(nb)
		n, _ = strconv.ParseUint(res.Header.Get("Referto-Events"), 10, 64)
		prog := newProgress(stderr, res.ContentLength, "export", true)
		if _, err := io.Copy(bw, io.TeeReader(res.Body, progressWriter{prog})); err != nil {
			return err
		}
		prog.Done()
	} else {
		lg, closeAll, err := openData(ctx, *data)
		if err != nil {
			return err
		}
		defer closeAll()
		last, _ := lg.LastSubjectSeq(ctx, *t)
		prog := newProgress(stderr, int64(last), "export", false)
		var tree *checkpoint.Tree
		if n, tree, err = streamTournament(ctx, lg, *t, bw, prog); err != nil {
			return err
		}
		prog.Done()
		keys, err := checkpoint.LoadOrCreateKeys(filepath.Join(*data, "keys"), "referto", nil)
		if err != nil {
			return err
		}
		if note, err = checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(*t), Size: n, Root: tree.Root()}, keys.Signer); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := os.WriteFile(*cpOut, []byte(note), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d events of %s to %s, signed checkpoint in %s (%s)\n", n, *t, *out, *cpOut, time.Since(start).Round(time.Millisecond))
	return nil
}

type progressWriter struct{ p progress }

func (w progressWriter) Write(b []byte) (int, error) { w.p.Add(len(b)); return len(b), nil }

func flagErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// openLog opens an export for one pass, with a progress bar by bytes.
func openLog(path string, stderr io.Writer) (*replay.Scanner, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	prog := newProgress(stderr, fi.Size(), "read", true)
	return replay.NewScanner(f, prog.Add), func() { prog.Done(); f.Close() }, nil
}

// openTournament streams a tournament's log from a data directory as an
// export, with a progress bar by events.
func openTournament(ctx context.Context, dir, t string, stderr io.Writer) (*replay.Scanner, func(), error) {
	lg, closeAll, err := openData(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	prog := newProgress(stderr, int64(last), "read", false)
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, err := streamTournament(ctx, lg, t, pw, prog)
		pw.CloseWithError(err)
	}()
	return replay.NewScanner(pr, nil), func() {
		pr.Close() // a reader that stopped early ends the stream
		<-done
		prog.Done()
		closeAll()
	}, nil
}

// errVerify is a failed verification: the report has been printed.
var errVerify = errors.New("verification failed")

func verify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logPath := fs.String("log", "", "the exported log (NDJSON), required")
	cpPath := fs.String("checkpoint", "", "the signed checkpoint given with it (default: LOG's name with .checkpoint for .ndjson, if it exists)")
	key := fs.String("key", "", "the trusted verifier key, or a file holding it (as served at GET /v1/keys)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *logPath == "" {
		fmt.Fprintln(stderr, "verify needs --log")
		return errUsage
	}
	start := time.Now()
	var o replay.VerifyOptions
	if beside := strings.TrimSuffix(*logPath, ".ndjson") + ".checkpoint"; *cpPath == "" && beside != *logPath {
		if _, err := os.Stat(beside); err == nil {
			*cpPath = beside
			fmt.Fprintf(stdout, "checkpoint: %s\n", beside)
		}
	}
	if *cpPath != "" {
		b, err := os.ReadFile(*cpPath)
		if err != nil {
			return err
		}
		o.Checkpoint = b
	}
	if *key != "" {
		k := *key
		if b, err := os.ReadFile(k); err == nil {
			k = string(b)
		}
		v, err := checkpoint.NewVerifier(k)
		if err != nil {
			return err
		}
		o.Verifier = v
	}
	sc, closeLog, err := openLog(*logPath, stderr)
	if err != nil {
		return err
	}
	rep := replay.Verify(sc, o)
	closeLog()
	for _, c := range rep.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		if c.Line > 0 {
			fmt.Fprintf(stdout, "%s line %d: %s\n", mark, c.Line, c.What)
		} else {
			fmt.Fprintf(stdout, "%s %s\n", mark, c.What)
		}
	}
	if first, bad := rep.First(); bad {
		where := "the log"
		switch {
		case first.Upto > 0:
			where = fmt.Sprintf("lines %d..%d", first.Line, first.Upto)
		case first.Line > 0:
			where = fmt.Sprintf("line %d", first.Line)
		}
		fmt.Fprintf(stdout, "verdict: FAILED at %s of %s: %s\n", where, *logPath, first.What)
		return errVerify
	}
	unsigned := ""
	if rep.Unsigned {
		unsigned = "; signatures NOT checked: give the server's key with --key"
	}
	fmt.Fprintf(stdout, "verdict: OK (%d events, %s%s)\n", sc.Line(), time.Since(start).Round(time.Millisecond), unsigned)
	return nil
}

func replayCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory of a stopped referto")
	logPath := fs.String("log", "", "an exported log (NDJSON)")
	t := fs.String("tournament", "", "tournament id (required with --data)")
	at := fs.Uint64("at", 0, "print the tournament as it stood after this event (default: the end)")
	diff := fs.String("diff", "", "A..B: what changed between events A and B")
	whatIf := fs.String("what-if", "", "a JSON file of corrections (RecordResult, RevokeSanction, ImposeSanction payloads) to apply in memory")
	top := fs.Int("top", 40, "rows of standings and classification to print")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if (*data == "") == (*logPath == "") || *data != "" && *t == "" {
		fmt.Fprintln(stderr, "replay needs exactly one of --data (with --tournament) and --log")
		return errUsage
	}
	// Understand the request before reading the log.
	var from, to uint64
	if *diff != "" {
		a, b, ok := strings.Cut(*diff, "..")
		var err1, err2 error
		from, err1 = strconv.ParseUint(a, 10, 64)
		to, err2 = strconv.ParseUint(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || from >= to {
			return fmt.Errorf("--diff %q: want A..B, two events with A < B", *diff)
		}
	}
	var corr []json.RawMessage
	if *whatIf != "" {
		b, err := os.ReadFile(*whatIf)
		if err != nil {
			return err
		}
		if corr, err = parseCorrections(b); err != nil {
			return fmt.Errorf("%s: %w", *whatIf, err)
		}
	}

	var sc *replay.Scanner
	var closeLog func()
	var err error
	if *logPath != "" {
		sc, closeLog, err = openLog(*logPath, stderr)
	} else {
		sc, closeLog, err = openTournament(ctx, *data, *t, stderr)
	}
	if err != nil {
		return err
	}
	defer closeLog()
	var show func(io.Writer)
	switch {
	case *diff != "":
		d, err := replay.Diff(sc, from, to)
		if err != nil {
			return err
		}
		show = d.Print
	case *whatIf != "":
		res, err := replay.WhatIf(sc, *at, corr)
		if err != nil {
			return err
		}
		show = res.Print
	default:
		st, err := replay.Fold(sc, *at)
		if err != nil {
			return err
		}
		show = func(w io.Writer) { replay.PrintState(w, st, *top) }
	}
	if *t != "" && sc.Tournament() != *t {
		return fmt.Errorf("%s holds tournament %s, not %s", *logPath, sc.Tournament(), *t)
	}
	w := bufio.NewWriter(stdout)
	show(w)
	return w.Flush()
}

// parseCorrections reads a JSON array of payloads, an object with
// "corrections" (a RuleContestation body), or one payload per line.
func parseCorrections(b []byte) ([]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	var arr []json.RawMessage
	if err := json.Unmarshal(b, &arr); err == nil {
		return arr, nil
	}
	var obj struct {
		Corrections []json.RawMessage `json:"corrections"`
	}
	if err := json.Unmarshal(b, &obj); err == nil && obj.Corrections != nil {
		return obj.Corrections, nil
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if !json.Valid(line) {
				return nil, fmt.Errorf("not a JSON array, a ruling's corrections or one payload per line")
			}
			arr = append(arr, json.RawMessage(line))
		}
	}
	return arr, nil
}
