//go:build unix

package synth

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time, user and system, this process has used so far;
// ok is false where it cannot be read. verify --season reports it beside
// its wall time, and the benchmarks per operation: on a machine other work
// shares, it moves less than the wall time.
func CPUTime() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
