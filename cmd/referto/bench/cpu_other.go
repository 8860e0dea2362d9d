//go:build !unix

package bench

import "time"

// cpuTime is not read on this platform.
func cpuTime() (time.Duration, bool) { return 0, false }
