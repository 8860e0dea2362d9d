package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/cmd/referto/synth"
	"github.com/referto/referto/replay"
)

// errVerify is a failed verification: the report has been printed.
var errVerify = errors.New("verification failed")

func verify(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("verify", stderr)
	logPath := fs.String("log", "", "the exported log (NDJSON), required")
	var cps checkpointFiles
	fs.Var(&cps, "checkpoint", "the signed checkpoint given with it (default: LOG's name with .checkpoint for .ndjson, if it exists); repeated, without --log: checkpoints to compare, and an equivocation (two of one size with different roots) is named")
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
		return verifySeason(ctx, replay.SeasonFileOptions{Dir: *season, Keys: *key, Thresholds: *thresholds, Registry: *registryPath,
			Raw: *raw, CPUTime: synth.CPUTime}, stdout, stderr)
	}
	if *registryPath != "" {
		return usagef(stderr, "--registry goes with --season")
	}
	if *proof != "" {
		rep, err := replay.VerifyProofFile(*proof, *key, *witness)
		return printVerdict(rep, err, stdout)
	}
	if *logPath == "" && len(cps) > 1 {
		rep, err := replay.VerifyCheckpointFiles(cps, *key, *witness)
		return printVerdict(rep, err, stdout)
	}
	if *logPath == "" {
		return usagef(stderr, "verify needs --log (or several --checkpoint to compare)")
	}
	if len(cps) > 1 {
		return usagef(stderr, "--log takes one --checkpoint; give several without --log to compare them")
	}
	var cpPath string
	if len(cps) == 1 {
		cpPath = cps[0]
	}
	rep, err := replay.VerifyFile(*logPath, replay.FileOptions{Checkpoint: cpPath, Key: *key, Witness: *witness,
		Progress: func(size int64) replay.Progress { return newProgress(stderr, size, "read", true) }})
	return printVerdict(rep, err, stdout)
}

// checkpointFiles are the --checkpoint files, in the order given.
type checkpointFiles []string

func (c *checkpointFiles) String() string { return strings.Join(*c, ",") }

func (c *checkpointFiles) Set(path string) error {
	*c = append(*c, path)
	return nil
}

// verifySeason verifies a directory of exports and ranks the season
// (replay.VerifySeasonFiles), with a warning when no ranking is computed.
func verifySeason(ctx context.Context, o replay.SeasonFileOptions, stdout, stderr io.Writer) error {
	rep, err := replay.VerifySeasonFiles(ctx, o)
	if err == nil && rep.Unranked != nil {
		fmt.Fprintf(stderr, "warning: %v: no ranking computed\n", rep.Unranked)
	}
	return printVerdict(rep, err, stdout)
}

// report is a verification's: it prints itself, and says whether it passed.
type report interface{ Print(w io.Writer) (ok bool) }

// printVerdict prints a verification's report: errVerify when it fails.
func printVerdict(rep report, err error, stdout io.Writer) error {
	if err != nil {
		return err
	}
	if !rep.Print(stdout) {
		return errVerify
	}
	return nil
}

func replayCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", stderr)
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
		return usagef(stderr, "replay needs exactly one of --data (with --tournament) and --log")
	}
	// Understand the request before reading the log.
	if *top < 1 {
		return fmt.Errorf("--top %d: want at least 1 row", *top)
	}
	if *diff != "" && (*whatIf != "" || *at != 0) {
		return usagef(stderr, "--diff compares two points of the log as recorded: it takes neither --at nor --what-if")
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
		sc, closeLog, err = replay.OpenFile(*logPath, func(size int64) replay.Progress { return newProgress(stderr, size, "read", true) })
	} else {
		sc, closeLog, err = replay.ScanDir(ctx, dataDir{node.Layout{Dir: *data}}, *t,
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

// proofCmd writes the proof file of a player's row in an export's last
// published classification (replay.ProveFile).
func proofCmd(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("proof", stderr)
	logPath := fs.String("log", "", "the exported log (NDJSON), required")
	cpPath := fs.String("checkpoint", "", "its signed checkpoint (default: beside the log)")
	player := fs.String("player", "", "the player whose row to prove, required")
	out := fs.String("out", "", "where to write the proof (default <tournament>-<player>.proof.json)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *logPath == "" || *player == "" {
		return usagef(stderr, "proof needs --log and --player")
	}
	p, written, err := replay.ProveFile(*logPath, *cpPath, *player, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "proof of %s's row (rank %d) in %s written to %s\n", *player, p.Row.Rank, p.Tournament, written)
	return nil
}
