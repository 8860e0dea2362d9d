//go:build !unix

package synth

import "time"

// CPUTime is not read on this platform.
func CPUTime() (time.Duration, bool) { return 0, false }
