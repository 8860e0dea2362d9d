package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/cmd/referto/bench"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
	"github.com/referto/referto/projections/ranking"
	"github.com/referto/referto/replay"
)

// seasonFlags are verify --season's.
type seasonFlags struct {
	dir, keys, thresholds, registry string
	raw                             bool
}

// verifySeason verifies a directory of exports in parallel (replay.VerifySeason),
// after a raw read of the same bytes to measure it against, and prints the
// verdict, naming every export that fails, and the season's ranking, with
// the hub's season registry when one is given (replay.VerifyRegistry).
func verifySeason(ctx context.Context, f seasonFlags, stdout, stderr io.Writer) error {
	dir, keyPath, thresholdsPath, raw := f.dir, f.keys, f.thresholds, f.raw
	if keyPath == "" {
		keyPath = filepath.Join(dir, bench.KeysFile)
	}
	keys, err := replay.ReadKeyring(keyPath)
	if err != nil {
		return fmt.Errorf("--key: %w", err)
	}
	var reg *ranking.Registry
	if f.registry != "" {
		if reg, err = readRegistry(f.registry, keys, stdout); err != nil {
			fmt.Fprintf(stdout, "FAIL registry %s: %v\nverdict: FAILED: the season registry does not verify; no ranking computed\n", f.registry, err)
			return errVerify
		}
	}
	var rawTook time.Duration
	var rawBytes int64
	if raw {
		start := time.Now()
		if rawBytes, err = replay.RawRead(dir, 0); err != nil {
			return err
		}
		rawTook = time.Since(start)
	}
	// A season is thousands of small logs decoded one after another, each
	// let go once checked: collecting less often trades memory (about
	// 0.3 GB at a million events) for about a sixth of the CPU
	// (docs/performance.md).
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	cpu0, _ := bench.CPUTime()
	rep, err := replay.VerifySeason(ctx, replay.SeasonOptions{Dir: dir, Keys: keys})
	if err != nil {
		return err
	}
	// The ranking of the season the verified tournaments name.
	th, err := rep.Thresholds(thresholdsPath)
	switch {
	case err != nil && thresholdsPath != "":
		return err
	case err != nil:
		fmt.Fprintf(stderr, "warning: %v: no ranking computed\n", err)
	}
	rankTook := rep.Rank(th, reg)
	ok := rep.Print(stdout)
	rep.PrintRanking(stdout, rankTook)
	if raw {
		total := rep.Took + rankTook
		cpu1, _ := bench.CPUTime()
		fmt.Fprintf(stdout, "time: verify and rank %s (%.1f CPU-s) on %d CPUs; raw read of the same %.0f MB %s: %.1f× the raw read\n",
			total.Round(time.Millisecond), (cpu1 - cpu0).Seconds(), runtime.GOMAXPROCS(0), float64(rawBytes)/1e6, rawTook.Round(time.Millisecond), total.Seconds()/rawTook.Seconds())
	}
	if !ok {
		return errVerify
	}
	return nil
}

// readRegistry verifies a season registry's export with the checkpoint
// beside it under keys, and says what it holds.
func readRegistry(path string, keys replay.Keyring, stdout io.Writer) (*ranking.Registry, error) {
	cpPath, ok := replay.FindCheckpoint(path)
	if !ok {
		return nil, fmt.Errorf("no signed checkpoint beside it (%s)", replay.CheckpointFile(path))
	}
	export, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	signed, err := os.ReadFile(cpPath)
	if err != nil {
		return nil, err
	}
	reg, cp, err := replay.VerifyRegistry(export, signed, keys)
	if err != nil {
		return nil, err
	}
	_, name, _ := checkpoint.OpenUnverified(signed)
	fmt.Fprintf(stdout, "ok   registry %s: %d events signed by %s: %d links, %d merges, %d disqualification periods\n",
		filepath.Base(path), cp.Size, name, len(reg.Linked), len(reg.Merges), len(reg.Periods))
	return reg, nil
}

// verifyProof checks a proof file offline (proof.Verify).
func verifyProof(path, key, witness string, stdout io.Writer) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var kv, wv note.Verifier
	if key != "" {
		if kv, err = checkpoint.ReadVerifier(key); err != nil {
			return fmt.Errorf("--key %s: %w", key, err)
		}
	}
	if witness != "" {
		if wv, err = checkpoint.ReadWitnessVerifier(witness); err != nil {
			return fmt.Errorf("--witness %s: %w", witness, err)
		}
	}
	res, err := proof.Verify(b, kv, wv)
	if err != nil {
		fmt.Fprintf(stdout, "verdict: REFUSED %s: %v\n", path, err)
		return errVerify
	}
	p := res.Proof
	fmt.Fprintf(stdout, "ok   checkpoint of %s: %d events, signed by %s\n", p.Tournament, res.Checkpoint.Size, kv.Name())
	switch {
	case res.Witnessed:
		fmt.Fprintf(stdout, "ok   cosigned by the witness %s\n", wv.Name())
	case p.Cosignatures != "":
		fmt.Fprintln(stdout, "note a witness cosigned it, but no --witness key was given to check it")
	}
	fmt.Fprintf(stdout, "ok   event %d is the published classification, included in the signed log\n", p.Index+1)
	fmt.Fprintf(stdout, "verdict: OK: %s (%s) ranked %d, %s, %.2f points, in %s\n", p.Row.Player, p.Row.Name, p.Row.Rank, p.Row.Phase, float64(p.Row.Total)/100, p.Tournament)
	return nil
}

// proofCmd writes the proof file of a player's row in an export's last
// published classification (replay.ProveFromExport).
func proofCmd(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("proof", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logPath := fs.String("log", "", "the exported log (NDJSON), required")
	cpPath := fs.String("checkpoint", "", "its signed checkpoint (default: beside the log)")
	player := fs.String("player", "", "the player whose row to prove, required")
	out := fs.String("out", "", "where to write the proof (default <tournament>-<player>.proof.json)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *logPath == "" || *player == "" {
		fmt.Fprintln(stderr, "proof needs --log and --player")
		return errUsage
	}
	if beside, ok := replay.FindCheckpoint(*logPath); *cpPath == "" && ok {
		*cpPath = beside
	}
	if *cpPath == "" {
		return fmt.Errorf("no signed checkpoint beside %s: give --checkpoint", *logPath)
	}
	export, err := os.ReadFile(*logPath)
	if err != nil {
		return err
	}
	signed, err := os.ReadFile(*cpPath)
	if err != nil {
		return err
	}
	p, err := replay.ProveFromExport(export, signed, *player)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = p.Tournament + "-" + *player + ".proof.json"
	}
	if err := os.WriteFile(*out, p.Encode(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "proof of %s's row (rank %d) in %s written to %s\n", *player, p.Row.Rank, p.Tournament, *out)
	return nil
}
