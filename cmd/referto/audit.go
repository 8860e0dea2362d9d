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
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections/pebble"
	"github.com/referto/referto/replay"
)

// openData starts an embedded NATS server on a data directory (no
// listener) and opens its log. The server that owns the directory must not
// be running: use --url to read from it instead.
func openData(ctx context.Context, dir string) (*jetstream.Log, func(), error) {
	layout := ledger.Layout{Dir: dir}
	if _, err := os.Stat(layout.NATS()); err != nil {
		return nil, nil, fmt.Errorf("%s is not a referto data directory: %w", dir, err)
	}
	ns, err := jetstream.StartServer(jetstream.ServerOptions{StoreDir: layout.NATS()})
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

// anchor is the Merkle head the server's projections recorded for a
// tournament: the log read back must reproduce it before anything is signed.
type anchor struct {
	size uint64
	root []byte
}

// storedAnchor reads the tree head from DATA/projections. It returns nil,
// with a warning, when the directory has no projections to compare against.
func storedAnchor(dir, t string, stderr io.Writer) (*anchor, error) {
	pdir := ledger.Layout{Dir: dir}.Projections()
	if _, err := os.Stat(pdir); err != nil {
		fmt.Fprintf(stderr, "warning: %s has no projections; the exported log is signed without a cross-check\n", dir)
		return nil, nil
	}
	st, err := pebble.Open(pdir, slog.New(slog.NewTextHandler(io.Discard, nil)))
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
	return &anchor{size: ref.Last, root: root}, nil
}

// streamTournament writes a tournament's stored lines to w, in order, and
// returns how many events it wrote and the Merkle tree over them. With an
// anchor, the log must pass through the anchored head: a log that lost,
// changed or reordered events the server had already applied is refused.
func streamTournament(ctx context.Context, lg *jetstream.Log, t string, w io.Writer, prog progress, a *anchor) (uint64, *checkpoint.Tree, error) {
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		return 0, nil, err
	}
	if last == 0 {
		return 0, nil, fmt.Errorf("no tournament %s in this log", t)
	}
	tree := checkpoint.NewTree()
	checkAnchor := func() error {
		if a != nil && tree.Size() == a.size && !bytes.Equal(tree.Root(), a.root) {
			return fmt.Errorf("the log's first %d events do not have the Merkle root the server recorded for them: the stream was altered; nothing signed", a.size)
		}
		return nil
	}
	err = lg.Scan(ctx, 1, last, t, func(m jetstream.Msg) error {
		for rest := m.Data; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				return fmt.Errorf("stream sequence %d: a line without newline", m.StreamSeq)
			}
			if err := tree.Append(rest[:i], nil); err != nil {
				return err
			}
			if err := checkAnchor(); err != nil {
				return err
			}
			rest = rest[i+1:]
			prog.Add(1)
		}
		_, err := w.Write(m.Data)
		return err
	})
	if err == nil && a != nil && tree.Size() < a.size {
		err = fmt.Errorf("the log holds %d events of %s but the server had applied %d: events are missing; nothing signed", tree.Size(), t, a.size)
	}
	return tree.Size(), tree, err
}

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
	// Write beside the destinations and rename at the end, so a failed
	// export never leaves a log or a checkpoint that looks complete.
	f, err := os.CreateTemp(filepath.Dir(*out), filepath.Base(*out)+".partial-*")
	if err != nil {
		return err
	}
	defer func() { f.Close(); os.Remove(f.Name()) }()
	bw := bufio.NewWriterSize(f, 1<<20)
	start := time.Now()
	var n uint64
	var note string
	if *url != "" {
		n, note, err = exportURL(ctx, *url, *token, *t, bw, stderr)
	} else {
		n, note, err = exportData(ctx, *data, *t, bw, stderr)
	}
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	cp, err := os.CreateTemp(filepath.Dir(*cpOut), filepath.Base(*cpOut)+".partial-*")
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
	if err := os.Rename(f.Name(), *out); err != nil {
		return err
	}
	if err := os.Rename(cp.Name(), *cpOut); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %d events of %s to %s, signed checkpoint in %s (%s)\n", n, *t, *out, *cpOut, time.Since(start).Round(time.Millisecond))
	return nil
}

// exportURL downloads a running server's export and checks, before keeping
// it, that every line arrived: the body must have exactly the announced
// number of events and their Merkle root must be the checkpoint's. A
// transfer cut short by the server (it aborts the response when its own read
// fails) is an error, never a short file.
func exportURL(ctx context.Context, base, token, t string, w io.Writer, stderr io.Writer) (uint64, string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(base, "/")+"/v1/tournaments/"+t+"/export", nil)
	if err != nil {
		return 0, "", fmt.Errorf("--url: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return 0, "", fmt.Errorf("export: %s: %s", res.Status, b)
	}
	nb, err := base64.StdEncoding.DecodeString(res.Header.Get(api.CheckpointHeader))
	if err != nil {
		return 0, "", fmt.Errorf("export: the %s header is not base64: %w", api.CheckpointHeader, err)
	}
	cp, _, err := checkpoint.OpenUnverified(nb)
	if err != nil {
		return 0, "", fmt.Errorf("export: the server's checkpoint: %w", err)
	}
	prog := newProgress(stderr, res.ContentLength, "export", true)
	tree := checkpoint.NewTree()
	br := bufio.NewReaderSize(io.TeeReader(res.Body, progressWriter{prog}), 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it whole.
			rest, err2 := br.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), err2
		}
		if len(line) > 0 && err == nil {
			if aerr := tree.Append(line[:len(line)-1], nil); aerr != nil {
				return 0, "", aerr
			}
			if _, werr := w.Write(line); werr != nil {
				return 0, "", werr
			}
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				return 0, "", fmt.Errorf("export: the transfer ended inside line %d", tree.Size()+1)
			}
			break
		}
		if err != nil {
			return 0, "", fmt.Errorf("export: transfer failed after %d events: %w", tree.Size(), err)
		}
	}
	prog.Done()
	if announced := res.Header.Get("Referto-Events"); announced != strconv.FormatUint(tree.Size(), 10) {
		return 0, "", fmt.Errorf("export: received %d events, the server announced %s", tree.Size(), announced)
	}
	if cp.Size != tree.Size() || !bytes.Equal(cp.Root, tree.Root()) {
		return 0, "", fmt.Errorf("export: the %d events received do not have the root of the server's checkpoint (size %d)", tree.Size(), cp.Size)
	}
	return tree.Size(), string(nb), nil
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
	lg, closeAll, err := openData(ctx, dir)
	if err != nil {
		return 0, "", err
	}
	defer closeAll()
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		return 0, "", err
	}
	prog := newProgress(stderr, int64(last), "export", false)
	n, tree, err := streamTournament(ctx, lg, t, w, prog, a)
	if err != nil {
		return 0, "", err
	}
	prog.Done()
	note, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(t), Size: n, Root: tree.Root()}, keys.Signer)
	return n, note, err
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
		_, _, err := streamTournament(ctx, lg, t, pw, prog, nil)
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
	// Beside the log: export writes LOG.checkpoint; exports made before
	// it did wrote LOG's name with .checkpoint for .ndjson.
	for _, beside := range []string{*logPath + ".checkpoint", strings.TrimSuffix(*logPath, ".ndjson") + ".checkpoint"} {
		if _, err := os.Stat(beside); *cpPath == "" && beside != *logPath && err == nil {
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
		v, err := readVerifierKey(*key)
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
	failures := 0
	for _, c := range rep.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failures++
		}
		fmt.Fprintf(stdout, "%s %s%s\n", mark, where(c, ": "), c.What)
	}
	first, bad := rep.First()
	switch {
	case rep.Unsigned && failures == 1:
		fmt.Fprintf(stdout, "verdict: NOT VERIFIED: %s agrees with itself and with the checkpoints, but no trusted key was given to check who signed them (--key)\n", *logPath)
		return errVerify
	case bad:
		at := where(first, "")
		if at == "" {
			at = "the log"
		}
		fmt.Fprintf(stdout, "verdict: FAILED at %s of %s: %s\n", strings.TrimSpace(at), *logPath, first.What)
		return errVerify
	}
	fmt.Fprintf(stdout, "verdict: OK (%d events, %s)\n", sc.Line(), time.Since(start).Round(time.Millisecond))
	return nil
}

// readVerifierKey reads verify's --key: the verifier key itself, or a file
// holding it, or a file holding a GET /v1/keys answer ({"checkpoint": key}).
func readVerifierKey(arg string) (note.Verifier, error) {
	k := arg
	if b, err := os.ReadFile(arg); err == nil {
		k = strings.TrimSpace(string(b))
		var answer struct {
			Checkpoint string `json:"checkpoint"`
		}
		if strings.HasPrefix(k, "{") {
			if err := json.Unmarshal([]byte(k), &answer); err != nil || answer.Checkpoint == "" {
				return nil, fmt.Errorf("--key %s: a JSON file but not a GET /v1/keys answer (no \"checkpoint\" key)", arg)
			}
			k = answer.Checkpoint
		}
	}
	v, err := note.NewVerifier(strings.TrimSpace(k))
	if err != nil {
		return nil, fmt.Errorf("--key %s: not a verifier key (as GET /v1/keys serves it: name+hash+key), nor a file holding one or that answer: %v", arg, err)
	}
	return v, nil
}

// where names the line or lines a check concerns, followed by sep; "" for
// the whole log.
func where(c replay.Check, sep string) string {
	switch {
	case c.Upto > 0 && c.Upto != c.Line:
		return fmt.Sprintf("lines %d..%d%s", c.Line, c.Upto, sep)
	case c.Line > 0:
		return fmt.Sprintf("line %d%s", c.Line, sep)
	}
	return ""
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
	if *top < 1 {
		return fmt.Errorf("--top %d: want at least 1 row", *top)
	}
	if *diff != "" && (*whatIf != "" || *at != 0) {
		fmt.Fprintln(stderr, "--diff compares two points of the log as recorded: it takes neither --at nor --what-if")
		return errUsage
	}
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
