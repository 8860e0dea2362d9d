package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/referto/referto/cmd/referto/bench"
	"github.com/referto/referto/projections/ranking"
	"github.com/referto/referto/replay"
)

// verifySeason verifies a directory of exports in parallel (replay.VerifySeason),
// after a raw read of the same bytes to measure it against, and prints the
// verdict, naming every export that fails, and the season's ranking.
func verifySeason(ctx context.Context, dir, keyPath, thresholdsPath string, raw bool, stdout, stderr io.Writer) error {
	if keyPath == "" {
		keyPath = filepath.Join(dir, bench.KeysFile)
	}
	keys, err := replay.ReadKeyring(keyPath)
	if err != nil {
		return fmt.Errorf("--key: %w", err)
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
	// A season is thousands of small logs decoded at once: collecting
	// less often trades memory (about 2 GB at a million events) for about
	// a fifth of the CPU (docs/performance.md).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	rep, err := replay.VerifySeason(ctx, replay.SeasonOptions{Dir: dir, Keys: keys})
	if err != nil {
		return err
	}
	// The ranking of the season the verified tournaments name.
	season := ""
	for _, t := range rep.RankedFrom {
		if t.Season != "" {
			season = t.Season
			break
		}
	}
	var th *ranking.Thresholds
	switch {
	case thresholdsPath != "":
		b, err := os.ReadFile(thresholdsPath)
		if err != nil {
			return err
		}
		if th, err = ranking.ParseThresholds(thresholdsPath, b); err != nil {
			return err
		}
	case season != "":
		if th, err = ranking.Season(season); err != nil {
			fmt.Fprintf(stderr, "warning: %v: no ranking computed\n", err)
		}
	}
	rankStart := time.Now()
	if th != nil {
		rep.Ranking = ranking.Compute(th, rep.RankedFrom, nil)
	}
	rankTook := time.Since(rankStart)
	ok := rep.Print(stdout)
	if rep.Ranking != nil {
		r := rep.Ranking
		fmt.Fprintf(stdout, "ranking %s (thresholds %s, sha256 %s): %d players, %d for review, %d placings without a national id (%s)\n",
			r.Season, r.Thresholds, r.ThresholdsSHA256[:16], len(r.Rows), len(r.Review), len(r.Unlinked), rankTook.Round(time.Millisecond))
		for _, row := range r.Rows[:min(10, len(r.Rows))] {
			fmt.Fprintf(stdout, "  %3d. %-8s %-28s %10.3f\n", row.Rank, row.NationalID, row.Name, row.Score)
		}
	}
	if raw {
		total := rep.Took + rankTook
		fmt.Fprintf(stdout, "time: verify %s on %d CPUs, raw read of the same %.0f MB %s: %.1f× the raw read\n",
			total.Round(time.Millisecond), runtime.GOMAXPROCS(0), float64(rawBytes)/1e6, rawTook.Round(time.Millisecond), total.Seconds()/rawTook.Seconds())
	}
	if !ok {
		return errVerify
	}
	return nil
}

// verifyProof checks a proof file offline (replay.VerifyProof).
func verifyProof(path, key, witness string, stdout io.Writer) error {
	return fmt.Errorf("not yet")
}
