//go:build !unix

package main

import "time"

// cpuTime is not read on this platform.
func cpuTime() (time.Duration, bool) { return 0, false }
