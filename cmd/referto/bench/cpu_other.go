//go:build !unix

package bench

import "time"

// cpuTime is not read on this platform.
func cpuTime() (time.Duration, bool) { return 0, false }

// CPUTime is cpuTime for the command line.
func CPUTime() (time.Duration, bool) { return cpuTime() }
