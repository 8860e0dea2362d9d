//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time, user and system, this process has used so far;
// ok is false where it cannot be read.
func cpuTime() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// CPUTime is cpuTime for the command line: what verify --season reports
// beside its wall time, on a machine other work shares.
func CPUTime() (time.Duration, bool) { return cpuTime() }
