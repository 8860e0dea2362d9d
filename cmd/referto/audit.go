package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/replay"
)

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

// errVerify is a failed verification: the report has been printed.
var errVerify = errors.New("verification failed")

func verify(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logPath := fs.String("log", "", "the exported log (NDJSON), required")
	cpPath := fs.String("checkpoint", "", "the signed checkpoint given with it (default: LOG's name with .checkpoint for .ndjson, if it exists)")
	key := fs.String("key", "", "the trusted verifier key, or a file holding it (as served at GET /v1/keys); with --season a file of keys, one a line")
	season := fs.String("season", "", "instead of --log: a directory of exports (each with its checkpoint) to verify in parallel and rank")
	registryPath := fs.String("registry", "", "with --season: a national hub's season registry export (referto export --registry), its checkpoint beside it, signed by a key of --key's; the ranking applies its links, merges and disqualifications")
	thresholds := fs.String("thresholds", "", "with --season: the season's thresholds file (default: the one shipped for the season the tournaments name)")
	raw := fs.Bool("raw", true, "with --season: first read the same bytes raw, and report verify's time against it")
	proof := fs.String("proof", "", "instead of --log: a proof file of a classification row (referto proof) to check offline")
	witness := fs.String("witness", "", "a hub's witness key, or a file holding it (its GET /v1/keys \"witness\"): the checkpoint (with --log) or the proof (with --proof) must carry its cosignature")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *season != "" {
		return verifySeason(ctx, seasonFlags{dir: *season, keys: *key, thresholds: *thresholds, registry: *registryPath, raw: *raw}, stdout, stderr)
	}
	if *registryPath != "" {
		fmt.Fprintln(stderr, "--registry goes with --season")
		return errUsage
	}
	if *proof != "" {
		return verifyProof(*proof, *key, *witness, stdout)
	}
	if *logPath == "" {
		fmt.Fprintln(stderr, "verify needs --log")
		return errUsage
	}
	start := time.Now()
	var o replay.VerifyOptions
	if beside, ok := replay.FindCheckpoint(*logPath); *cpPath == "" && ok {
		*cpPath = beside
		fmt.Fprintf(stdout, "checkpoint: %s\n", beside)
	}
	if *cpPath != "" {
		b, err := os.ReadFile(*cpPath)
		if err != nil {
			return err
		}
		o.Checkpoint = b
	}
	if *key != "" {
		v, err := checkpoint.ReadVerifier(*key)
		if err != nil {
			return fmt.Errorf("--key %s: %w", *key, err)
		}
		o.Verifier = v
	}
	var cosigned error
	if *witness != "" {
		w, err := checkpoint.ReadWitnessVerifier(*witness)
		if err != nil {
			return fmt.Errorf("--witness %s: %w", *witness, err)
		}
		if len(o.Checkpoint) == 0 {
			return errors.New("--witness checks the checkpoint's cosignature: give the checkpoint (--checkpoint)")
		}
		if cosigned = checkpoint.CheckCosigned(o.Checkpoint, w); cosigned == nil {
			fmt.Fprintf(stdout, "ok   the checkpoint is cosigned by witness %s\n", w.Name())
		} else {
			fmt.Fprintf(stdout, "FAIL %v\n", cosigned)
		}
	}
	sc, closeLog, err := openLog(*logPath, stderr)
	if err != nil {
		return err
	}
	rep := replay.Verify(sc, o)
	closeLog()
	if !rep.Print(stdout, *logPath, sc.Line(), time.Since(start)) || cosigned != nil {
		return errVerify
	}
	return nil
}

func replayCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
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
	q := replay.Query{At: *at, WhatIf: *whatIf != "", Top: *top}
	if *diff != "" {
		var ok bool
		if q.From, q.To, ok = replay.ParseRange(*diff); !ok {
			return fmt.Errorf("--diff %q: want A..B, two events with A < B", *diff)
		}
	}
	if *whatIf != "" {
		b, err := os.ReadFile(*whatIf)
		if err != nil {
			return err
		}
		if q.Corrections, err = replay.ParseCorrections(b); err != nil {
			return fmt.Errorf("%s: %w", *whatIf, err)
		}
	}

	var sc *replay.Scanner
	var closeLog func()
	var err error
	if *logPath != "" {
		sc, closeLog, err = openLog(*logPath, stderr)
	} else {
		sc, closeLog, err = replay.ScanDir(ctx, dataDir{ledger.Layout{Dir: *data}}, *t,
			func(n uint64) replay.Progress { return newProgress(stderr, int64(n), "read", false) })
	}
	if err != nil {
		return err
	}
	defer closeLog()
	show, err := q.Answer(sc)
	if err != nil {
		return err
	}
	if *t != "" && sc.Tournament() != *t {
		return fmt.Errorf("%s holds tournament %s, not %s", *logPath, sc.Tournament(), *t)
	}
	w := bufio.NewWriter(stdout)
	show(w)
	return w.Flush()
}
