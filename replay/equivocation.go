package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/referto/referto/events/checkpoint"
)

// CheckpointsReport is VerifyCheckpointFiles' verdict on signed
// checkpoints given without their log.
type CheckpointsReport struct {
	Checks []Check
	// Equivocations are the pairs of checkpoints that sign one log at one
	// size with different roots.
	Equivocations int
}

// VerifyCheckpointFiles checks signed checkpoints an auditor collected
// (from a venue, a hub, a published classification, a player's proof),
// without their log: each one's signature by the trusted key, its
// cosignature by the witness when one is given, and that no two of them
// sign one log at one size with different roots. Such a pair is an
// equivocation: no append-only log has both, so one of them, or each,
// was signed over another history (a witness that cosigned both
// equivocated too). An error is returned for what stops the check from
// starting: a key or file that cannot be read.
func VerifyCheckpointFiles(paths []string, key, witness string) (*CheckpointsReport, error) {
	kv, wv, err := readKeys(key, witness)
	if err != nil {
		return nil, err
	}
	if kv == nil {
		return nil, errors.New("comparing checkpoints needs the trusted key (--key): whose signatures would they be?")
	}
	r := &CheckpointsReport{}
	add := func(ok bool, format string, args ...any) {
		r.Checks = append(r.Checks, Check{OK: ok, What: fmt.Sprintf(format, args...)})
	}
	type signed struct {
		path     string
		cp       checkpoint.Checkpoint
		cosigned bool
	}
	var good []signed
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		cp, err := checkpoint.Open(b, kv)
		if err != nil {
			add(false, "%s: %v", path, err)
			continue
		}
		s := signed{path: path, cp: cp}
		what := fmt.Sprintf("%s: %s, %d events, root %x, signed by %s", path, cp.Origin, cp.Size, cp.Root, kv.Name())
		if wv != nil {
			if err := checkpoint.CheckCosigned(b, wv); err != nil {
				add(false, "%s: %v", path, err)
			} else {
				s.cosigned = true
				what += ", cosigned by witness " + wv.Name()
			}
		}
		add(true, "%s", what)
		good = append(good, s)
	}
	for i, a := range good {
		for _, b := range good[i+1:] {
			if a.cp.Origin != b.cp.Origin || a.cp.Size != b.cp.Size || bytes.Equal(a.cp.Root, b.cp.Root) {
				continue
			}
			r.Equivocations++
			witnessToo := ""
			if a.cosigned && b.cosigned {
				witnessToo = fmt.Sprintf("; witness %s cosigned both", wv.Name())
			}
			add(false, "equivocation: %s and %s both sign %d events of %s with different roots (%x, %x): no append-only log has both, one was signed over another history%s",
				a.path, b.path, a.cp.Size, a.cp.Origin, a.cp.Root, b.cp.Root, witnessToo)
		}
	}
	return r, nil
}

// Print writes every check, one a line marked ok or FAIL, then the
// verdict; ok is false unless every check passed.
func (r *CheckpointsReport) Print(w io.Writer) (ok bool) {
	ok = true
	var first string
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			if ok {
				first = c.What
			}
			ok = false
		}
		fmt.Fprintf(w, "%s %s\n", mark, c.What)
	}
	switch {
	case r.Equivocations > 0:
		fmt.Fprintf(w, "verdict: EQUIVOCATION (%d pairs of checkpoints of one size with different roots)\n", r.Equivocations)
	case !ok:
		fmt.Fprintf(w, "verdict: FAILED: %s\n", first)
	default:
		fmt.Fprintf(w, "verdict: OK (%d checkpoints, no two of one size differ)\n", len(r.Checks))
	}
	return ok
}
