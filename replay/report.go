package replay

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Print writes every check, one a line marked ok or FAIL with the lines
// it concerns, then the verdict on the log named log (ok is false unless
// it is OK). An OK verdict says how many events were read and took, the
// time the verification took.
func (r *Report) Print(w io.Writer, log string, events int, took time.Duration) (ok bool) {
	failures := 0
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
			failures++
		}
		fmt.Fprintf(w, "%s %s%s\n", mark, where(c, ": "), c.What)
	}
	first, bad := r.First()
	switch {
	case r.Unsigned && failures == 1:
		fmt.Fprintf(w, "verdict: NOT VERIFIED: %s agrees with itself and with the checkpoints, but no trusted key was given to check who signed them (--key)\n", log)
		return false
	case bad:
		at := where(first, "")
		if at == "" {
			at = "the log"
		}
		fmt.Fprintf(w, "verdict: FAILED at %s of %s: %s\n", strings.TrimSpace(at), log, first.What)
		return false
	}
	fmt.Fprintf(w, "verdict: OK (%d events, %s)\n", events, took.Round(time.Millisecond))
	return true
}

// where names the line or lines a check concerns, followed by sep; "" for
// the whole log.
func where(c Check, sep string) string {
	switch {
	case c.Upto > 0 && c.Upto != c.Line:
		return fmt.Sprintf("lines %d..%d%s", c.Line, c.Upto, sep)
	case c.Line > 0:
		return fmt.Sprintf("line %d%s", c.Line, sep)
	}
	return ""
}
