package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/ranking"
)

// SeasonKeysFile is the file of a season directory listing the venues'
// verifier keys, one a line (ReadKeyring).
const SeasonKeysFile = "keys"

// SeasonFileOptions are what VerifySeasonFiles reads, as an auditor names
// them (referto verify --season's flags).
type SeasonFileOptions struct {
	// Dir holds the season's exports, each with its checkpoint beside it.
	Dir string
	// Keys is the file of the trusted keys, one a line (--key); the
	// default is Dir's SeasonKeysFile.
	Keys string
	// Thresholds is the season's thresholds file (--thresholds); the
	// default is the one shipped for the season the tournaments name
	// (SeasonReport.Thresholds).
	Thresholds string
	// Registry, when set, is a national hub's season registry export
	// (--registry), its checkpoint beside it, signed by one of Keys: the
	// ranking applies its links, merges and disqualifications.
	Registry string
	// Raw first reads the same bytes raw (RawRead), to measure the
	// verification against (--raw).
	Raw bool
	// CPUTime, when set, is the process's CPU time so far: with Raw, the
	// report says how much of it the verification took.
	CPUTime func() (time.Duration, bool)
}

// SeasonFileReport is VerifySeasonFiles' verdict.
type SeasonFileReport struct {
	// SeasonReport is the exports' verdict and ranking; nil when the
	// registry did not verify (and nothing else was checked).
	*SeasonReport
	// Registry is the registry's file, when one was given, and
	// RegistryErr why it does not verify; else RegistrySigned names the
	// key its checkpoint of RegistryEvents events is signed by, and
	// Folded is the registry it folds to.
	Registry       string
	RegistryErr    error
	RegistrySigned string
	RegistryEvents uint64
	Folded         *ranking.Registry
	// Unranked is why no ranking was computed, when no thresholds file
	// was given and none is shipped for the season (nil otherwise).
	Unranked error
	RankTook time.Duration
	// With Raw: the bytes read raw and how long that took, and the CPU
	// time the verification and the ranking took.
	Raw      bool
	RawBytes int64
	RawTook  time.Duration
	CPU      time.Duration
}

// VerifySeasonFiles verifies a directory of exports in parallel
// (VerifySeason), after a raw read of the same bytes to measure it against
// when o.Raw, and ranks the tournaments that verified with the season's
// thresholds and the hub's season registry when one is given
// (VerifyRegistry). An error is returned for what stops the verification
// (a file that cannot be read); what it finds is in the report.
func VerifySeasonFiles(ctx context.Context, o SeasonFileOptions) (*SeasonFileReport, error) {
	if o.Keys == "" {
		o.Keys = filepath.Join(o.Dir, SeasonKeysFile)
	}
	keys, err := ReadKeyring(o.Keys)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	r := &SeasonFileReport{Registry: o.Registry, Raw: o.Raw}
	if o.Registry != "" {
		if r.RegistryErr = r.readRegistry(keys); r.RegistryErr != nil {
			return r, nil
		}
	}
	if o.Raw {
		start := time.Now()
		if r.RawBytes, err = RawRead(o.Dir, 0); err != nil {
			return nil, err
		}
		r.RawTook = time.Since(start)
	}
	if o.CPUTime == nil {
		o.CPUTime = func() (time.Duration, bool) { return 0, false }
	}
	// A season is thousands of small logs decoded one after another, each
	// let go once checked: collecting less often trades memory (about
	// 0.3 GB at a million events) for about a sixth of the CPU
	// (docs/performance.md).
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	cpu0, _ := o.CPUTime()
	if r.SeasonReport, err = VerifySeason(ctx, SeasonOptions{Dir: o.Dir, Keys: keys}); err != nil {
		return nil, err
	}
	// The ranking of the season the verified tournaments name.
	th, err := r.Thresholds(o.Thresholds)
	switch {
	case err != nil && o.Thresholds != "":
		return nil, err
	case err != nil:
		r.Unranked = err
	}
	r.RankTook = r.Rank(th, r.Folded)
	cpu1, _ := o.CPUTime()
	r.CPU = cpu1 - cpu0
	return r, nil
}

// readRegistry verifies the season registry's export with the checkpoint
// beside it under keys.
func (r *SeasonFileReport) readRegistry(keys Keyring) error {
	cpPath, ok := FindCheckpoint(r.Registry)
	if !ok {
		return fmt.Errorf("no signed checkpoint beside it (%s)", CheckpointFile(r.Registry))
	}
	export, err := os.ReadFile(r.Registry)
	if err != nil {
		return err
	}
	signed, err := os.ReadFile(cpPath)
	if err != nil {
		return err
	}
	reg, cp, err := VerifyRegistry(export, signed, keys)
	if err != nil {
		return err
	}
	_, r.RegistrySigned, _ = checkpoint.OpenUnverified(signed)
	r.Folded, r.RegistryEvents = reg, cp.Size
	return nil
}

// Print writes what the registry holds, or why it does not verify, then
// the exports' verdict (SeasonReport.Print), the ranking
// (SeasonReport.PrintRanking) and, with Raw, the time taken against the
// raw read; ok is false unless the registry and every export verified.
func (r *SeasonFileReport) Print(w io.Writer) (ok bool) {
	switch {
	case r.RegistryErr != nil:
		fmt.Fprintf(w, "FAIL registry %s: %v\nverdict: FAILED: the season registry does not verify; no ranking computed\n", r.Registry, r.RegistryErr)
		return false
	case r.Registry != "":
		reg := r.Folded
		fmt.Fprintf(w, "ok   registry %s: %d events signed by %s: %d links, %d merges, %d disqualification periods\n",
			filepath.Base(r.Registry), r.RegistryEvents, r.RegistrySigned, len(reg.Linked), len(reg.Merges), len(reg.Periods))
	}
	ok = r.SeasonReport.Print(w)
	r.PrintRanking(w, r.RankTook)
	if r.Raw {
		total := r.Took + r.RankTook
		fmt.Fprintf(w, "time: verify and rank %s (%.1f CPU-s) on %d CPUs; raw read of the same %.0f MB %s: %.1f× the raw read\n",
			total.Round(time.Millisecond), r.CPU.Seconds(), runtime.GOMAXPROCS(0), float64(r.RawBytes)/1e6, r.RawTook.Round(time.Millisecond), total.Seconds()/r.RawTook.Seconds())
	}
	return ok
}
